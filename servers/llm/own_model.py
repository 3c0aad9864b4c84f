"""A server's own model, for when no MCP client lends one through sampling.

Configured exactly like the host's (`lakeboard.common.llm_settings`): `LAKEBOARD_LLM_*` (or the usual
`OPENAI_*`) environment variables, else the LLM config file. With none configured a server
runs its offline engine; nothing here is required.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from functools import cached_property
from typing import Any

from lakeboard.common.llm_settings import LLMConfigError, LLMSettings
from lakeboard.servers.llm.errors import ModelUnavailable

log = logging.getLogger(__name__)


class ServerModel:
    """A blocking chat client for one configured endpoint and model."""

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ServerModel | None:
        """The configured model, or None: none configured, invalid settings, or nowhere to send it.

        A model with neither an endpoint nor a key of its own could only go to OpenAI without
        credentials, so a server stays offline instead.
        """
        try:
            settings = LLMSettings.resolve(None, env=env)
        except LLMConfigError as exc:
            log.warning("no model of the server's own: %s", exc)
            return None
        if settings is None or (settings.base_url is None and settings.api_key is None):
            return None
        return cls(settings)

    @cached_property
    def _client(self) -> Any:
        """One client per model, so its connections are reused across completions."""
        from openai import OpenAI

        return OpenAI(
            base_url=self.settings.effective_base_url,
            api_key=self.settings.bearer_key,
            max_retries=self.settings.retry.max_attempts - 1,
            timeout=self.settings.timeout,
        )

    def complete(self, system: str, user: str, *, max_tokens: int | None = None) -> str:
        """One completion; `max_tokens` (the caller's cap) never exceeds the settings' own."""
        from openai import OpenAIError

        cap = self.settings.max_tokens if max_tokens is None else min(max_tokens, self.settings.max_tokens)
        try:
            out = self._client.chat.completions.create(
                model=self.settings.model,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                temperature=self.settings.temperature,
                max_tokens=cap,
            )
        except OpenAIError as exc:
            raise ModelUnavailable(f"the model at {self.settings.effective_base_url} failed: {exc}") from exc
        return out.choices[0].message.content or ""
