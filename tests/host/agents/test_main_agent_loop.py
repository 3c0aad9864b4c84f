"""The action loop against a real HTTP model server, for actions that need no servers.

Plan and reason touch neither the blackboard nor the kernel, so the loop's budget, re-asks,
prompts and usage are checked here without starting any; the other actions run end to end
in tests/e2e.
"""

from __future__ import annotations

import json
from pathlib import Path

from lakeboard.host.agents.main_agent import MainAgent
from lakeboard.host.agents.main_agent_prompts import MAIN_AGENT_MARKER
from lakeboard.host.llm import ChatProvider
from lakeboard.host.trace import Trace
from tests.support.scripted_llm import HTTPError, ScriptedLLM

PLAN = json.dumps({"action": "plan", "plan": ["look", "compute"]})
REASON = json.dumps({"action": "reason", "reasoning": "still unsure"})


def agent(provider: ChatProvider, trace: Trace | None = None, **kw) -> MainAgent:
    return MainAgent(provider, None, None, Path("/lakes/city"), trace=trace, **kw)  # type: ignore[arg-type]


async def test_prompts_budget_and_usage(scripted_llm: ScriptedLLM):
    scripted_llm.route(MAIN_AGENT_MARKER, PLAN, REASON, REASON)
    trace = Trace()
    async with ChatProvider(scripted_llm.settings()) as llm:
        result = await agent(llm, trace, max_steps=3, native_tools=False).run("How many stops?")
    assert result.status == "max_steps" and result.error == "no working answer within 3 actions"
    assert [s.action.action for s in result.steps] == ["plan", "reason", "reason"]
    first, second, third = scripted_llm.requests_for(MAIN_AGENT_MARKER)
    system = first.system_prompt
    assert system.startswith(MAIN_AGENT_MARKER) and "/lakes/city" in system and "at most 3 actions" in system
    for action in ("plan", "reason", "request_help", "run_code", "answer"):
        assert f'"action": "{action}"' in system
    assert first.messages[1]["content"].startswith("Question: How many stops?")
    assert "Observation from plan (action 1 of 3):\nNoted." in second.messages[-1]["content"]
    assert "You have 2 actions left" in second.messages[-1]["content"]
    assert third.messages[-1]["content"].endswith("This is your last action: answer now with the final program.")
    assert first.temperature == 0.1  # the paper's setting, from the host's settings
    assert result.usage["total"]["calls"] == 3 and result.usage["per_label"]["main"]["calls"] == 3
    assert [e.kind for e in trace.events].count("agent_action") == 3


async def test_a_reply_still_unusable_after_the_reasks_spends_an_action(scripted_llm: ScriptedLLM):
    scripted_llm.route(MAIN_AGENT_MARKER, "hmm", "hmm?", "{not json", PLAN)
    async with ChatProvider(scripted_llm.settings()) as llm:
        result = await agent(llm, max_steps=2, max_reasks=2).run("q")
    assert result.status == "max_steps"
    assert [s.action.action for s in result.steps] == ["plan"] and result.steps[0].index == 2
    assert any("action 1: the model's reply was unusable after 3 re-asks" in n for n in result.notes)
    last = scripted_llm.requests_for(MAIN_AGENT_MARKER)[-1].messages[-1]["content"]
    assert "Observation from an unusable reply (action 1 of 2)" in last


async def test_an_endpoint_that_refuses_ends_the_run_with_its_sentence(scripted_llm: ScriptedLLM):
    scripted_llm.route(MAIN_AGENT_MARKER, PLAN, HTTPError(401, {"error": {"message": "bad key"}}))
    trace = Trace()
    async with ChatProvider(scripted_llm.settings()) as llm:
        result = await agent(llm, trace).run("q")
    assert result.status == "model_error" and "rejected the API key" in result.error
    assert len(result.steps) == 1
    assert trace.events[-1].kind == "agent_end" and trace.events[-1].data["status"] == "model_error"


