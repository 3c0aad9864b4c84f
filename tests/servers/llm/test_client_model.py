"""The shared sampling adapter (`lakeboard.servers.llm.client_model`) in both MCP protocol eras.

A real fastmcp server whose tool asks the client's model for two named steps, reached by a
real fastmcp Client (in-memory transport) whose sampling handler records what it was asked.
Handshake era (`mode="legacy"`): server-initiated `sampling/createMessage`; 2026 era
(`mode="auto"`): `InputRequiredResult` rounds replayed from `request_state`.
"""

from __future__ import annotations

import json

import mcp_types as types
import pytest
from fastmcp import Client, Context, FastMCP

from lakeboard.servers.llm.client_model import (
    MAX_STATE_CHARS,
    InputNeeded,
    ReplaySampler,
    reply_text,
    sampling_model,
    sampling_request,
)
from lakeboard.servers.llm.errors import ModelUnavailable


def probe_server(temperature: float | None = None) -> FastMCP:
    mcp = FastMCP("sampling-adapter-probe")
    runs: list[str] = []  # one entry per tool execution (replays included)

    @mcp.tool
    async def two_steps(topic: str, ctx: Context) -> dict | types.InputRequiredResult:
        """Ask the client's model two things in turn; say who answered."""
        runs.append(topic)
        model = sampling_model(ctx, temperature=temperature)
        if model is None:
            return {"source": "offline", "runs": len(runs)}
        try:
            first = await model.complete("first", "be brief", f"name {topic}", max_tokens=50)
            second = await model.complete("second", "be brief", f"describe {first}", max_tokens=60)
        except InputNeeded as need:
            return need.as_result()
        except ModelUnavailable as exc:
            return {"source": "offline", "why": str(exc), "runs": len(runs)}
        return {"source": model.source, "first": first, "second": second, "runs": len(runs),
                "era": type(model).__name__}

    return mcp


class Recorder:
    """A sampling handler that answers from the prompt and remembers every request."""

    def __init__(self) -> None:
        self.params: list[types.CreateMessageRequestParams] = []

    def __call__(self, messages, params, context) -> str:
        self.params.append(params)
        return f"<{messages[-1].content.text}>"


@pytest.mark.parametrize(("mode", "era"), [("legacy", "SessionSampler"), ("auto", "ReplaySampler")])
async def test_each_step_is_asked_once_in_both_eras(mode: str, era: str) -> None:
    handler = Recorder()
    async with Client(probe_server(temperature=0.0), sampling_handler=handler, mode=mode) as client:
        out = (await client.call_tool("two_steps", {"topic": "a river"})).structured_content
    assert out["source"] == "sampling" and out["era"] == era
    assert out["first"] == "<name a river>" and out["second"] == "<describe <name a river>>"
    # The second step saw the first step's reply; each step reached the model once.
    assert [p.messages[-1].content.text for p in handler.params] == ["name a river", "describe <name a river>"]
    assert [(p.system_prompt, p.max_tokens, p.temperature) for p in handler.params] == [
        ("be brief", 50, 0.0), ("be brief", 60, 0.0)]
    # The 2026 era re-runs the tool per completion (two asks, then the answer).
    assert out["runs"] == (1 if mode == "legacy" else 3)


async def test_temperature_is_left_to_the_client_unless_set() -> None:
    handler = Recorder()
    async with Client(probe_server(), sampling_handler=handler, mode="legacy") as client:
        await client.call_tool("two_steps", {"topic": "a lake"})
    assert [p.temperature for p in handler.params] == [None, None]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_client_without_sampling_gets_no_model(mode: str) -> None:
    async with Client(probe_server(), mode=mode) as client:
        out = (await client.call_tool("two_steps", {"topic": "a lake"})).structured_content
    assert out == {"source": "offline", "runs": 1}


async def test_a_failing_client_model_is_unavailable_with_the_step_named() -> None:
    def refuse(messages, params, context):
        raise RuntimeError("the user declined")

    async with Client(probe_server(), sampling_handler=refuse, mode="legacy") as client:
        out = (await client.call_tool("two_steps", {"topic": "a lake"})).structured_content
    assert out["source"] == "offline" and "(first)" in out["why"]
    assert "the user declined" in out["why"]


def completion(text: str) -> types.CreateMessageResult:
    return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text=text), model="m")


async def test_replay_keeps_replies_by_step_and_asks_for_the_first_missing_one() -> None:
    sampler = ReplaySampler(None, None)
    with pytest.raises(InputNeeded) as first:
        await sampler.complete("select", "sys", "pick files", max_tokens=10)
    result = first.value.as_result()
    assert list(result.input_requests) == ["select"] and json.loads(result.request_state) == {"replies": {}}
    assert result.input_requests["select"].params.messages[0].content.text == "pick files"

    # The next call carries the state and the reply; "select" is answered, "analyse" is asked.
    sampler = ReplaySampler(result.request_state, {"select": completion("a.csv")})
    assert await sampler.complete("select", "sys", "pick files", max_tokens=10) == "a.csv"
    with pytest.raises(InputNeeded) as second:
        await sampler.complete("analyse", "sys", "analyse a.csv", max_tokens=10)
    assert json.loads(second.value.state) == {"replies": {"select": "a.csv"}}

    sampler = ReplaySampler(second.value.state, {"analyse": completion("fine")})
    assert [await sampler.complete(k, "sys", "p", max_tokens=10) for k in ("select", "analyse")] == ["a.csv", "fine"]


async def test_replay_starts_over_on_foreign_state_and_refuses_on_a_client_error() -> None:
    for foreign in ("not json", "[1, 2]", json.dumps({"replies": ["old", "list"]})):
        with pytest.raises(InputNeeded):
            await ReplaySampler(foreign, None).complete("select", "sys", "p", max_tokens=10)

    refused = types.ErrorData(code=-1, message="no model here")
    sampler = ReplaySampler(json.dumps({"replies": {"select": "a.csv"}}), {"analyse": refused})
    assert await sampler.complete("select", "sys", "p", max_tokens=10) == "a.csv"  # earlier steps still replay
    with pytest.raises(ModelUnavailable, match="no model here"):
        await sampler.complete("analyse", "sys", "p", max_tokens=10)


async def test_replay_state_is_bounded() -> None:
    sampler = ReplaySampler(json.dumps({"replies": {"big": "x" * MAX_STATE_CHARS}}), None)
    with pytest.raises(ModelUnavailable, match="outgrew"):
        await sampler.complete("next", "sys", "p", max_tokens=10)


def test_request_and_reply_text() -> None:
    request = sampling_request("sys", "hello", 42, 0.5)
    assert request.params.system_prompt == "sys" and request.params.max_tokens == 42
    assert request.params.temperature == 0.5 and request.params.messages[0].role == "user"
    assert reply_text(completion("hi")) == "hi"
    assert reply_text(types.CreateMessageResultWithTools(
        role="assistant", model="m",
        content=[types.TextContent(type="text", text="a"), types.TextContent(type="text", text="b")])) == "ab"
    assert reply_text(None) == ""
