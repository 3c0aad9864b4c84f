"""The host's LLM layer: OpenAI-compatible chat endpoints, settings, usage, JSON replies.

    settings = LLMSettings.resolve(vars(args))      # None: no model, run offline
    if settings:
        async with ChatProvider(settings) as llm:
            reply = await llm.complete([{"role": "user", "content": "..."}])
            data = extract_json_object(reply.text)   # JSONReplyError -> re-ask the model
"""

from lakeboard.common.json_replies import JSONReplyError, extract_json_object, parse_json_reply
from lakeboard.common.llm_settings import LLMConfigError, LLMSettings, RetryPolicy, default_config_path
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
from lakeboard.host.llm.provider import ChatMessage, ChatProvider, Completion, ToolCall
from lakeboard.host.llm.usage import Usage, UsageLedger

__all__ = [
    "ChatMessage",
    "ChatProvider",
    "Completion",
    "JSONReplyError",
    "LLMAuthError",
    "LLMConfigError",
    "LLMContextLengthError",
    "LLMError",
    "LLMModelNotFoundError",
    "LLMRateLimitError",
    "LLMRequestError",
    "LLMResponseError",
    "LLMSettings",
    "LLMUnavailableError",
    "RetryPolicy",
    "ToolCall",
    "Usage",
    "UsageLedger",
    "default_config_path",
    "extract_json_object",
    "parse_json_reply",
]
