"""ChatProvider against a real OpenAI-compatible HTTP server on 127.0.0.1 (ScriptedLLM)."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time

import pytest

from lakeboard.host.llm import (
    ChatMessage,
    ChatProvider,
    LLMAuthError,
    LLMContextLengthError,
    LLMModelNotFoundError,
    LLMRateLimitError,
    LLMRequestError,
    LLMSettings,
    LLMUnavailableError,
    RetryPolicy,
    Usage,
)
from tests.support.scripted_llm import HTTPError, Reply, ScriptedLLM, count_tokens, prompt_tokens

MESSAGES = [
    {"role": "system", "content": "You are the main agent.\nBe brief."},
    {"role": "user", "content": "How many rows?"},
]


async def test_real_call_sends_settings_and_returns_text_and_usage(scripted_llm):
    scripted_llm.add("There are 42 rows.")
    async with ChatProvider(scripted_llm.settings()) as llm:
        done = await llm.complete(MESSAGES)
    assert done.text == "There are 42 rows."
    assert done.model == "scripted-model" and done.finish_reason == "stop"
    expected_prompt = prompt_tokens(MESSAGES)
    assert done.usage == Usage(
        prompt_tokens=expected_prompt,
        completion_tokens=count_tokens(done.text),
        total_tokens=expected_prompt + count_tokens(done.text),
        calls=1,
    )
    [req] = scripted_llm.chat_requests
    assert req.model == "scripted-model"
    assert req.messages == MESSAGES
    assert req.temperature == 0.1 and req.max_tokens == 8192  # the paper's defaults
    assert req.stop is None
    assert req.headers["authorization"] == "Bearer no-key"  # placeholder for keyless local servers


async def test_per_call_overrides_and_pydantic_messages(scripted_llm):
    scripted_llm.add("x")
    async with ChatProvider(scripted_llm.settings()) as llm:
        await llm.complete([ChatMessage(role="user", content="hi")], temperature=0.7, max_tokens=64, stop=["```"])
    [req] = scripted_llm.chat_requests
    assert (req.temperature, req.max_tokens, req.stop) == (0.7, 64, ["```"])
    assert req.messages == [{"role": "user", "content": "hi"}]


async def test_bad_messages_are_refused_before_any_request(scripted_llm):
    async with ChatProvider(scripted_llm.settings()) as llm:
        with pytest.raises(LLMRequestError, match="at least one message"):
            await llm.complete([])
        with pytest.raises(LLMRequestError, match="needs a role"):
            await llm.complete([{"role": "robot", "content": "x"}])
    assert scripted_llm.requests == []


async def test_429_is_retried_after_the_servers_retry_after(scripted_llm):
    scripted_llm.add(
        HTTPError(429, headers={"Retry-After": "0.4"}),
        HTTPError(429, headers={"retry-after-ms": "250"}),
        "finally",
    )
    async with ChatProvider(scripted_llm.settings()) as llm:  # backoff formula: 0.01s
        done = await llm.complete(MESSAGES)
    assert done.text == "finally"
    first, second, third = (r.at for r in scripted_llm.chat_requests)
    assert second - first >= 0.4  # honoured Retry-After, not the 0.01s formula
    assert 0.25 <= third - second < 25  # 250 ms, not 250 s: retry-after-ms is read in milliseconds
    assert done.usage.retries == 2 and llm.usage.retries == 2 and llm.usage.calls == 1


async def test_500_and_503_are_retried_with_backoff(scripted_llm):
    scripted_llm.add(HTTPError(500), HTTPError(503, body="upstream down"), "ok")
    async with ChatProvider(scripted_llm.settings()) as llm:
        assert (await llm.complete(MESSAGES)).text == "ok"
    assert len(scripted_llm.chat_requests) == 3


async def test_persistent_500_gives_up_after_max_attempts(scripted_llm):
    scripted_llm.add(*[HTTPError(500, body={"error": {"message": "GPU on fire"}})] * 10)
    async with ChatProvider(scripted_llm.settings()) as llm:
        with pytest.raises(LLMUnavailableError) as err:
            await llm.complete(MESSAGES)
    assert len(scripted_llm.chat_requests) == 4  # settings(): max_attempts=4
    assert err.value.attempts == 4 and err.value.status == 500
    assert "HTTP 500 after 4 attempt(s): GPU on fire" in str(err.value)
    assert llm.usage.retries == 3 and llm.usage.calls == 0


async def test_too_long_retry_after_is_not_waited_for(scripted_llm):
    scripted_llm.add(HTTPError(429, headers={"Retry-After": "3600"}, body={"error": {"message": "quota"}}))
    async with ChatProvider(scripted_llm.settings()) as llm:
        started = time.monotonic()
        with pytest.raises(LLMRateLimitError, match="HTTP 429 and asks to wait 3600s"):
            await llm.complete(MESSAGES)
        scripted_llm.add(HTTPError(503, headers={"Retry-After": "600"}))
        with pytest.raises(LLMUnavailableError, match="HTTP 503 and asks to wait 600s"):
            await llm.complete(MESSAGES)
    # Refused without waiting: the shorter ask alone is 600 s (a wide margin for load).
    assert time.monotonic() - started < 60 and len(scripted_llm.chat_requests) == 2


async def test_401_is_a_clear_error_without_retry():
    with ScriptedLLM(["unreached"], api_key="right-key") as server:
        settings = server.settings(api_key="wrong-key-123", sources={"api_key": "env LAKEBOARD_LLM_API_KEY"})
        async with ChatProvider(settings) as llm:
            with pytest.raises(LLMAuthError) as err:
                await llm.complete(MESSAGES)
        assert len(server.chat_requests) == 1
        message = str(err.value)
        assert "rejected the API key (HTTP 401; key from env LAKEBOARD_LLM_API_KEY)" in message
        assert server.base_url in message and "wrong-key-123" not in message
        # The right key passes the same server.
        async with ChatProvider(server.settings()) as llm:
            assert (await llm.complete(MESSAGES)).text == "unreached"


async def test_403_is_an_auth_error(scripted_llm):
    scripted_llm.add(HTTPError(403, body={"error": {"message": "Project lacks access"}}))
    async with ChatProvider(scripted_llm.settings()) as llm:
        with pytest.raises(LLMAuthError, match="denied access .*Project lacks access"):
            await llm.complete(MESSAGES)
    assert len(scripted_llm.chat_requests) == 1


async def test_unknown_model_names_the_served_ones(scripted_llm):
    async with ChatProvider(scripted_llm.settings(model="gpt-nonexistent")) as llm:
        with pytest.raises(LLMModelNotFoundError) as err:
            await llm.complete(MESSAGES)
    assert str(err.value) == (
        f"The LLM endpoint {scripted_llm.base_url} does not serve model 'gpt-nonexistent' (HTTP 404); "
        "it serves: scripted-model."
    )
    assert len(scripted_llm.chat_requests) == 1  # no retry


async def test_wrong_base_url_404_hints_at_v1(scripted_llm):
    base = scripted_llm.base_url.removesuffix("/v1") + "/api"
    async with ChatProvider(scripted_llm.settings(base_url=base)) as llm:
        with pytest.raises(LLMModelNotFoundError, match="usually end in /v1"):
            await llm.complete(MESSAGES)


async def test_a_refused_endpoint_gets_one_retry_then_later_calls_try_once(caplog):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = LLMSettings(
        model="m",
        base_url=f"http://127.0.0.1:{port}/v1",
        retry=RetryPolicy(max_attempts=5, base_delay=0.01, max_delay=0.02),
    )
    caplog.set_level(logging.DEBUG, logger="lakeboard.host.llm")
    async with ChatProvider(settings) as llm:
        with pytest.raises(LLMUnavailableError, match=rf"Nothing answers at the LLM endpoint .*:{port}/v1") as first:
            await llm.complete(MESSAGES)
        later = []
        for _ in range(3):  # the offline fallback's and the helpers' calls that follow
            with pytest.raises(LLMUnavailableError) as failed:
                await llm.complete(MESSAGES, label="sampling:helper")
            later.append(failed.value.attempts)
    assert first.value.attempts == 2 and later == [1, 1, 1]
    assert llm.usage.retries == 1
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]  # the caller reports the error once


async def test_timeout_counts_as_transient(scripted_llm):
    scripted_llm.add(Reply("slow", delay=1.0), Reply("slow", delay=1.0))
    settings = scripted_llm.settings(timeout=0.3, retry=RetryPolicy(max_attempts=2, base_delay=0.01))
    async with ChatProvider(settings) as llm:
        with pytest.raises(LLMUnavailableError, match="after 2 attempt"):
            await llm.complete(MESSAGES)
    assert len(scripted_llm.chat_requests) == 2


async def test_adapts_to_models_rejecting_max_tokens_and_temperature(scripted_llm):
    scripted_llm.add(
        HTTPError(400, body={"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with "
                                       "this model. Use 'max_completion_tokens' instead.", "code": "unsupported_parameter"}}),
        HTTPError(400, body={"error": {"message": "Unsupported value: 'temperature' does not support 0.1 with "
                                       "this model. Only the default (1) value is supported.", "code": "unsupported_value"}}),
        "adapted",
        "still adapted",
    )
    async with ChatProvider(scripted_llm.settings()) as llm:
        assert (await llm.complete(MESSAGES)).text == "adapted"
        assert (await llm.complete(MESSAGES)).text == "still adapted"
        assert llm.usage.retries == 0  # corrections are not retries
    first, second, third, fourth = scripted_llm.chat_requests
    assert "max_tokens" in first.body and "max_completion_tokens" not in first.body
    assert second.body["max_completion_tokens"] == 8192 and "max_tokens" not in second.body
    assert "temperature" in second.body and "temperature" not in third.body
    assert "temperature" not in fourth.body and fourth.body["max_completion_tokens"] == 8192


async def test_context_length_and_other_400s_are_not_retried(scripted_llm):
    scripted_llm.add(
        HTTPError(400, body={"error": {"message": "This model's maximum context length is 8192 tokens.",
                                       "code": "context_length_exceeded"}}),
        HTTPError(422, body={"detail": "messages: field required"}),
    )
    async with ChatProvider(scripted_llm.settings()) as llm:
        with pytest.raises(LLMContextLengthError, match="too long for model scripted-model"):
            await llm.complete(MESSAGES)
        with pytest.raises(LLMRequestError, match=r"HTTP 422\): messages: field required"):
            await llm.complete(MESSAGES)
    assert len(scripted_llm.chat_requests) == 2


async def test_usage_accumulates_per_run_and_label(scripted_llm):
    scripted_llm.add(
        Reply("a", prompt_tokens=100, completion_tokens=10),
        HTTPError(500),
        Reply("b", prompt_tokens=200, completion_tokens=20),
        Reply("c", prompt_tokens=1, completion_tokens=2),
    )
    async with ChatProvider(scripted_llm.settings()) as llm:
        await llm.complete(MESSAGES)
        await llm.complete(MESSAGES, label="sampling:files-1")
        assert llm.usage == Usage(prompt_tokens=300, completion_tokens=30, total_tokens=330, calls=2, retries=1)
        assert llm.usage_per_label == {
            "main": Usage(prompt_tokens=100, completion_tokens=10, total_tokens=110, calls=1),
            "sampling:files-1": Usage(prompt_tokens=200, completion_tokens=20, total_tokens=220, calls=1, retries=1),
        }
        spent = llm.reset_usage()
        assert spent.total_tokens == 330 and llm.usage == Usage() and llm.usage_per_label == {}
        await llm.complete(MESSAGES)
        assert llm.usage.total_tokens == 3 and llm.usage.calls == 1


async def test_reasoning_is_kept_out_of_the_text(scripted_llm):
    scripted_llm.add(
        "<think>Count the {rows} first.</think>\n\n{\"rows\": 42}",
        Reply("answer", reasoning_content="server-side thinking"),
    )
    async with ChatProvider(scripted_llm.settings()) as llm:
        first = await llm.complete(MESSAGES)
        second = await llm.complete(MESSAGES)
    assert first.text == '{"rows": 42}' and first.reasoning == "Count the {rows} first."
    assert second.text == "answer" and second.reasoning == "server-side thinking"


async def test_length_finish_reason_is_reported(scripted_llm):
    scripted_llm.add(Reply("truncat", finish_reason="length"))
    async with ChatProvider(scripted_llm.settings()) as llm:
        done = await llm.complete(MESSAGES, max_tokens=2)
    assert done.finish_reason == "length" and done.text == "truncat"


async def test_concurrency_limit_queues_requests(scripted_llm):
    scripted_llm.add(*[Reply(str(i), delay=0.3) for i in range(4)])
    async with ChatProvider(scripted_llm.settings(max_concurrency=2)) as llm:
        texts = await asyncio.gather(*(llm.complete(MESSAGES) for _ in range(4)))
    assert sorted(t.text for t in texts) == ["0", "1", "2", "3"]
    arrivals = sorted(r.at for r in scripted_llm.chat_requests)
    assert arrivals[2] - arrivals[0] >= 0.28  # the third waited for a free slot


async def test_routes_let_agents_share_one_server(scripted_llm):
    scripted_llm.route("You are file agent 1", "files-1 says hi")
    scripted_llm.route("You are file agent 2", lambda req: f"files-2 read: {req['messages'][-1]['content']}")
    scripted_llm.add("main says hi")

    def ask(system: str, question: str) -> list[dict[str, str]]:
        return [{"role": "system", "content": system}, {"role": "user", "content": question}]

    async with ChatProvider(scripted_llm.settings()) as llm:
        main, two, one = await asyncio.gather(
            llm.complete(ask("You are the main agent.", "go")),
            llm.complete(ask("You are file agent 2 of 5.\nFiles: a.csv", "which file?")),
            llm.complete(ask("You are file agent 1 of 5.", "which file?")),
        )
        assert (main.text, one.text, two.text) == ("main says hi", "files-1 says hi", "files-2 read: which file?")
        assert [r.route for r in scripted_llm.requests_for("You are file agent 2")] == ["You are file agent 2"]
        with pytest.raises(LLMRequestError, match="no scripted turn left for route 'You are file agent 1'"):
            await llm.complete(ask("You are file agent 1 of 5.", "again?"))
    assert len(scripted_llm.unexpected) == 1


async def test_list_models(scripted_llm):
    async with ChatProvider(scripted_llm.settings()) as llm:
        assert await llm.list_models() == ["scripted-model"]


async def test_scripted_server_streams_like_openai(scripted_llm):
    """The scripted server also speaks SSE streaming, for clients that stream."""
    import openai

    scripted_llm.add("one two three")
    async with openai.AsyncOpenAI(base_url=scripted_llm.base_url, api_key="x", max_retries=0) as client:
        stream = await client.chat.completions.create(
            model="scripted-model", messages=MESSAGES, stream=True, stream_options={"include_usage": True}
        )
        pieces, usage = [], None
        async for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                pieces.append(chunk.choices[0].delta.content)
            usage = chunk.usage or usage
    assert "".join(pieces) == "one two three"
    assert usage.completion_tokens == 3 and usage.prompt_tokens == prompt_tokens(MESSAGES)


async def test_tools_are_offered_and_tool_calls_come_back(scripted_llm):
    from lakeboard.host.llm import ToolCall
    from tests.support.scripted_llm import tool_call

    code = 'print("a \\"quoted\\" line\\n", r"\\d+")'
    scripted_llm.add(tool_call("run_code", code=code), "done")
    tools = [{"type": "function", "function": {"name": "run_code", "description": "Run Python.",
                                               "parameters": {"type": "object", "properties": {"code": {"type": "string"}}}}}]
    async with ChatProvider(scripted_llm.settings()) as llm:
        first = await llm.complete(MESSAGES, tools=tools)
        [call] = first.tool_calls
        assert call.name == "run_code" and json.loads(call.arguments) == {"code": code}
        assert first.finish_reason == "tool_calls" and first.text == ""
        history = [*MESSAGES, ChatMessage(role="assistant", content="", tool_calls=[call]),
                   ChatMessage(role="tool", content="a line", tool_call_id=call.id)]
        second = await llm.complete(history)
    assert second.text == "done" and second.tool_calls == []
    offered, answered = scripted_llm.chat_requests
    assert offered.body["tools"] == tools and "tools" not in answered.body
    assert answered.messages[-2] == {"role": "assistant", "content": None, "tool_calls": [
        {"id": call.id, "type": "function", "function": {"name": "run_code", "arguments": call.arguments}}]}
    assert answered.messages[-1] == {"role": "tool", "content": "a line", "tool_call_id": call.id}
    assert isinstance(call, ToolCall)
