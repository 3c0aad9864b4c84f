"""Honest accounting, end to end over HTTP and MCP: a run's usage counts the helpers' sampling
calls (also when the offline agent takes over), each of them is in the trace, and a run that
runs out of actions leaves the code that ran as an unfinished program."""

from __future__ import annotations

import json
import sys

import pytest

from lakeboard.host.agents.main_agent import MainAgent
from lakeboard.host.agents.main_agent_prompts import MAIN_AGENT_MARKER
from lakeboard.host.agents.session import AskSession, usage_line
from lakeboard.host.blackboard import Blackboard
from lakeboard.host.kernel_session import KernelClient
from lakeboard.host.lakes import Lake
from lakeboard.host.llm import ChatProvider
from lakeboard.host.servers_config import ServersConfig, parse_entry
from lakeboard.host.trace import Trace
from tests.support.scripted_llm import HTTPError, ScriptedLLM
from tests.support.servers import REPO, toy_entry

pytestmark = pytest.mark.asyncio(loop_scope="module")

TOY_MARKER = "You are toy helper"


def act(action: str, **fields) -> str:
    return json.dumps({"action": action, **fields})


async def test_the_usage_counts_the_helpers_sampling_and_a_run_out_of_actions_leaves_the_code_that_ran(
        tiny_lake, tmp_path, scripted_llm: ScriptedLLM):
    """One session (a toy helper and a kernel) for both: an ask whose sampling must be counted, then a
    main agent on the session's kernel that runs out of actions."""
    from lakeboard.servers.kernel.sandbox import bwrap_problem

    kernel_args = ["-m", "lakeboard.servers.kernel", "--lake", str(tiny_lake), "--workdir", str(tmp_path / "work")]
    if bwrap_problem() is not None:
        kernel_args.append("--unsafe-no-sandbox")
    servers = ServersConfig(servers={
        "toy": parse_entry("toy", toy_entry("toy", "--sample", "--volunteer", "no")),
        "kernel": parse_entry("kernel", {"command": sys.executable, "args": kernel_args, "cwd": str(REPO)}),
    })
    trace = Trace()
    with ScriptedLLM() as model:
        model.route(TOY_MARKER, *["no"] * 4)
        # The main agent's model fails for good at once: the offline agent takes over, and the
        # toy helper samples the host's model while deciding on its request.
        model.route(MAIN_AGENT_MARKER, HTTPError(400, {"error": {"message": "nonsense"}}))
        async with AskSession(Lake(tmp_path / "config", tiny_lake), model.settings(), trace=trace,
                              servers=servers) as session:
            result = await session.ask("How many things were counted?")

            assert result.status == "model_error"
            assert result.usage["total"]["calls"] == 1 and result.usage["per_label"]["sampling:toy"]["calls"] == 1
            line = usage_line(result.usage)
            assert "no model calls" not in line and "sampling:toy" in line and "in 1 calls" in line
            [sampled] = [e for e in trace.events if e.kind == "sampling"]
            assert sampled.server == "toy" and sampled.data["system"] == "You are toy helper toy" and sampled.data["ok"]

            await run_out_of_actions(session.kernel, session.blackboard, tiny_lake, scripted_llm)


async def run_out_of_actions(client: KernelClient, board: Blackboard, tiny_lake, scripted_llm: ScriptedLLM) -> None:
    """A run that uses its actions without an answer leaves the code that ran as an unfinished program."""
    path = str(tiny_lake / "counts.csv")
    scripted_llm.route(
        MAIN_AGENT_MARKER,
        act("run_code", code=f"import pandas as pd\ndf = pd.read_csv({path!r})\nprint(df.shape)"),
        act("run_code", code="print(df['no such column'])"),  # fails: not part of the program
        act("run_code", code="total = int(df['count'].sum())\nprint(total)"),
    )
    async with ChatProvider(scripted_llm.settings()) as llm:
        agent = MainAgent(llm, board, client, tiny_lake, lake_paths=["counts.csv"], trace=Trace(), max_steps=3)
        result = await agent.run("How many things were counted?\nIgnore the rest")

    assert result.status == "max_steps" and result.answer is None
    program = result.program
    assert program.startswith("# UNFINISHED: the main agent used its 3 actions before a working answer.")
    assert "# Question: How many things were counted? Ignore the rest" in program  # one comment line
    assert "read_csv" in program and "total = int" in program and "no such column" not in program
    assert any("unfinished" in note for note in result.notes)
    # The program runs on its own and rebuilds what the run computed.
    await client.restart()
    execution = await client.execute(program + "\nprint('total', total)")
    assert execution.ok and "total 7" in execution.stdout
