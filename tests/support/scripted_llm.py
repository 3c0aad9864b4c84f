"""A real OpenAI-compatible HTTP server on 127.0.0.1 that replays scripted turns.

Tests point the real provider (or any OpenAI client) at `server.base_url` and script what
the "model" says:

    def test_x(scripted_llm):                      # fixture: started, empty, stopped after
        scripted_llm.add("plain reply",
                         HTTPError(429, headers={"Retry-After": "0.2"}),
                         lambda req: "echo " + req["messages"][-1]["content"],
                         Reply('{"a": 1}', finish_reason="length"))
        scripted_llm.route("You are file agent 3", "reply for that agent")  # routed by system prompt
        provider = ChatProvider(scripted_llm.settings())
        ...
        assert scripted_llm.requests[0].temperature == 0.1

Routing: a request goes to the first route whose marker occurs in the first line of its
system prompt (or of its first message when there is none), else to the default script.
An exhausted script answers HTTP 400 with a clear message (never retried, so the test fails
fast) and the request is kept in `unexpected`.

Also served: `GET /v1/models`, 401 when `api_key` is set and the bearer token differs, 404
(`model_not_found`) for a model not in `models`, SSE streaming
(`"stream": true`, usage in the last chunk with `stream_options.include_usage`).

Tool calls: `Reply(tool_calls=[...])` (or `tool_call(name, **arguments)`) answers with OpenAI
tool calls; `ScriptedLLM(tools=False)` answers any request that offers tools with the HTTP 400
vLLM gives when its tool parser is off (no scripted turn is spent), as endpoints without tool
support do.

A context window: with `context_chars=N`, a request whose messages hold more than N characters
gets OpenAI's HTTP 400 `context_length_exceeded` (no scripted turn is spent), as a model whose
context is full answers.

To share it with other test packages, import the fixture in their conftest:
    from tests.support.scripted_llm import scripted_llm  # noqa: F401
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Union

import pytest

DEFAULT_MODEL = "scripted-model"


@dataclass
class Reply:
    """A 200 chat completion. Token counts default to `count_tokens` of prompt and text."""

    text: str
    finish_reason: str = "stop"
    delay: float = 0.0  # seconds to wait before answering (timeouts, concurrency)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    model: str | None = None  # defaults to the requested model
    reasoning_content: str | None = None
    tool_calls: list[dict[str, Any]] | None = None  # {"name": ..., "arguments": dict or JSON text, "id": optional}


def tool_call(name: str, **arguments: Any) -> Reply:
    """A reply that calls one tool with `arguments`."""
    return Reply("", finish_reason="tool_calls", tool_calls=[{"name": name, "arguments": arguments}])


@dataclass
class HTTPError:
    """An error response. `body` dict/str is sent as JSON; None gives an OpenAI-style body."""

    status: int
    body: dict[str, Any] | str | None = None
    headers: dict[str, str] = field(default_factory=dict)


Turn = Union[str, Reply, HTTPError, Callable[[dict[str, Any]], Union[str, Reply, HTTPError]]]


@dataclass
class RecordedRequest:
    """What the server received, for assertions."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str]  # names lowercased
    route: str | None
    at: float  # time.monotonic() on arrival

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body.get("messages", [])

    @property
    def model(self) -> str | None:
        return self.body.get("model")

    @property
    def temperature(self) -> float | None:
        return self.body.get("temperature")

    @property
    def max_tokens(self) -> int | None:
        return self.body.get("max_tokens", self.body.get("max_completion_tokens"))

    @property
    def stop(self) -> list[str] | str | None:
        return self.body.get("stop")

    @property
    def system_prompt(self) -> str | None:
        for m in self.messages:
            if m.get("role") in ("system", "developer"):
                return _content_text(m.get("content"))
        return None


def request_chars(body: dict[str, Any]) -> int:
    """Characters of a request's messages: their text and their tool calls' arguments."""
    total = 0
    for m in body.get("messages") or []:
        total += len(_content_text(m.get("content")))
        for call in m.get("tool_calls") or []:
            total += len(str((call.get("function") or {}).get("arguments", "")))
    return total


def context_length_error(size: int, limit: int) -> HTTPError:
    """OpenAI's answer to a prompt longer than the model's context (sizes in characters here)."""
    return HTTPError(400, {"error": {
        "message": f"This model's maximum context length is {limit} tokens. However, your messages "
                   f"resulted in {size} tokens. Please reduce the length of the messages.",
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    }})


