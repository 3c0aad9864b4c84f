"""The host's sampling handler answering a real fastmcp server.

Chain under test: fastmcp Client --stdio--> tests/support/sampling_server.py, whose tool
sends sampling/createMessage back --> SamplingHandler --> ChatProvider --HTTP--> ScriptedLLM.
The first test runs that server as a process in the 2026 era, and reaches the same server object through
fastmcp's in-memory transport in the handshake era (the handler answers a file agent's process in that era
in tests/servers/file_agent/test_model_engine.py); the others use the in-memory transport too (the
handler's behaviour, no process).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from fastmcp.exceptions import ToolError
from mcp.shared.exceptions import MCPError

from lakeboard.host.llm import ChatProvider, Usage
from lakeboard.host.sampling_handler import SamplingHandler
from tests.support.sampling_server import mcp as sampling_server
from tests.support.scripted_llm import HTTPError, Reply, ScriptedLLM, count_tokens, prompt_tokens

SERVER = Path(__file__).resolve().parents[2] / "support" / "sampling_server.py"


# "legacy": handshake era, the server calls back with sampling/createMessage.
# "auto": a fastmcp 4 server negotiates the 2026 era; the request rides an InputRequiredResult.
ERAS = {"legacy": "handshake", "auto": "2026"}


def probe_client(provider: ChatProvider, label: str = "sampling:probe", mode: str = "legacy", *,
                 process: bool = False) -> Client:
    """A client of the sampling server: started as a process over stdio, or the same object in memory."""
    transport = StdioTransport(command=sys.executable, args=[str(SERVER)]) if process else sampling_server
    return Client(transport, sampling_handler=SamplingHandler(provider, label=label), mode=mode, timeout=60)


@pytest.mark.parametrize("mode", ERAS)
async def test_server_borrows_the_hosts_model(scripted_llm, mode):
    scripted_llm.route(
        "You are file agent 7",
        lambda req: f"I read: {req['messages'][-1]['content']}",
    )
    async with ChatProvider(scripted_llm.settings()) as llm:
        async with probe_client(llm, mode=mode, process=mode == "auto") as client:
            result = await client.call_tool(
                "ask",
                {
                    "question": "Which file has rainfall?",
                    "system_prompt": "You are file agent 7.\nYour files: rain.csv",
                    "temperature": 0.3,
                    "max_tokens": 100,
                    "history": ["Hello", "Hi, how can I help?"],
                },
            )
        usage = llm.usage_per_label["sampling:probe"]
    assert result.structured_content == {
        "text": "I read: Which file has rainfall?",
        "model": "scripted-model",
        "stop_reason": "endTurn",
        "era": ERAS[mode],
    }
    [req] = scripted_llm.requests_for("You are file agent 7")
    assert req.messages == [
        {"role": "system", "content": "You are file agent 7.\nYour files: rain.csv"},
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": "Hi, how can I help?"},
        {"role": "user", "content": "Which file has rainfall?"},
    ]
    assert (req.temperature, req.max_tokens) == (0.3, 100)
    expected = prompt_tokens(req.messages)
    completion = count_tokens("I read: Which file has rainfall?")
    assert usage == Usage(prompt_tokens=expected, completion_tokens=completion, total_tokens=expected + completion, calls=1)


async def test_defaults_and_cap_come_from_the_host_settings(scripted_llm):
    scripted_llm.add(Reply("cut sho", finish_reason="length"), "second")
    async with ChatProvider(scripted_llm.settings(max_tokens=50, temperature=0.2)) as llm:
        async with probe_client(llm) as client:
            first = await client.call_tool("ask", {"question": "q", "max_tokens": 4000})
            second = await client.call_tool("ask", {"question": "q2", "max_tokens": 10})
    assert first.structured_content["stop_reason"] == "maxTokens"
    assert second.structured_content["text"] == "second"
    one, two = scripted_llm.chat_requests
    assert (one.temperature, one.max_tokens) == (0.2, 50)  # no server temperature; capped at the host's 50
    assert two.max_tokens == 10
    assert one.messages == [{"role": "user", "content": "q"}]  # no system prompt sent when none given
    assert llm.usage.calls == 2


@pytest.mark.parametrize("mode", ERAS)
async def test_llm_errors_reach_the_caller_as_sentences(mode):
    with ScriptedLLM(["unused"], api_key="the-right-key") as server:
        async with ChatProvider(server.settings(api_key="wrong")) as llm:
            async with probe_client(llm, mode=mode) as client:
                # Handshake era: the server's tool fails with the sentence (ToolError).
                # 2026 era: fastmcp's driver raises it on the client side (MCPError).
                with pytest.raises((ToolError, MCPError), match="rejected the API key \\(HTTP 401; key given in code\\)"):
                    await client.call_tool("ask", {"question": "q"})
        assert len(server.chat_requests) == 1


async def test_transient_errors_are_retried_inside_one_sampling_request(scripted_llm):
    scripted_llm.add(HTTPError(429, headers={"Retry-After": "0.1"}), HTTPError(502), "recovered")
    async with ChatProvider(scripted_llm.settings()) as llm:
        async with probe_client(llm, label="sampling:search") as client:
            result = await client.call_tool("ask", {"question": "q"})
    assert result.structured_content["text"] == "recovered"
    assert llm.usage_per_label["sampling:search"].retries == 2


async def test_every_sampling_call_is_in_the_trace(scripted_llm):
    from lakeboard.host.trace import Trace

    scripted_llm.route("You are file agent 7", "yes")
    scripted_llm.add(HTTPError(400, {"error": {"message": "no such thing"}}))
    trace = Trace()
    async with ChatProvider(scripted_llm.settings()) as llm:
        handler = SamplingHandler(llm, label="sampling:files-7", trace=trace, server="files-7")
        async with Client(sampling_server, sampling_handler=handler, mode="legacy", timeout=60) as client:
            await client.call_tool("ask", {"question": "q", "system_prompt": "You are file agent 7.\nYour files: a.csv"})
            with pytest.raises(ToolError):
                await client.call_tool("ask", {"question": "q2"})
    ok, failed = [e for e in trace.events if e.kind == "sampling"]
    assert ok.server == failed.server == "files-7" and ok.data["label"] == "sampling:files-7"
    assert ok.data["ok"] and ok.data["system"] == "You are file agent 7." and ok.data["usage"]["calls"] == 1
    assert not failed.data["ok"] and "no such thing" in failed.data["error"]
