"""The client's model, reached through MCP sampling, in either protocol era.

The search agent has no model of its own: when the connected client supports sampling, it
asks the client's model to write queries and answers. Two eras of MCP do this differently:

- handshake era (<= 2025-11-25): the server sends `sampling/createMessage` while the tool
  call is open (`SessionModel`);
- 2026-07-28 era: there is no back-channel; a tool returns an `InputRequiredResult` that
  asks the client for the completion, and the client calls the tool again with the reply
  (SEP-2322). `ReplayModel` runs the agent from the start on every call, replaying the
  replies already received (carried in `request_state`) and raising `InputNeeded` at the
  first completion it does not have yet. The agent's work between completions is
  deterministic (and web results are cached), so each replay takes the same path.

Without sampling support, `model_for` returns None and the agent works offline.
"""

from __future__ import annotations

import json
import logging
import warnings
from typing import Any, Protocol

import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

log = logging.getLogger(__name__)


class ModelUnavailable(Exception):
    """The client could not produce a completion; the agent continues offline."""


class InputNeeded(Exception):
    """A completion the client has yet to give (2026 era): the tool returns `as_result()`."""

    def __init__(self, key: str, request: types.CreateMessageRequest, state: str) -> None:
        super().__init__(f"waiting for the client's completion {key}")
        self.key = key
        self.request = request
        self.state = state

    def as_result(self) -> types.InputRequiredResult:
        return types.InputRequiredResult(input_requests={self.key: self.request}, request_state=self.state)


class Model(Protocol):
    async def complete(self, prompt: str, *, system: str, max_tokens: int = 800) -> str: ...


def _request(prompt: str, system: str, max_tokens: int) -> types.CreateMessageRequest:
    return types.CreateMessageRequest(
        params=types.CreateMessageRequestParams(
            messages=[types.SamplingMessage(role="user", content=types.TextContent(type="text", text=prompt))],
            system_prompt=system,
            max_tokens=max_tokens,
            temperature=0.0,
        )
    )


def _text_of(result: Any) -> str:
    content = getattr(result, "content", None)
    parts = content if isinstance(content, list) else [content]
    return "".join(getattr(part, "text", "") or "" for part in parts)


class SessionModel:
    """Handshake era: a server-initiated sampling request while the tool call is open."""

    def __init__(self, ctx: Any) -> None:
        self._ctx = ctx

    async def complete(self, prompt: str, *, system: str, max_tokens: int = 800) -> str:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the SDK marks sampling deprecated for the 2026 era
                result = await self._ctx.session.create_message(
                    _request(prompt, system, max_tokens).params.messages,
                    max_tokens=max_tokens,
                    system_prompt=system,
                    temperature=0.0,
                    related_request_id=self._ctx.request_id,
                )
        except Exception as exc:  # any client-side failure: fall back to offline, with a log line
            log.warning("sampling failed, continuing offline: %s", exc)
            raise ModelUnavailable(str(exc)) from exc
        return _text_of(result)


class ReplayModel:
    """2026 era: completions gathered over repeated calls of the same tool (SEP-2322)."""

    def __init__(self, request_state: str | None, input_responses: dict[str, Any] | None) -> None:
        replies: list[str] = []
        if request_state:
            try:
                replies = [str(r) for r in json.loads(request_state).get("replies", [])]
            except (ValueError, AttributeError):
                replies = []  # not ours (or tampered): start over
        for key in sorted(input_responses or {}, key=_ordinal):
            if _ordinal(key) == len(replies):
                replies.append(_text_of(input_responses[key]))  # type: ignore[index]
        self._replies = replies
        self._next = 0

    async def complete(self, prompt: str, *, system: str, max_tokens: int = 800) -> str:
        if self._next < len(self._replies):
            reply = self._replies[self._next]
            self._next += 1
            return reply
        key = f"s{self._next}"
        raise InputNeeded(key, _request(prompt, system, max_tokens), json.dumps({"replies": self._replies}))


def _ordinal(key: str) -> int:
    return int(key[1:]) if key[:1] == "s" and key[1:].isdigit() else -1


def model_for(ctx: Any, mode: str = "auto") -> Model | None:
    """The client's model for this tool call, or None when sampling is off or unsupported."""
    if mode == "off" or ctx is None or ctx.request_context is None:
        return None
    session = ctx.session
    capabilities = session.client_capabilities
    if capabilities is None or capabilities.sampling is None:
        return None
    if session.can_send_request:
        return SessionModel(ctx)
    if session.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return ReplayModel(ctx.request_state, ctx.input_responses)
    return None  # a handshake-era connection that cannot call back (e.g. stateless HTTP)
