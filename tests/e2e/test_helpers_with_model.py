"""The whole paper system: the main agent and every file agent driven by the (scripted) model.

As the paper has it, the file agents analyse their partitions offline: `lakeboard index --model
... --base-url ...` runs each file agent's steps 1 and 2 (select, analyse) at index time and
stores them. At `ask` time the file agents borrow the host's model through MCP sampling (the
pool gives each server a SamplingHandler), load their stored analysis as they start, and only
decide and respond per request; only the transit agent's files hold what the question needs,
so only it volunteers, and the main agent answers from the code its model wrote. Three file
agents (and the kernel) stand for the lake's partitions, to keep the start-up short.
"""

from __future__ import annotations

import json
import re
import shutil

from lakeboard.host.agents.main_agent_prompts import MAIN_AGENT_MARKER
from lakeboard.host.agents.session import AskSession
from lakeboard.host.cli import main
from lakeboard.host.lakes import Lake
from lakeboard.host.servers_config import ServersConfig
from lakeboard.host.trace import Trace
from tests.e2e import scenarios
from tests.e2e.conftest import _allow_unsandboxed_kernel, _sandbox_problem, agent_holding, servers_of
from tests.support.scripted_llm import ScriptedLLM

HELPER_MARKER = "You are file agent"
MODEL_NOTE = "# loading code written by the transit agent's model"
TRANSIT: dict[str, str] = {}  # the name of the file agent holding the transit files, set by the test


def helper_model(body: dict) -> str:
    system = body["messages"][0]["content"]
    agent = re.match(r"You are file agent (\S+) ", system).group(1)
    prompt = body["messages"][-1]["content"]
    inventory = re.findall(r"^- (\S+) \(", prompt, re.M)  # the inventory is data in the user's message
    if "Step 1:" in prompt:
        return json.dumps({"files": inventory[:3]})
    if "Step 2:" in prompt:
        return f"The {agent} partition: " + ", ".join(inventory)
    transit = f"demo-{agent}" == TRANSIT["name"]
    if "Decide whether" in prompt:
        return json.dumps({
            "can_help": transit,
            "reason": "ridership_2024.parquet counts boardings per route and day" if transit else f"{agent} holds no ridership",
            "confidence": 0.95 if transit else 0.05,
        })
    assert transit, f"{agent} was asked to respond without volunteering"
    path = scenarios.DEMO_LAKE / "transit" / "ridership_2024.parquet"
    return json.dumps({
        "can_help": True,
        "reason": "daily boardings per route",
        "files": ["transit/ridership_2024.parquet"],
        "code": f"{MODEL_NOTE}\nimport pandas as pd\ndf = pd.read_parquet('{path}')",
        "data_explanation": "one row per route and day; boardings counts passengers",
        "libraries": ["pandas"],
        "necessary_steps": ["sum the boardings column over the year"],
    })


async def test_file_agents_analyse_at_index_time_then_answer_with_the_model(tmp_path, demo_config, capfd):
    question = scenarios.QUESTIONS["demo-easy-1"]
    # The session's profile cache of the demo lake (a cache, safe to copy or delete), where the indexer looks
    # for it: the files are not profiled again (that is tested where demo_config is made), and what is tested
    # here, the model's analysis of each partition at index time, runs in full.
    shutil.copytree(demo_config / "profiles", tmp_path / "demo" / "profiles")
    with ScriptedLLM() as model:
        model.route(HELPER_MARKER, *[helper_model] * 60)
        model.route(MAIN_AGENT_MARKER, *scenarios.total_boardings_turns(malformed=False))
        # Profiling in the indexer's own process (--workers 0): the worker processes are not what is tested.
        code = main(["index", str(scenarios.DEMO_LAKE), "--out", str(tmp_path), "--name", "demo", "--workers", "0",
                     "--model", "scripted-model", "--base-url", model.base_url])
        assert code == 0
        printed = capfd.readouterr()
        config_dir = tmp_path / "demo"
        partitions = len(json.loads((config_dir / "clusters.json").read_text())["clusters"])
        at_index = [r.messages[-1]["content"] for r in model.requests_for(HELPER_MARKER)]
        assert sum("Step 1:" in p for p in at_index) == sum("Step 2:" in p for p in at_index) == partitions
        assert f"analysing partitions with scripted-model: {partitions}/{partitions}" in printed.err
        assert f"analysed {partitions} partitions with scripted-model" in printed.out
        if _sandbox_problem() is not None:
            _allow_unsandboxed_kernel(config_dir)
        lake = Lake(config_dir, scenarios.DEMO_LAKE)
        trace = Trace()
        every = servers_of(lake)
        transit = TRANSIT["name"] = agent_holding(config_dir, "transit/ridership_2024.parquet")
        others = {agent_holding(config_dir, p) for p in ("districts/population_2024.csv",
                                                         "services/service_requests_2024.jsonl")}
        names = [transit, *sorted(others), "demo-kernel"]
        servers = ServersConfig(servers={n: every.servers[n] for n in names})
        async with AskSession(lake, model.settings(), trace=trace, servers=servers) as session:
            result = await session.ask(question["query"])

    assert result.status == "answered", result.error
    assert result.answer == 17584234
    decisions = {e.server: e.data for e in trace.events if e.kind == "decision"}
    file_agents = set(decisions)
    assert file_agents == {transit} | others and len(others) == 2
    assert decisions[transit]["can_help"] and decisions[transit]["confidence"] == 0.95
    assert decisions[transit]["reason"] == "ridership_2024.parquet counts boardings per route and day"
    assert all(not decisions[a]["can_help"] for a in others)
    [response] = [e for e in trace.events if e.kind == "response" and e.server in file_agents]
    assert response.server == transit and response.data["response"]["code"].startswith(MODEL_NOTE)
    # At ask time no file agent analysed again: each decided, and the transit agent responded.
    asked = [r.messages[-1]["content"] for r in model.requests_for(HELPER_MARKER)][len(at_index):]
    assert not any("Step 1:" in p or "Step 2:" in p for p in asked)
    assert sum("Decide whether" in p for p in asked) == len(file_agents)
    assert sum("you volunteered" in p for p in asked) == 1
    seen = model.requests_for(MAIN_AGENT_MARKER)[-1].messages[-1]["content"]
    assert MODEL_NOTE in seen and "sum the boardings column" in seen
    assert not model.unexpected
    # The tokens the helpers spent are the host's, counted per helper, and each call is traced.
    per_label = result.usage["per_label"]
    assert per_label[f"sampling:{transit}"]["calls"] == 2
    assert all(per_label[f"sampling:{a}"]["calls"] == 1 for a in others)
    assert per_label["main"]["calls"] == 2
    assert result.usage["total"]["calls"] == 2 + 1 + 1 + 2
    assert len([e for e in trace.events if e.kind == "sampling"]) == 2 + 1 + 1
