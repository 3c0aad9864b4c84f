"""`ask` end to end: real file-agent, search and kernel servers over MCP, a scripted model over HTTP.

One pool serves the whole module (starting the demo lake's servers is most of the cost); each
test queues its scripted turns for the main agent and checks the answer, the steps and the
trace. Besides the blackboard, the paper's baselines run on the same servers (each ask says
its mode):

- master-slave: the main agent names the helper that answers (an unknown name is refused with
  the list);
- rag: the five closest files come with the question and help requests reach the search agent
  only;
- all-files: every file comes with the question and there is no request_help.

File agents answer with their offline engine here (test_helpers_with_model.py lends them
the model).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import pytest_asyncio

from lakeboard.host.agents.main_agent_prompts import MAIN_AGENT_MARKER
from lakeboard.host.agents.session import AskSession
from lakeboard.host.trace import Trace
from lakeboard.schemas.board import TraceEvent
from tests.e2e import scenarios
from tests.e2e.conftest import agent_holding, kernel_is_sandboxed, servers_of
from tests.support.scripted_llm import HTTPError, ScriptedLLM

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def session(demo_lake, model):
    trace = Trace()  # in memory: tests read trace.events
    async with AskSession(demo_lake, model.settings(), trace=trace, lend_model=False, helper_timeout_s=60) as s:
        yield s


def events_since(session: AskSession, start: int) -> list[TraceEvent]:
    return session.trace.events[start:]


def kinds(events: list[TraceEvent]) -> list[str]:
    return [e.kind for e in events]


def script(model: ScriptedLLM, turns) -> None:
    assert model.remaining(MAIN_AGENT_MARKER) == 0, "a previous test left turns behind"
    model.route(MAIN_AGENT_MARKER, *turns)


def all_consumed(model: ScriptedLLM) -> None:
    assert model.remaining(MAIN_AGENT_MARKER) == 0
    assert not model.unexpected, [r.body for r in model.unexpected]


async def test_answer_needs_a_blackboard_request(session, model):
    question = scenarios.QUESTIONS["demo-medium-1"]
    start = len(session.trace.events)
    script(model, scenarios.busiest_route_turns())

    result = await session.ask(question["query"], task_id=question["id"])

    assert result.status == "answered", result.error
    assert result.answer == question["answer"] == "University Line"
    assert [s.action.action for s in result.steps] == ["plan", "request_help", "run_code", "answer"]
    assert result.response.id == "main-task" and result.response.query == question["query"]
    assert result.data_sources == ["transit/ridership_2024.parquet", "transit/routes.json"]
    assert [t.id for t in result.response.subtasks] == ["subtask-1", "subtask-2"]
    assert result.execution.sandboxed == kernel_is_sandboxed(servers_of(session.lake))
    all_consumed(model)

    events = events_since(session, start)
    # The broadcast: one post to every helper, each helper's own decision, the volunteers' responses.
    [post] = [e for e in events if e.kind == "post"]
    helpers = post.data["helpers"]
    assert set(helpers) == set(session.pool.helpers) and session.kernel.server not in helpers
    decisions = [e for e in events if e.kind == "decision"]
    assert {e.server for e in decisions} == set(helpers)
    [posting] = [e for e in events if e.kind == "posting"]
    volunteers = {e.server for e in decisions if e.data["can_help"]}
    transit = agent_holding(Path(session.lake.config_dir), "transit/ridership_2024.parquet")
    assert transit in volunteers and set(posting.data["volunteers"]) == volunteers
    responded = {e.server for e in events if e.kind == "response"}
    assert transit in responded
    # The kernel runs: the exploration, then the final program after a fresh start.
    runs = [e for e in events if e.kind == "kernel_run"]
    assert [r.data["purpose"] for r in runs] == ["run_code", "answer"] and all(r.data["ok"] for r in runs)
    assert kinds(events)[-1] == "agent_end"
    # The model saw the volunteers' code (that is where its paths came from).
    seen = model.requests_for(MAIN_AGENT_MARKER)[2].messages[-1]["content"]
    assert f"== {transit}" in seen and "read_parquet" in seen
    usage = result.usage["total"]
    assert usage["calls"] == 4 and usage["total_tokens"] > 0 and set(result.usage["per_label"]) == {"main"}


# -- the paper's baselines, on the same servers: before test_a_malformed_action_is_reasked, whose
# replies in text switch the session to actions as JSON in text (all-files checks the tools offered)

BASELINE_QUESTION = scenarios.QUESTIONS["demo-easy-1"]
RIDERSHIP = "transit/ridership_2024.parquet"


def final(path: str) -> str:
    return scenarios.answer("import json\nimport pandas as pd\n"
                            f"df = pd.read_parquet({path!r})\n"
                            "print(json.dumps({'answer': int(df['boardings'].sum())}))", RIDERSHIP)


def first_message(body: dict) -> str:
    return body["messages"][1]["content"]


async def test_master_slave_asks_the_named_helper(session, model):
    transit = agent_holding(session.lake.config_dir, RIDERSHIP)
    seen: dict[str, str] = {}

    def ask_transit(body: dict) -> str:
        seen["refusal"] = scenarios.observation(body)
        return scenarios.act("request_help", helper=transit, request="passenger boardings per route in 2024")

    def answer(body: dict) -> str:
        return final(scenarios.board_path(scenarios.observation(body), RIDERSHIP))

    script(model, [scenarios.act("request_help", helper="the-bus-people", request="boardings"), ask_transit, answer])
    start = len(session.trace.events)
    result = await session.ask(BASELINE_QUESTION["query"], mode="master-slave")

    assert result.status == "answered", result.error
    assert result.answer == BASELINE_QUESTION["answer"] == 17584234
    first = model.requests_for(MAIN_AGENT_MARKER)[-3]
    assert "You ask one helper at a time, by its name" in first.system_prompt
    assert f"- {transit}: " in first_message(first.body)  # the helpers, listed with what they know
    assert "No helper is called 'the-bus-people'" in seen["refusal"] and transit in seen["refusal"]
    events = events_since(session, start)
    assert [e.data["helpers"] for e in events if e.kind == "assign"] == [[transit]]
    assert not [e for e in events if e.kind in ("post", "decision")]  # nobody was asked whether it can help
    all_consumed(model)


async def test_rag_shows_the_closest_files_and_asks_only_the_search_agent(session, model):
    def ask_search(body: dict) -> str:
        return scenarios.act("request_help", request="what does a boarding count mean?")

    def answer(body: dict) -> str:
        listed = re.findall(r"^- (\S+) \(", first_message(body), re.M)
        assert RIDERSHIP in listed, listed
        return final(str(scenarios.DEMO_LAKE / RIDERSHIP))

    script(model, [ask_search, answer])
    start = len(session.trace.events)
    result = await session.ask(BASELINE_QUESTION["query"], mode="rag")

    assert result.status == "answered", result.error
    assert result.answer == 17584234
    first = model.requests_for(MAIN_AGENT_MARKER)[-2]
    listed = re.findall(r"^- (\S+) \(", first_message(first.body), re.M)
    assert len(listed) == 5 and "files of the lake closest to the question" in first_message(first.body)
    [post] = [e for e in events_since(session, start) if e.kind == "post"]
    assert post.data["helpers"] == ["demo-search"]
    all_consumed(model)


async def test_all_files_lists_every_file_and_has_no_helpers(session, model):
    script(model, [scenarios.act("request_help", request="anything"), final(str(scenarios.DEMO_LAKE / RIDERSHIP))])
    result = await session.ask(BASELINE_QUESTION["query"], mode="all-files")

    assert result.status == "answered", result.error
    assert result.answer == 17584234
    refused, answered = model.requests_for(MAIN_AGENT_MARKER)[-2:]
    listed = re.findall(r"^- (\S+) \(", first_message(refused.body), re.M)
    assert set(listed) == set(session.lake_paths)
    assert "request_help" not in [t["function"]["name"] for t in refused.body["tools"]]
    assert "exactly one of these four actions" in refused.system_prompt
    assert "Nobody helps in this setting" in answered.messages[-1]["content"]
    all_consumed(model)


# -- the blackboard again ------------------------------------------------------------------

async def test_a_failing_first_program_gets_fixed(session, model):
    question = scenarios.QUESTIONS["demo-easy-2"]
    script(model, scenarios.service_category_turns())

    result = await session.ask(question["query"])

    assert result.status == "answered", result.error
    assert result.answer == "Noise" == question["answer"]
    first, second = result.steps[1], result.steps[2]
    assert first.action.action == second.action.action == "answer"
    assert not first.ok and "KeyError" in first.observation and "fresh kernel" in first.observation
    assert second.ok and "['category']" in result.program
    all_consumed(model)


async def test_a_malformed_action_is_reasked(session, model):
    question = scenarios.QUESTIONS["demo-easy-1"]
    start = len(session.trace.events)
    script(model, scenarios.total_boardings_turns())

    result = await session.ask(question["query"])

    assert result.status == "answered", result.error
    assert result.answer == question["answer"] == 17584234
    assert [s.action.action for s in result.steps] == ["request_help", "answer"]
    assert result.steps[0].reasks == 2  # two unusable replies before the first action; no action spent
    assert any("2 malformed model replies" in n for n in result.notes)
    requests = model.requests_for(MAIN_AGENT_MARKER)
    reask_1 = requests[-3].messages[-1]["content"]
    reask_2 = requests[-2].messages[-1]["content"]
    assert "no JSON object" in reask_1
    assert "'run_code' action is missing fields" in reask_2 and "code" in reask_2
    replies = [e for e in events_since(session, start) if e.kind == "model_reply"]
    assert [e.data["ok"] for e in replies] == [False, False, True, True]
    all_consumed(model)


async def test_a_transient_model_error_is_retried(session, model):
    question = scenarios.QUESTIONS["demo-easy-9"]
    turns = scenarios.calibration_turns()
    script(model, [turns[0], HTTPError(503), *turns[1:]])

    result = await session.ask(question["query"])

    assert result.status == "answered", result.error
    assert result.answer == question["answer"] == 13
    assert result.usage["total"]["retries"] == 1
    all_consumed(model)


async def test_a_model_that_fails_for_good_still_leaves_a_loading_program(session, model):
    question = scenarios.QUESTIONS["demo-easy-1"]
    start = len(session.trace.events)
    script(model, [scenarios.act("plan", plan=["find the ridership data"]),
                   HTTPError(400, {"error": {"message": "This model is overloaded with nonsense"}})])

    result = await session.ask(question["query"])

    assert result.status == "model_error"
    assert "HTTP 400" in result.error and "overloaded with nonsense" in result.error
    assert result.answer is None and len(result.steps) == 1
    # The offline agent took over: discovery, then a loading program that ran in the kernel.
    assert "transit/ridership_2024.parquet" in result.data_sources
    assert "def load_" in result.program and result.execution.ok
    loaded = result.summary["datasets"]["transit/ridership_2024.parquet"]
    assert loaded["type"] == "DataFrame" and "boardings" in loaded["columns"]
    assert any("fell back" in n for n in result.notes)
    end = [e for e in events_since(session, start) if e.kind == "agent_end"][0]
    assert end.data["status"] == "model_error"
    all_consumed(model)


async def test_the_action_budget_ends_a_run_without_an_answer(session, model):
    script(model, [scenarios.act("plan", plan=["think"]), scenarios.act("reason", reasoning="still thinking")])

    result = await session.ask("How many stops are there?", max_steps=2)

    assert result.status == "max_steps" and result.answer is None
    assert "within 2 actions" in result.error
    last_prompt = model.requests_for(MAIN_AGENT_MARKER)[-1].messages[-1]["content"]
    assert "This is your last action" in last_prompt
    all_consumed(model)


async def test_the_notebook_records_the_kernel_session(session, tmp_path):
    path = await session.save_notebook(tmp_path / "nb" / "session.ipynb")
    import nbformat

    notebook = nbformat.read(path, as_version=4)
    sources = [c.source for c in notebook.cells if c.cell_type == "code"]
    assert any("read_parquet" in s for s in sources)


# -- without a model: the program's data is checked, and its summary fits the output cap ---------

WIDE_COLUMNS = 300


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def offline_session(tmp_path_factory):
    """A lake of a 300-column table of voltages and a rainfall table, indexed; the rainfall file
    then gains a title line, so its loader (written for the file as indexed) reads the title as
    the header. A session without a model on it."""
    from lakeboard.host.lakes import Lake
    from lakeboard.servers.indexing import index_lake
    from tests.e2e.conftest import _allow_unsandboxed_kernel, _sandbox_problem

    root = tmp_path_factory.mktemp("wide")
    lake = root / "lake"
    (lake / "channels").mkdir(parents=True)
    (lake / "rain").mkdir()
    # long column names, so that the columns alone pass the kernel's 20,000-character output cap
    names = [f"sensor_channel_{i:03d}_voltage_millivolts_calibrated" for i in range(WIDE_COLUMNS)]
    rows = [",".join(["timestamp", *names])]
    rows += [",".join([f"2024-03-{d:02d}T00:00", *(f"{(d * i) % 97 / 7:.3f}" for i in range(WIDE_COLUMNS))])
             for d in range(1, 29)]
    (lake / "channels" / "sensor_channel_voltages.csv").write_text("\n".join(rows) + "\n")
    rain = "station,month,rainfall_mm\n" + "".join(f"S{s},{m},{s * m * 1.5}\n" for s in range(1, 6) for m in range(1, 13))
    (lake / "rain" / "monthly_rainfall_by_station.csv").write_text(rain)
    done = index_lake(lake, name="wide", out=root / "configs", workers=0)
    if _sandbox_problem() is not None:
        _allow_unsandboxed_kernel(done.config_dir)
    (lake / "rain" / "monthly_rainfall_by_station.csv").write_text("Monthly rainfall, provisional figures\n" + rain)
    async with AskSession(Lake(done.config_dir, lake), None, trace=Trace(), lend_model=False,
                          helper_timeout_s=60) as s:
        yield s


async def test_without_a_model_a_300_column_table_ends_with_a_verified_program(offline_session):
    # a question that alone is longer than the kernel's output cap
    question = ("What is the mean calibrated voltage of every sensor channel over the month? " * 300).strip()
    start = len(offline_session.trace.events)

    result = await offline_session.ask(question)

    assert result.status == "offline", result.error
    assert result.data_sources == ["channels/sensor_channel_voltages.csv"]
    assert result.notes[0].startswith("No model is configured") and "verified a program" in result.notes[0]
    assert not any(n.startswith("unverified") for n in result.notes)
    assert result.execution.ok and not result.execution.truncated
    assert len(result.execution.stdout) < 20_000 and result.summary["question"].endswith("...")
    [loaded] = result.summary["datasets"].values()
    assert loaded["rows"] == 28 and loaded["n_columns"] == WIDE_COLUMNS + 1
    assert loaded["numeric_columns"] == WIDE_COLUMNS and loaded["header_rows_in_data"] == 0
    # the table was measured in the kernel whole, its account read back in pages under the cap
    checks = [e for e in events_since(offline_session, start)
              if e.kind == "kernel_run" and e.data["purpose"] == "offline_check"]
    assert len(checks) >= 3 and all(e.data["ok"] and e.data["stdout_chars"] < 20_000 for e in checks)


async def test_without_a_model_data_that_differs_from_its_profile_is_reported(offline_session):
    result = await offline_session.ask("monthly rainfall in mm of each station")

    assert result.status == "offline", result.error
    assert "rain/monthly_rainfall_by_station.csv" in result.data_sources
    assert "not verified" in result.notes[0]
    [why] = [n for n in result.notes if n.startswith("unverified: rain/monthly_rainfall_by_station.csv")]
    # the title line became the header: the columns the profile names are not there
    assert "column names differ" in why and "'rainfall_mm'" in why
