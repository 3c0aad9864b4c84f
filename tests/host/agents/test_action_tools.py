"""Native tool calling over real HTTP: the five actions as OpenAI tools, code that travels as
code to a real kernel, and the JSON-in-text protocol where an endpoint refuses or ignores tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lakeboard.host.agents.action_tools import ACTION_NAMES
from lakeboard.host.agents.history import compact
from lakeboard.host.agents.main_agent import MainAgent
from lakeboard.host.agents.main_agent_prompts import MAIN_AGENT_MARKER
from lakeboard.host.llm import ChatMessage, ChatProvider, ToolCall
from lakeboard.host.trace import Trace
from tests.support.hostile_names import hostile_names
from tests.support.scripted_llm import ScriptedLLM, tool_call

pytestmark = pytest.mark.asyncio(loop_scope="module")

PLAN = json.dumps({"action": "plan", "plan": ["look", "compute"]})
REASON = json.dumps({"action": "reason", "reasoning": "still unsure"})


def offered_tools(request) -> list[str]:
    return [t["function"]["name"] for t in request.body.get("tools", [])]


async def test_code_travels_as_code_through_tool_calls(kernel, tiny_lake):
    client, board, trace = kernel
    # Two sets of hostile texts, each in a run_code action of one run (one answer to verify, not two).
    texts = {seed: hostile_names(12, seed) for seed in (1, 2)}
    programs = {seed: "import json\ntexts = " + repr(t) + "\nprint(json.dumps(texts))\n" for seed, t in texts.items()}
    final = ("import json\nimport pandas as pd\n"
             f"df = pd.read_csv({str(tiny_lake / 'counts.csv')!r})\n"
             'print(json.dumps({"answer": int(df["count"].sum())}))\n')
    with ScriptedLLM() as model:
        model.route(MAIN_AGENT_MARKER, tool_call("run_code", code=programs[1]), tool_call("run_code", code=programs[2]),
                    tool_call("answer", code=final, response={"data_sources": ["counts.csv"]}))
        async with ChatProvider(model.settings()) as llm:
            agent = MainAgent(llm, board, client, tiny_lake, lake_paths=["counts.csv"], trace=trace)
            result = await agent.run("How many things were counted?")
        first, second, _ = model.requests_for(MAIN_AGENT_MARKER)

    assert result.status == "answered", result.error
    assert result.answer == 7 and result.data_sources == ["counts.csv"] and agent.native_tools
    assert offered_tools(first) == list(ACTION_NAMES) and "by\ncalling its tool" in first.system_prompt
    assert [s.action.action for s in result.steps[:2]] == ["run_code", "run_code"]
    for step, seed in zip(result.steps, (1, 2)):
        assert step.action.code == programs[seed] and step.ok, seed
        printed = step.observation
        assert json.loads(printed[printed.index("["):printed.rindex("]") + 1]) == texts[seed], seed
    call, answer = second.messages[-2], second.messages[-1]
    assert call["role"] == "assistant" and call["tool_calls"][0]["function"]["name"] == "run_code"
    assert answer["role"] == "tool" and answer["tool_call_id"] == call["tool_calls"][0]["id"]
    assert answer["content"].startswith("Observation from run_code (action 1 of 10)")


async def test_an_endpoint_without_tools_gets_json_in_text_for_the_rest_of_the_run(scripted_llm: ScriptedLLM):
    scripted_llm.tools = False
    scripted_llm.route(MAIN_AGENT_MARKER, PLAN, REASON, PLAN)
    trace = Trace()
    async with ChatProvider(scripted_llm.settings()) as llm:
        agent = MainAgent(llm, None, None, Path("/lakes/city"), trace=trace, max_steps=2)  # type: ignore[arg-type]
        result = await agent.run("q")
        agent.max_steps = 1
        second = await agent.run("q2")
    assert result.status == "max_steps" and [s.action.action for s in result.steps] == ["plan", "reason"]
    assert second.steps[0].action.action == "plan"
    refused, *answered = scripted_llm.requests_for(MAIN_AGENT_MARKER)
    assert offered_tools(refused) and not any(offered_tools(r) for r in answered)  # one refusal, remembered
    assert len(answered) == 3 and '"action": "plan"' in answered[0].system_prompt
    [switch] = [e for e in trace.events if e.kind == "text_protocol"]
    assert "enable-auto-tool-choice" in switch.data["reason"] and not agent.native_tools
    assert not scripted_llm.unexpected


async def test_an_endpoint_that_ignores_tools_is_asked_in_text(scripted_llm: ScriptedLLM):
    scripted_llm.route(MAIN_AGENT_MARKER, "Sure, let me think.", "I think so.", PLAN)
    async with ChatProvider(scripted_llm.settings()) as llm:
        agent = MainAgent(llm, None, None, Path("/lakes/city"), max_steps=1)  # type: ignore[arg-type]
        result = await agent.run("q")
    assert [s.action.action for s in result.steps] == ["plan"] and result.steps[0].reasks == 2
    first, second, third = scripted_llm.requests_for(MAIN_AGENT_MARKER)
    assert offered_tools(first) and offered_tools(second) and not offered_tools(third)
    assert "Call exactly one of the tools" in second.messages[-1]["content"]
    assert '"action": "plan"' in third.system_prompt and "Reply with exactly one JSON object" in third.messages[-1]["content"]


async def test_a_long_tool_call_is_compacted_and_stays_json(scripted_llm: ScriptedLLM):
    scripted_llm.context_chars = 60_000
    scripted_llm.route(MAIN_AGENT_MARKER, tool_call("plan", plan=["look"]),
                       tool_call("reason", reasoning="because " * 30_000), tool_call("plan", plan=["answer"]))
    async with ChatProvider(scripted_llm.settings()) as llm:
        agent = MainAgent(llm, None, None, Path("/lakes/city"), max_steps=3)  # type: ignore[arg-type]
        result = await agent.run("q")
    assert [s.action.action for s in result.steps] == ["plan", "reason", "plan"]
    refused, retried = scripted_llm.requests_for(MAIN_AGENT_MARKER)[2:]
    arguments = retried.messages[-2]["tool_calls"][0]["function"]["arguments"]
    assert len(arguments) < 10_000 and "characters left out" in json.loads(arguments)["reasoning"]


async def test_compaction_of_arguments_that_are_not_json_keeps_json():
    messages = [ChatMessage(role="system", content="s"), ChatMessage(role="user", content="q")]
    messages += [ChatMessage(role="assistant", content="", tool_calls=[ToolCall(id=f"c{i}", name="run_code", arguments="x" * 9000)])
                 for i in range(3)]
    assert compact(messages)
    for message in messages[2:]:
        assert isinstance(json.loads(message.tool_calls[0].arguments), dict)
