"""Answer servers' `sampling/createMessage` requests with the host's configured model.

File agents and the search agent have no model of their own: they borrow the host's
through MCP sampling, and every token they spend lands in the host's usage ledger under
the handler's label.

    provider = ChatProvider(settings)
    client = Client(transport, sampling_handler=SamplingHandler(provider, label="sampling:files-1"))

The same handler serves both MCP protocol eras, because fastmcp routes both to it:
- handshake era (client `mode="legacy"`, protocol 2025-11-25): the server sends
  `sampling/createMessage` while its tool call is open (`ctx.session.create_message`;
  fastmcp 4 has no `ctx.sample`);
- 2026-07-28 era (client `mode="auto"` against a fastmcp 4 server): there is no
  back-channel (SEP-2322), so a server that calls `ctx.session.create_message` gets
  NoBackChannelError; it must instead return an `InputRequiredResult` carrying the
  sampling request, which fastmcp's client driver answers with this handler and retries.
Which era works therefore depends on how each server asks; `mode="legacy"` is the one
that works with servers that only know the session call.

With a trace, every call is recorded as a `sampling` event (the asking server, its system
prompt's first line, tokens, time, or the error).

With no model configured, pass no sampling handler at all: the client then does not
advertise the sampling capability and servers can tell they must work offline.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import mcp_types

from lakeboard.host.llm.errors import LLMError
from lakeboard.host.llm.provider import ChatMessage, ChatProvider
from lakeboard.host.trace import Trace

logger = logging.getLogger(__name__)

# OpenAI finish_reason -> MCP stopReason
_STOP_REASONS = {"stop": "endTurn", "length": "maxTokens", "tool_calls": "toolUse"}


class SamplingHandler:
    """A fastmcp `sampling_handler`: MCP sampling request in, one chat completion out.

    Mapped: system prompt, text messages, temperature (settings' default when the server
    sends none), max tokens (capped at the settings' max_tokens), stop sequences. The
    server's model preferences are ignored: the host's user chose the model. Errors are
    raised as sentences; fastmcp returns them to the server as an MCP error.
    """

    def __init__(self, provider: ChatProvider, *, label: str = "sampling", trace: Trace | None = None,
                 server: str | None = None) -> None:
        self.provider = provider
        self.label = label
        self.trace = trace
        self.server = server

    async def __call__(
        self,
        messages: list[mcp_types.SamplingMessage],
        params: mcp_types.CreateMessageRequestParams,
        context: Any,
    ) -> mcp_types.CreateMessageResult:
        if params.tools:
            raise ValueError("The Lakeboard host does not run tools during sampling; ask without tools.")
        chat: list[ChatMessage] = []
        if params.system_prompt:
            chat.append(ChatMessage(role="system", content=params.system_prompt))
        chat.extend(ChatMessage(role=m.role, content=_text_of(m.content)) for m in messages)
        cap = self.provider.settings.max_tokens
        max_tokens = min(params.max_tokens, cap) if params.max_tokens else cap
        started = time.monotonic()
        try:
            completion = await self.provider.complete(
                chat,
                temperature=params.temperature,
                max_tokens=max_tokens,
                stop=params.stop_sequences or None,
                label=self.label,
            )
        except LLMError as exc:
            self._emit(started, chat, max_tokens, params.temperature, ok=False, error=exc.message)
            raise
        self._emit(started, chat, max_tokens, params.temperature, ok=True,
                   finish_reason=completion.finish_reason, usage=completion.usage.model_dump())
        return mcp_types.CreateMessageResult(
            role="assistant",
            content=mcp_types.TextContent(type="text", text=completion.text),
            model=completion.model,
            stop_reason=_STOP_REASONS.get(completion.finish_reason or "", completion.finish_reason),
        )


    def _emit(self, started: float, chat: list[ChatMessage], max_tokens: int, temperature: float | None,
              **data: Any) -> None:
        """One `sampling` trace event per call: who asked, for what, and what it cost."""
        if self.trace is None:
            return
        first_line = (chat[0].content.strip().splitlines() or [""])[0] if chat else ""
        self.trace.emit(
            "sampling", server=self.server, elapsed_s=round(time.monotonic() - started, 4), label=self.label,
            system=first_line[:200], messages=len(chat), max_tokens=max_tokens, temperature=temperature, **data,
        )


def _text_of(content: Any) -> str:
    """The text of a sampling message; non-text content is refused with a clear sentence."""
    parts = content if isinstance(content, list) else [content]
    texts = []
    for part in parts:
        if isinstance(part, mcp_types.TextContent):
            texts.append(part.text)
        else:
            kind = getattr(part, "type", type(part).__name__)
            raise ValueError(f"The Lakeboard host samples text only; the request contained {kind} content.")
    return "\n".join(texts)