def count_tokens(text: str) -> int:
    """Deterministic token estimate: words and punctuation marks."""
    return len(re.findall(r"\w+|[^\w\s]", text or ""))


def prompt_tokens(messages: Sequence[dict[str, Any]]) -> int:
    """Prompt tokens the server reports: `count_tokens` of each message plus 4 per message."""
    return sum(count_tokens(_content_text(m.get("content"))) + 4 for m in messages)


class ScriptedLLM:
    """The server. Thread-safe; start()/stop() or use as a context manager."""

    def __init__(
        self,
        script: Iterable[Turn] = (),
        *,
        models: Sequence[str] = (DEFAULT_MODEL,),
        api_key: str | None = None,
        context_chars: int | None = None,
        tools: bool = True,
    ) -> None:
        self.models = list(models)
        self.api_key = api_key
        self.context_chars = context_chars
        self.tools = tools
        self.requests: list[RecordedRequest] = []
        self.unexpected: list[RecordedRequest] = []
        self._scripts: dict[str | None, deque[Turn]] = {None: deque(script)}
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting ---------------------------------------------------------------------
    def add(self, *turns: Turn, route: str | None = None) -> ScriptedLLM:
        """Append turns to the default script, or to `route`'s script."""
        with self._lock:
            self._scripts.setdefault(route, deque()).extend(turns)
        return self

    def route(self, marker: str, *turns: Turn) -> ScriptedLLM:
        """Append turns for requests whose system prompt's first line contains `marker`."""
        return self.add(*turns, route=marker)

    def remaining(self, route: str | None = None) -> int:
        with self._lock:
            return len(self._scripts.get(route, ()))

    def requests_for(self, route: str | None) -> list[RecordedRequest]:
        return [r for r in self.requests if r.route == route and r.path.endswith("/chat/completions")]

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    # -- lifecycle -----------------------------------------------------------------------
    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("ScriptedLLM is not started.")
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> ScriptedLLM:
        handler = type("ScriptedHandler", (_Handler,), {"llm": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        # A short poll interval makes stop() (and so every test teardown) quick.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="scripted-llm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> ScriptedLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def settings(self, **overrides: Any):
        """LLMSettings pointing at this server with fast retries (imports host lazily)."""
        from lakeboard.host.llm import LLMSettings, RetryPolicy

        values: dict[str, Any] = {
            "model": self.models[0] if self.models else DEFAULT_MODEL,
            "base_url": self.base_url,
            "api_key": self.api_key,
            "timeout": 10.0,
            "retry": RetryPolicy(max_attempts=4, base_delay=0.01, max_delay=0.05, max_retry_after=5.0),
        }
        values.update(overrides)
        return LLMSettings(**values)

    # -- request handling (server threads) -----------------------------------------------
    def _route_of(self, body: dict[str, Any]) -> str | None:
        messages = body.get("messages") or []
        first = next((m for m in messages if m.get("role") in ("system", "developer")), None)
        first = first or (messages[0] if messages else None)
        line = _content_text(first.get("content")).strip().splitlines() if first else []
        head = line[0] if line else ""
        with self._lock:
            markers = [m for m in self._scripts if m is not None]
        return next((m for m in markers if m in head), None)

    def _next_turn(self, route: str | None) -> Turn | None:
        with self._lock:
            script = self._scripts.get(route)
            return script.popleft() if script else None


class _Handler(BaseHTTPRequestHandler):
    llm: ScriptedLLM
    protocol_version = "HTTP/1.1"  # keep-alive, as real servers do
    disable_nagle_algorithm = True  # headers and body are separate writes: avoid 40 ms delayed-ACK stalls

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    # -- plumbing ------------------------------------------------------------------------
    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, code: str | None = None, kind: str = "invalid_request_error") -> None:
        self._send_json(status, {"error": {"message": message, "type": kind, "param": None, "code": code}})

    def _authorised(self) -> bool:
        if self.llm.api_key is None:
            return True
        if self.headers.get("Authorization") == f"Bearer {self.llm.api_key}":
            return True
        self._error(401, "Incorrect API key provided.", code="invalid_api_key")
        return False

    def _record(self, body: dict[str, Any], route: str | None) -> RecordedRequest:
        headers = {k.lower(): v for k, v in self.headers.items()}
        rec = RecordedRequest(self.path, body, headers, route, time.monotonic())
        with self.llm._lock:
            self.llm.requests.append(rec)
        return rec

    # -- endpoints -----------------------------------------------------------------------
    def do_GET(self) -> None:
        if self.path.rstrip("/") not in ("/v1/models", "/models"):
            return self._error(404, f"Unknown path {self.path}.")
        self._record({}, None)
        if not self._authorised():
            return
        data = [{"id": m, "object": "model", "created": 0, "owned_by": "scripted"} for m in self.llm.models]
        self._send_json(200, {"object": "list", "data": data})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            return self._error(404, f"Unknown path {self.path}.")
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            return self._error(400, "The request body is not valid JSON.")
        route = self.llm._route_of(body)
        rec = self._record(body, route)
        if not self._authorised():
            return
        model = body.get("model")
        if model not in self.llm.models:
            return self._error(
                404, f"The model `{model}` does not exist or you do not have access to it.", code="model_not_found"
            )
        if body.get("tools") and not self.llm.tools:
            return self._error(400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set')
        size = request_chars(body)
        if self.llm.context_chars is not None and size > self.llm.context_chars:
            return self._send_json(400, context_length_error(size, self.llm.context_chars).body)
        turn = self.llm._next_turn(route)
        if turn is None:
            with self.llm._lock:
                self.llm.unexpected.append(rec)
            where = f"route {route!r}" if route else "the default script"
            return self._error(400, f"ScriptedLLM: no scripted turn left for {where} (request #{len(self.llm.requests)}).")
        if callable(turn) and not isinstance(turn, (Reply, HTTPError)):
            try:
                turn = turn(body)
            except Exception as exc:  # surface test-callback bugs as a clear 400
                return self._error(400, f"ScriptedLLM: the scripted callable raised {exc!r}.")
        if isinstance(turn, HTTPError):
            payload = turn.body
            if payload is None:
                payload = {"error": {"message": f"Scripted HTTP {turn.status}.", "type": "scripted", "code": None}}
            return self._send_json(turn.status, payload, turn.headers)
        reply = turn if isinstance(turn, Reply) else Reply(str(turn))
        if reply.delay:
            time.sleep(reply.delay)
        if body.get("stream"):
            return self._stream(body, reply)
        self._send_json(200, _completion(body, reply))

    def _stream(self, body: dict[str, Any], reply: Reply) -> None:
        full = _completion(body, reply)
        base = {k: full[k] for k in ("id", "created", "model", "system_fingerprint")}
        base["object"] = "chat.completion.chunk"
        words = re.findall(r"\S+\s*", reply.text) or [""]
        chunks = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]}]
        chunks += [{**base, "choices": [{"index": 0, "delta": {"content": w}, "finish_reason": None}]} for w in words]
        chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": reply.finish_reason}]})
        if (body.get("stream_options") or {}).get("include_usage"):
            chunks.append({**base, "choices": [], "usage": full["usage"]})
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for chunk in chunks:
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True


def _completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    p = reply.prompt_tokens if reply.prompt_tokens is not None else prompt_tokens(body.get("messages") or [])
    c = reply.completion_tokens if reply.completion_tokens is not None else count_tokens(reply.text)
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    if reply.tool_calls:
        message["content"] = reply.text or None
        message["tool_calls"] = [
            {"id": call.get("id") or f"call_{uuid.uuid4().hex[:12]}", "type": "function",
             "function": {"name": call["name"], "arguments": call["arguments"] if isinstance(call["arguments"], str)
                          else json.dumps(call["arguments"])}}
            for call in reply.tool_calls
        ]
    if reply.reasoning_content is not None:
        message["reasoning_content"] = reply.reasoning_content
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": reply.model or body.get("model") or DEFAULT_MODEL,
        "system_fingerprint": "scripted",
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": reply.finish_reason}],
        "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c},
    }


def _content_text(content: Any) -> str:
    """Text of a message content: a string, or a list of {"type": "text", "text": ...} parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


@pytest.fixture
def scripted_llm() -> Iterable[ScriptedLLM]:
    """A started ScriptedLLM with an empty script, stopped after the test."""
    with ScriptedLLM() as server:
        yield server
