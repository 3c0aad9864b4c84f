"""The paper's baselines with a (scripted) model over HTTP, on the demo lake's real servers.

master-slave: the main agent names the helper that answers (an unknown name is refused with
the list); rag: the five closest files come with the question and help requests reach the
search agent only; all-files: every file comes with the question and there is no request_help.
"""

from __future__ import annotations

import re

import pytest
import pytest_asyncio

from lakeboard.host.agents.main_agent_prompts import MAIN_AGENT_MARKER
from lakeboard.host.agents.session import AskSession
from lakeboard.host.trace import Trace
from tests.e2e import scenarios
from tests.e2e.conftest import agent_holding

pytestmark = pytest.mark.asyncio(loop_scope="module")

QUESTION = scenarios.QUESTIONS["demo-easy-1"]
RIDERSHIP = "transit/ridership_2024.parquet"


def final(path: str) -> str:
    return scenarios.answer("import json\nimport pandas as pd\n"
                            f"df = pd.read_parquet({path!r})\n"
                            "print(json.dumps({'answer': int(df['boardings'].sum())}))", RIDERSHIP)


def first_message(body: dict) -> str:
    return body["messages"][1]["content"]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def session(demo_lake, model):
    async with AskSession(demo_lake, model.settings(), trace=Trace(), lend_model=False) as s:
        yield s


async def test_master_slave_asks_the_named_helper(session, model):
    transit = agent_holding(session.lake.config_dir, RIDERSHIP)
    seen: dict[str, str] = {}

    def ask_transit(body: dict) -> str:
        seen["refusal"] = scenarios.observation(body)
        return scenarios.act("request_help", helper=transit, request="passenger boardings per route in 2024")

    def answer(body: dict) -> str:
        return final(scenarios.board_path(scenarios.observation(body), RIDERSHIP))

    model.route(MAIN_AGENT_MARKER, scenarios.act("request_help", helper="the-bus-people", request="boardings"),
                ask_transit, answer)
    start = len(session.trace.events)
    result = await session.ask(QUESTION["query"], mode="master-slave")

    assert result.status == "answered", result.error
    assert result.answer == QUESTION["answer"] == 17584234
    first = model.requests_for(MAIN_AGENT_MARKER)[-3]
    assert "You ask one helper at a time, by its name" in first.system_prompt
    assert f"- {transit}: " in first_message(first.body)  # the helpers, listed with what they know
    assert "No helper is called 'the-bus-people'" in seen["refusal"] and transit in seen["refusal"]
    events = session.trace.events[start:]
    assert [e.data["helpers"] for e in events if e.kind == "assign"] == [[transit]]
    assert not [e for e in events if e.kind in ("post", "decision")]  # nobody was asked whether it can help
    assert not model.unexpected


async def test_rag_shows_the_closest_files_and_asks_only_the_search_agent(session, model):
    def ask_search(body: dict) -> str:
        return scenarios.act("request_help", request="what does a boarding count mean?")

    def answer(body: dict) -> str:
        listed = re.findall(r"^- (\S+) \(", first_message(body), re.M)
        assert RIDERSHIP in listed, listed
        return final(str(scenarios.DEMO_LAKE / RIDERSHIP))

    model.route(MAIN_AGENT_MARKER, ask_search, answer)
    start = len(session.trace.events)
    result = await session.ask(QUESTION["query"], mode="rag")

    assert result.status == "answered", result.error
    assert result.answer == 17584234
    first = model.requests_for(MAIN_AGENT_MARKER)[-2]
    listed = re.findall(r"^- (\S+) \(", first_message(first.body), re.M)
    assert len(listed) == 5 and "files of the lake closest to the question" in first_message(first.body)
    [post] = [e for e in session.trace.events[start:] if e.kind == "post"]
    assert post.data["helpers"] == ["demo-search"]
    assert not model.unexpected


async def test_all_files_lists_every_file_and_has_no_helpers(session, model):
    model.route(MAIN_AGENT_MARKER, scenarios.act("request_help", request="anything"),
                final(str(scenarios.DEMO_LAKE / RIDERSHIP)))
    result = await session.ask(QUESTION["query"], mode="all-files")

    assert result.status == "answered", result.error
    assert result.answer == 17584234
    refused, answered = model.requests_for(MAIN_AGENT_MARKER)[-2:]
    listed = re.findall(r"^- (\S+) \(", first_message(refused.body), re.M)
    assert set(listed) == set(session.lake_paths)
    assert "request_help" not in [t["function"]["name"] for t in refused.body["tools"]]
    assert "exactly one of these four actions" in refused.system_prompt
    assert "Nobody helps in this setting" in answered.messages[-1]["content"]
