"""How a file agent reaches a model, in order of preference:

1. the calling client's model, through MCP sampling, in either protocol era:
   - handshake era: a `sampling/createMessage` request while the tool call is open
     (`SessionSampler`; fastmcp 4 has no `ctx.sample`);
   - 2026-07-28 era: no back-channel, so the tool returns an `InputRequiredResult` asking
     for the completion and the client calls again with it (SEP-2322). `ReplaySampler`
     keeps the completions received so far in `request_state`, keyed by what each was for
     ("select", "analyse", "decide", ...), so a call replays its earlier steps from them;
2. the server's own model (`servers.model_client.ServerModel`, from `LAKEBOARD_LLM_*` or
   `OPENAI_*` environment variables);
3. none: `model_for` returns None and the offline engine answers.

`LAKEBOARD_FILE_AGENT_MODEL=off` keeps the agent offline whatever is available.
"""

from __future__ import annotations

import json
import logging
import os
import warnings
from typing import Any, Protocol

import anyio
import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from servers.model_client import ModelUnavailable, ServerModel

log = logging.getLogger(__name__)

MODE_ENV = "LAKEBOARD_FILE_AGENT_MODEL"
_MAX_STATE_CHARS = 200_000  # request_state travels with every round; keep it bounded


class InputNeeded(Exception):
    """2026 era: a completion the client has yet to give; the tool returns `as_result()`."""

    def __init__(self, key: str, request: types.CreateMessageRequest, state: str) -> None:
        super().__init__(f"waiting for the client's completion {key!r}")
        self.key = key
        self.request = request
        self.state = state

    def as_result(self) -> types.InputRequiredResult:
        return types.InputRequiredResult(input_requests={self.key: self.request}, request_state=self.state)


class FileAgentModel(Protocol):
    source: str  # "sampling" or "own": said in the agent's reasons and logs

    async def complete(self, key: str, system: str, prompt: str, *, max_tokens: int) -> str:
        """One completion; `key` names the step it is for (unique within one tool call)."""
        ...


def _request(system: str, prompt: str, max_tokens: int) -> types.CreateMessageRequest:
    return types.CreateMessageRequest(
        params=types.CreateMessageRequestParams(
            messages=[types.SamplingMessage(role="user", content=types.TextContent(type="text", text=prompt))],
            system_prompt=system,
            max_tokens=max_tokens,
        )
    )


def _text_of(result: Any) -> str:
    content = getattr(result, "content", None)
    parts = content if isinstance(content, list) else [content]
    return "".join(getattr(part, "text", "") or "" for part in parts)


class SessionSampler:
    """Handshake era: ask the client while the tool call is open."""

    source = "sampling"

    def __init__(self, ctx: Any) -> None:
        self._ctx = ctx

    async def complete(self, key: str, system: str, prompt: str, *, max_tokens: int) -> str:
        request = _request(system, prompt, max_tokens)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the SDK marks sampling deprecated for the 2026 era
                result = await self._ctx.session.create_message(
                    request.params.messages,
                    max_tokens=max_tokens,
                    system_prompt=system,
                    related_request_id=self._ctx.request_id,
                )
        except Exception as exc:  # the client's model failed or refused: the caller goes offline
            raise ModelUnavailable(f"the client's model failed ({key}): {exc}") from exc
        return _text_of(result)


class ReplaySampler:
    """2026 era: completions gathered over repeated calls of the same tool, by name."""

    source = "sampling"

    def __init__(self, request_state: str | None, input_responses: dict[str, Any] | None) -> None:
        replies: dict[str, str] = {}
        if request_state:
            try:
                stored = json.loads(request_state).get("replies", {})
                replies = {str(k): str(v) for k, v in stored.items()} if isinstance(stored, dict) else {}
            except (ValueError, AttributeError):
                replies = {}  # not ours: start over
        for key, response in (input_responses or {}).items():
            if isinstance(response, types.ErrorData):
                raise ModelUnavailable(f"the client could not complete {key!r}: {getattr(response, 'message', response)}")
            replies[str(key)] = _text_of(response)
        self.replies = replies

    async def complete(self, key: str, system: str, prompt: str, *, max_tokens: int) -> str:
        if key in self.replies:
            return self.replies[key]
        state = json.dumps({"replies": self.replies})
        if len(state) > _MAX_STATE_CHARS:
            raise ModelUnavailable("the sampled replies outgrew the request state; answering offline")
        raise InputNeeded(key, _request(system, prompt, max_tokens), state)


class OwnModel:
    """The server's own endpoint (blocking client, run in a worker thread)."""

    source = "own"

    def __init__(self, model: ServerModel) -> None:
        self.model = model

    async def complete(self, key: str, system: str, prompt: str, *, max_tokens: int) -> str:
        return await anyio.to_thread.run_sync(self.model.complete, system, prompt)


def sampling_model(ctx: Any) -> FileAgentModel | None:
    """The client's model for this tool call, or None when the client offers no sampling."""
    if ctx is None or ctx.request_context is None:
        return None
    session = ctx.session
    capabilities = session.client_capabilities
    if capabilities is None or capabilities.sampling is None:
        return None
    if session.can_send_request:
        return SessionSampler(ctx)
    if session.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return ReplaySampler(ctx.request_state, ctx.input_responses)
    return None  # a handshake-era channel that cannot call back (e.g. stateless HTTP)


def model_for(ctx: Any) -> FileAgentModel | None:
    """The model this call should use: the client's, else the server's own, else None."""
    if os.environ.get(MODE_ENV, "auto").strip().lower() == "off":
        return None
    model = sampling_model(ctx)
    if model is not None:
        return model
    own = ServerModel.from_env()
    return OwnModel(own) if own is not None else None
