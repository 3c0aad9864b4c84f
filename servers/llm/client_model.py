"""The calling client's model, reached through MCP sampling, in either protocol era.

Servers with no model of their own (or that prefer the caller's) ask the client's model
for completions. The two eras of MCP do this differently:

- handshake era (<= 2025-11-25): the server sends `sampling/createMessage` while the tool
  call is open (`SessionSampler`; fastmcp 4 has no `ctx.sample`);
- 2026-07-28 era: there is no back-channel, so the tool returns an `InputRequiredResult`
  asking for the completion, and the client calls the tool again with the reply
  (SEP-2322). `ReplaySampler` keeps the replies received so far in `request_state`, keyed
  by the step each was for ("decide", "round-2", ...), and raises `InputNeeded` at the
  first step it has no reply for. The tool runs from the start on every call, so its work
  between completions must be deterministic for each replay to take the same path.

Both samplers, and any other model a server lends its agent, share one interface (`Model`):
`await model.complete(key, system, prompt, max_tokens=...)`, with `key` naming the step.
A completion the client cannot give raises `ModelUnavailable`; the agent goes offline.
"""

from __future__ import annotations

import json
import warnings
from typing import Any, Protocol

import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from lakeboard.servers.llm.errors import ModelUnavailable

__all__ = [
    "BackgroundSampler",
    "InputNeeded",
    "Model",
    "ReplaySampler",
    "SessionSampler",
    "background_model",
    "reply_text",
    "sampling_model",
    "sampling_request",
]

MAX_STATE_CHARS = 200_000  # request_state travels with every round; keep it bounded


class InputNeeded(Exception):
    """2026 era: a completion the client has yet to give; the tool returns `as_result()`."""

    def __init__(self, key: str, request: types.CreateMessageRequest, state: str) -> None:
        super().__init__(f"waiting for the client's completion {key!r}")
        self.key = key
        self.request = request
        self.state = state

    def as_result(self) -> types.InputRequiredResult:
        return types.InputRequiredResult(input_requests={self.key: self.request}, request_state=self.state)


class Model(Protocol):
    source: str  # who answers ("sampling", "own", ...): said in reasons and logs
    name: str | None  # the model's name once known (keys stored work such as a file agent's analysis)

    async def complete(self, key: str, system: str, prompt: str, *, max_tokens: int) -> str:
        """One completion; `key` names the step it is for (unique within one tool call)."""
        ...


def sampling_request(system: str, prompt: str, max_tokens: int,
                     temperature: float | None = None) -> types.CreateMessageRequest:
    """One user message under a system prompt, as a `sampling/createMessage` request."""
    return types.CreateMessageRequest(
        params=types.CreateMessageRequestParams(
            messages=[types.SamplingMessage(role="user", content=types.TextContent(type="text", text=prompt))],
            system_prompt=system,
            max_tokens=max_tokens,
            temperature=temperature,
        )
    )


def reply_text(result: Any) -> str:
    """The text of a sampling result (its text parts joined; "" when it has none)."""
    content = getattr(result, "content", None)
    parts = content if isinstance(content, list) else [content]
    return "".join(getattr(part, "text", "") or "" for part in parts)


class SessionSampler:
    """Handshake era: ask the client while the tool call is open."""

    source = "sampling"
    name = None

    def __init__(self, ctx: Any, *, temperature: float | None = None) -> None:
        self._ctx = ctx
        self._temperature = temperature

    async def complete(self, key: str, system: str, prompt: str, *, max_tokens: int) -> str:
        request = sampling_request(system, prompt, max_tokens, self._temperature)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the SDK marks sampling deprecated for the 2026 era
                result = await self._ctx.session.create_message(
                    request.params.messages,
                    max_tokens=max_tokens,
                    system_prompt=system,
                    temperature=self._temperature,
                    related_request_id=self._ctx.request_id,
                )
        except Exception as exc:  # the client's model failed or refused: the caller goes offline
            raise ModelUnavailable(f"the client's model failed ({key}): {exc}") from exc
        return reply_text(result)


class ReplaySampler:
    """2026 era: completions gathered over repeated calls of the same tool, by step name."""

    source = "sampling"
    name = None

    def __init__(self, request_state: str | None, input_responses: dict[str, Any] | None, *,
                 temperature: float | None = None) -> None:
        replies: dict[str, str] = {}
        if request_state:
            try:
                stored = json.loads(request_state).get("replies", {})
                replies = {str(k): str(v) for k, v in stored.items()} if isinstance(stored, dict) else {}
            except (ValueError, AttributeError):
                replies = {}  # not ours: start over
        self._refused: dict[str, str] = {}
        for key, response in (input_responses or {}).items():
            if isinstance(response, types.ErrorData):  # raised when the step asks for it again
                self._refused[str(key)] = str(getattr(response, "message", response))
            else:
                replies[str(key)] = reply_text(response)
        self.replies = replies
        self._temperature = temperature

    async def complete(self, key: str, system: str, prompt: str, *, max_tokens: int) -> str:
        if key in self.replies:
            return self.replies[key]
        if key in self._refused:
            raise ModelUnavailable(f"the client could not complete {key!r}: {self._refused[key]}")
        state = json.dumps({"replies": self.replies})
        if len(state) > MAX_STATE_CHARS:
            raise ModelUnavailable("the sampled replies outgrew the request state; answering offline")
        raise InputNeeded(key, sampling_request(system, prompt, max_tokens, self._temperature), state)


class BackgroundSampler:
    """Handshake era: ask the client on its session outside any tool call, for work that outlives
    the call that started it (a file agent's analysis). `name` is the model that answered last."""

    source = "sampling"

    def __init__(self, session: Any, *, temperature: float | None = None) -> None:
        self._session = session
        self._temperature = temperature
        self.name: str | None = None

    async def complete(self, key: str, system: str, prompt: str, *, max_tokens: int) -> str:
        request = sampling_request(system, prompt, max_tokens, self._temperature)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the SDK marks sampling deprecated for the 2026 era
                result = await self._session.create_message(
                    request.params.messages, max_tokens=max_tokens, system_prompt=system, temperature=self._temperature,
                )
        except Exception as exc:  # the client went away, or its model failed
            raise ModelUnavailable(f"the client's model failed ({key}): {exc}") from exc
        self.name = getattr(result, "model", None) or self.name
        return reply_text(result)


def background_model(ctx: Any, *, temperature: float | None = None) -> BackgroundSampler | None:
    """The client's model for work after this call ends; None where the protocol era cannot call back."""
    if ctx is None or ctx.request_context is None:
        return None
    session = ctx.session
    capabilities = session.client_capabilities
    if capabilities is None or capabilities.sampling is None or not session.can_send_request:
        return None
    return BackgroundSampler(session, temperature=temperature)


def sampling_model(ctx: Any, *, temperature: float | None = None) -> Model | None:
    """The client's model for this tool call, by protocol era; None when the client offers none."""
    if ctx is None or ctx.request_context is None:
        return None
    session = ctx.session
    capabilities = session.client_capabilities
    if capabilities is None or capabilities.sampling is None:
        return None
    if session.can_send_request:
        return SessionSampler(ctx, temperature=temperature)
    if session.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return ReplaySampler(ctx.request_state, ctx.input_responses, temperature=temperature)
    return None  # a handshake-era channel that cannot call back (e.g. stateless HTTP)