def test_compaction_clips_any_message_but_the_system_prompt():
    from lakeboard.host.agents.history import OLDER_CHARS, RECENT_CHARS, compact
    from lakeboard.host.llm import ChatMessage

    long = "x" * 50_000
    messages = [ChatMessage(role="system", content="s" * 20_000), ChatMessage(role="user", content="Question: " + long)]
    for i in range(3):
        messages += [ChatMessage(role="assistant", content='{"action": "run_code", "code": "' + long + '"}'),
                     ChatMessage(role="user", content=f"Observation from run_code (action {i + 1} of 9):\n{long}")]
    assert compact(messages)
    sizes = [len(m.content) for m in messages]
    assert sizes[0] == 20_000  # the system prompt stays whole
    assert all(n < RECENT_CHARS + 100 for n in sizes[1:]) and all(n < OLDER_CHARS + 100 for n in sizes[2:-2])
    assert messages[1].content.startswith("Question: ") and "characters left out" in messages[1].content
    assert messages[-1].content.endswith("x")  # the tail is kept
    assert not compact(messages)  # nothing left to shrink: the caller gives up


async def test_a_rejected_reply_is_dropped_from_the_history(scripted_llm: ScriptedLLM):
    scripted_llm.context_chars = 60_000
    huge = "I will now explain at length. " + "blah " * 40_000  # 200 KB, and no action in it
    scripted_llm.route(MAIN_AGENT_MARKER, huge, PLAN, REASON)
    async with ChatProvider(scripted_llm.settings()) as llm:
        result = await agent(llm, max_steps=2).run("q")
    assert result.status == "max_steps" and [s.action.action for s in result.steps] == ["plan", "reason"]
    reask, after = scripted_llm.requests_for(MAIN_AGENT_MARKER)[1:]
    assert "blah blah" in reask.messages[-2]["content"] and len(reask.messages[-2]["content"]) < 2200
    assert all("blah blah" not in m["content"] for m in after.messages)  # gone once answered
    assert not scripted_llm.unexpected


async def test_a_context_length_error_is_retried_once_with_a_compacted_history(scripted_llm: ScriptedLLM):
    scripted_llm.context_chars = 60_000
    long_reasoning = json.dumps({"action": "reason", "reasoning": "because " * 30_000})  # a 240 KB valid action
    scripted_llm.route(MAIN_AGENT_MARKER, PLAN, long_reasoning, PLAN)
    trace = Trace()
    async with ChatProvider(scripted_llm.settings()) as llm:
        result = await agent(llm, trace, max_steps=3).run("q")
    assert result.status == "max_steps" and [s.action.action for s in result.steps] == ["plan", "reason", "plan"]
    requests = scripted_llm.requests_for(MAIN_AGENT_MARKER)
    assert len(requests) == 4  # the third call was refused once, then sent again compacted
    refused, retried = requests[2], requests[3]
    assert len(json.dumps(refused.body["messages"])) > 60_000 > len(json.dumps(retried.body["messages"]))
    assert "characters left out" in retried.messages[-2]["content"]  # the long reply itself was clipped
    [event] = [e for e in trace.events if e.kind == "context_compacted"]
    assert event.data["chars_before"] > 240_000 > event.data["chars_after"]


async def test_a_history_still_too_long_after_compaction_ends_the_run(scripted_llm: ScriptedLLM):
    long_reasoning = json.dumps({"action": "reason", "reasoning": "because " * 30_000})
    scripted_llm.route(MAIN_AGENT_MARKER, PLAN, long_reasoning)
    async with ChatProvider(scripted_llm.settings()) as llm:
        scripted_llm.context_chars = 4_000  # the system prompt and question fit; little else does
        result = await agent(llm, max_steps=3).run("q")
    assert result.status == "model_error" and "too long" in result.error
    assert len(scripted_llm.requests_for(MAIN_AGENT_MARKER)) == 4  # two answered, one refused, one retry
