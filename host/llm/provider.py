"""Chat completions against any OpenAI-compatible endpoint, with retries and usage accounting.

vLLM, Ollama, llama.cpp's server, LM Studio, OpenAI and Gemini's compatible endpoint all
speak the same `POST {base_url}/chat/completions`. The SDK's own retries are switched off
so this module alone decides what is retried, counts attempts, and words the errors.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field, ValidationError

from lakeboard.common.llm_settings import LLMSettings
from lakeboard.host.llm.errors import (
    LLMAuthError,
    LLMContextLengthError,
    LLMError,
    LLMModelNotFoundError,
    LLMRateLimitError,
    LLMRequestError,
    LLMResponseError,
    LLMUnavailableError,
)
from lakeboard.host.llm.retry import REFUSED_ATTEMPTS, is_refused_connection, is_retryable_status, parse_retry_after
from lakeboard.host.llm.usage import Usage, UsageLedger

if TYPE_CHECKING:
    import openai

logger = logging.getLogger(__name__)

_THINK_BLOCK = re.compile(r"^\s*<think>(.*?)</think>\s*", re.DOTALL)


class ToolCall(BaseModel):
    """One function call a model made (OpenAI tool calling); `arguments` is its JSON text."""

    id: str
    name: str
    arguments: str = "{}"


class ChatMessage(BaseModel):
    role: Literal["system", "user", "assistant", "tool"]
    content: str
    tool_calls: list[ToolCall] = Field(default_factory=list, description="an assistant's calls")
    tool_call_id: str | None = Field(None, description="a tool message: the call it answers")


class Completion(BaseModel):
    text: str
    usage: Usage
    model: str
    finish_reason: str | None = None
    reasoning: str | None = None  # a reasoning model's thinking, kept out of `text`
    tool_calls: list[ToolCall] = Field(default_factory=list)


MessageLike = ChatMessage | Mapping[str, Any]


class ChatProvider:
    """An async chat client for one configured endpoint and model.

    One provider serves a whole run: the main agent and every server's sampling requests
    share it, its concurrency limit and its usage ledger.
    """

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings
        self.ledger = UsageLedger()
        self._client: openai.AsyncOpenAI | None = None
        self._semaphore = asyncio.Semaphore(settings.max_concurrency)
        # Adapted once per provider when an endpoint rejects a parameter (see _adapt).
        self._max_tokens_param = "max_tokens"
        self._send_temperature = True
        # Set when the endpoint refuses connections: later calls try once, until one gets through.
        self._refusing = False

    # -- lifecycle -------------------------------------------------------------------
    async def __aenter__(self) -> ChatProvider:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    @property
    def client(self) -> openai.AsyncOpenAI:
        if self._client is None:
            import openai  # lazy: the offline product never needs it

            self._client = openai.AsyncOpenAI(
                api_key=self.settings.bearer_key,
                base_url=self.settings.effective_base_url,
                timeout=self.settings.timeout,
                max_retries=0,
            )
        return self._client

    # -- usage -----------------------------------------------------------------------
    @property
    def usage(self) -> Usage:
        """Usage of the run so far, every label together."""
        return self.ledger.total

    @property
    def usage_per_label(self) -> dict[str, Usage]:
        return dict(self.ledger.per_label)

    def reset_usage(self) -> Usage:
        """Start a new run; return what the previous one used."""
        return self.ledger.reset()

    # -- calls -----------------------------------------------------------------------
    async def complete(
        self,
        messages: Sequence[MessageLike],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        stop: Sequence[str] | None = None,
        label: str = "main",
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> Completion:
        """One chat completion. Retries transient failures; raises an LLMError subclass otherwise.

        `temperature`/`max_tokens` default to the settings; `label` groups usage
        ("main", "sampling:<server>", ...); `tools` are OpenAI function tools the model may call.
        """
        payload = [_message_dict(m) for m in messages]
        if not payload:
            raise LLMRequestError("A chat completion needs at least one message.")
        temperature = self.settings.temperature if temperature is None else temperature
        max_tokens = self.settings.max_tokens if max_tokens is None else max_tokens
        policy = self.settings.retry
        import openai

        async with self._semaphore:
            attempt = 0
            while True:
                attempt += 1
                refused = False
                request = self._request(payload, temperature, max_tokens, stop, tools)
                try:
                    response = await self.client.chat.completions.create(**request)
                except openai.APIStatusError as exc:
                    status = exc.status_code
                    if status == 400 and self._adapt(exc):
                        attempt -= 1  # a corrected request, not a retry
                        continue
                    if not is_retryable_status(status):
                        raise await self._status_error(exc, attempt) from None
                    retry_after = parse_retry_after(exc.response.headers)
                    failure, retryable = self._transient_error(status, _error_detail(exc), attempt, retry_after)
                except openai.APIConnectionError as exc:  # refused, reset, timed out
                    retry_after, refused = None, is_refused_connection(exc)
                    failure, retryable = self._connection_error(exc, attempt, refused)
                else:
                    self._refusing = False
                    completion = self._completion(response, attempt)
                    self.ledger.record(label, completion.usage)
                    return completion
                if attempt >= policy.max_attempts or not retryable:
                    self.ledger.record(label, Usage(retries=attempt - 1))
                    raise failure
                delay = policy.delay(attempt, retry_after)
                if not refused:  # a refused connection's one retry goes unlogged: its error, if any, says it all
                    logger.warning(
                        "LLM call failed (%s); retry %d/%d in %.2fs",
                        failure.message,
                        attempt,
                        policy.max_attempts - 1,
                        delay,
                    )
                await asyncio.sleep(delay)

    async def list_models(self) -> list[str]:
        """Model ids the endpoint serves (`GET {base_url}/models`)."""
        import openai

        try:
            page = await self.client.models.list()
        except openai.APIStatusError as exc:
            raise await self._status_error(exc, 1, listing=True) from None
        except openai.APIConnectionError as exc:
            raise LLMUnavailableError(
                f"Could not reach the LLM endpoint {self.settings.effective_base_url}: {exc.message}",
                attempts=1,
            ) from None
        return sorted(m.id for m in page.data)

    # -- internals -------------------------------------------------------------------
    def _request(
        self, messages: list[dict[str, Any]], temperature: float, max_tokens: int, stop: Sequence[str] | None,
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self.settings.model, "messages": messages}
        request[self._max_tokens_param] = max_tokens
        if self._send_temperature:
            request["temperature"] = temperature
        if stop:
            request["stop"] = list(stop)
        if tools:
            request["tools"] = [dict(t) for t in tools]
        return request

    def _adapt(self, exc: openai.APIStatusError) -> bool:
        """Fix a request the model rejects for a known parameter quirk; True if fixed.

        OpenAI's reasoning models reject `max_tokens` (they want `max_completion_tokens`)
        and any temperature but the default.
        """
        detail = _error_detail(exc).lower()
        if self._max_tokens_param == "max_tokens" and "max_completion_tokens" in detail and "max_tokens" in detail:
            logger.info("Endpoint wants max_completion_tokens instead of max_tokens; switching.")
            self._max_tokens_param = "max_completion_tokens"
            return True
        if self._send_temperature and "temperature" in detail and ("unsupported" in detail or "not support" in detail):
            logger.info("Model %s rejects the temperature setting; using its default.", self.settings.model)
            self._send_temperature = False
            return True
        return False

    def _connection_error(self, exc: openai.APIConnectionError, attempt: int, refused: bool) -> tuple[LLMError, bool]:
        """The error to raise if this was the last attempt, and whether retrying makes sense."""
        url = self.settings.effective_base_url
        if not refused:  # reset or timed out: worth the whole retry policy
            return LLMUnavailableError(
                f"Could not reach the LLM endpoint {url} after {attempt} attempt(s): {exc.message}", attempts=attempt
            ), True
        retryable = attempt < REFUSED_ATTEMPTS and not self._refusing
        self._refusing = True
        return LLMUnavailableError(
            f"Nothing answers at the LLM endpoint {url} (connection refused, {attempt} attempt(s)): "
            "start the model server or correct the base URL.",
            attempts=attempt,
        ), retryable

    def _transient_error(
        self, status: int, detail: str, attempt: int, retry_after: float | None
    ) -> tuple[LLMError, bool]:
        """The error to raise if this was the last attempt, and whether retrying makes sense."""
        where = f"{self.settings.effective_base_url} (model {self.settings.model})"
        kind = LLMRateLimitError if status == 429 else LLMUnavailableError
        limit = self.settings.retry.max_retry_after
        if retry_after is not None and retry_after > limit:
            # A quota that resets in hours is not worth waiting for inside a run.
            return kind(
                f"The LLM endpoint {where} answered HTTP {status} and asks to wait {retry_after:.0f}s, "
                f"longer than the {limit:.0f}s Lakeboard waits: {detail}.",
                status=status,
                attempts=attempt,
            ), False
        if status == 429:
            sentence = f"The LLM endpoint {where} is still rate limiting after {attempt} attempt(s): {detail}."
        else:
            sentence = f"The LLM endpoint {where} kept failing with HTTP {status} after {attempt} attempt(s): {detail}."
        return kind(sentence, status=status, attempts=attempt), True

    async def _status_error(self, exc: openai.APIStatusError, attempt: int, *, listing: bool = False) -> LLMError:
        status, detail = exc.status_code, _error_detail(exc)
        url, model = self.settings.effective_base_url, self.settings.model
        if status in (401, 403):
            origin = self._key_origin()
            what = "rejected the API key" if status == 401 else "denied access"
            return LLMAuthError(
                f"The LLM endpoint {url} {what} (HTTP {status}; {origin}): {detail}. "
                "Check LAKEBOARD_LLM_API_KEY / OPENAI_API_KEY or the --api-key flag.",
                status=status,
                attempts=attempt,
            )
        if status == 404 and not listing:
            return LLMModelNotFoundError(await self._not_found_sentence(detail), status=404, attempts=attempt)
        if status == 404:
            return LLMModelNotFoundError(
                f"The LLM endpoint {url} has no models listing (HTTP 404): is the base URL right? "
                "OpenAI-compatible base URLs usually end in /v1.",
                status=404,
                attempts=attempt,
            )
        body_code = getattr(exc, "code", None) or ""
        if status == 400 and ("context_length" in body_code or "context length" in detail.lower()):
            return LLMContextLengthError(
                f"The prompt is too long for model {model} at {url}: {detail}.",
                status=status,
                attempts=attempt,
            )
        return LLMRequestError(
            f"The LLM endpoint {url} rejected the request for model {model} (HTTP {status}): {detail}.",
            status=status,
            attempts=attempt,
        )

    def _key_origin(self) -> str:
        source = self.settings.sources.get("api_key")
        if source and source.split(" ", 1)[0] in ("flag", "env", "config"):
            return f"key from {source}"
        if source:  # e.g. "OPENAI_API_KEY ignored: ..."
            return source
        return "key given in code" if self.settings.api_key else "no key configured"

    async def _not_found_sentence(self, detail: str) -> str:
        url, model = self.settings.effective_base_url, self.settings.model
        try:
            available = await asyncio.wait_for(self.list_models(), timeout=10)
        except (LLMError, asyncio.TimeoutError):
            available = None
        if available is not None and model not in available:
            shown = ", ".join(available[:20]) + (" ..." if len(available) > 20 else "") or "none"
            return f"The LLM endpoint {url} does not serve model '{model}' (HTTP 404); it serves: {shown}."
        return (
            f"The LLM endpoint {url} answered HTTP 404 for model '{model}': {detail}. "
            "Check the model name and the base URL (OpenAI-compatible base URLs usually end in /v1)."
        )

    def _completion(self, response: Any, attempt: int) -> Completion:
        choices = getattr(response, "choices", None)
        if not choices:
            raise LLMResponseError(
                f"The LLM endpoint {self.settings.effective_base_url} returned a completion without choices.",
                attempts=attempt,
            )
        choice = choices[0]
        message = choice.message
        text = message.content or ""
        extra = getattr(message, "model_extra", None) or {}
        reasoning = extra.get("reasoning_content") or extra.get("reasoning") or None
        # Some local servers leave a reasoning model's <think> block inside the content.
        think = _THINK_BLOCK.match(text)
        if think:
            reasoning = reasoning or think.group(1).strip()
            text = text[think.end() :]
        reported = response.usage
        usage = Usage(
            prompt_tokens=(reported.prompt_tokens or 0) if reported else 0,
            completion_tokens=(reported.completion_tokens or 0) if reported else 0,
            total_tokens=(reported.total_tokens or 0) if reported else 0,
            calls=1,
            retries=attempt - 1,
        )
        calls = [
            ToolCall(id=c.id or f"call-{i}", name=c.function.name, arguments=c.function.arguments or "{}")
            for i, c in enumerate(getattr(message, "tool_calls", None) or [])
            if getattr(c, "function", None) is not None
        ]
        return Completion(
            text=text,
            usage=usage,
            model=response.model or self.settings.model,
            finish_reason=choice.finish_reason,
            reasoning=reasoning if isinstance(reasoning, str) else None,
            tool_calls=calls,
        )


def _message_dict(message: MessageLike) -> dict[str, Any]:
    """A message as the chat API takes it (tool calls in OpenAI's shape)."""
    if not isinstance(message, ChatMessage):
        try:
            message = ChatMessage.model_validate(dict(message))
        except ValidationError:
            raise LLMRequestError(
                f"A chat message needs a role (system, user or assistant) and text content; got {dict(message)!r:.200}."
            ) from None
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        out["content"] = message.content or None
        out["tool_calls"] = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                             for c in message.tool_calls]
    if message.tool_call_id is not None:
        out["tool_call_id"] = message.tool_call_id
    return out


def _error_detail(exc: openai.APIStatusError) -> str:
    """The endpoint's own error message (no final period), whichever body shape it used."""
    return _raw_error_detail(exc).rstrip(". ") or f"HTTP {exc.status_code}"


def _raw_error_detail(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"]).strip()
        if isinstance(inner, str) and inner.strip():
            return inner.strip()
        if body.get("detail"):
            return str(body["detail"]).strip()
    if isinstance(body, str) and body.strip():
        return body.strip()[:500]
    text = ""
    try:
        text = exc.response.text.strip()
    except Exception:  # body already consumed or not text
        pass
    return text[:500] or exc.message
