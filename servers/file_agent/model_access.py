"""How a file agent reaches a model, in order of preference:

1. the calling client's model, through MCP sampling, in either protocol era
   (`lakeboard.servers.llm.client_model`; replayed steps are keyed "select", "analyse", "decide", ...);
2. the server's own model (`lakeboard.servers.llm.own_model.ServerModel`, from `LAKEBOARD_LLM_*` or
   `OPENAI_*` environment variables);
3. none: `model_for` returns None and the offline engine answers.

`LAKEBOARD_FILE_AGENT_MODEL=off` keeps the agent offline whatever is available.
`LAKEBOARD_FILE_AGENT_MODEL_NAME` names the model a client lends through sampling (the Lakeboard
host sets it), so the agent can load the analysis that model wrote as soon as it starts.
"""

from __future__ import annotations

import os
from functools import cache, partial
from typing import Any

import anyio

from lakeboard.servers.llm.client_model import Model, sampling_model
from lakeboard.servers.llm.own_model import ServerModel

MODE_ENV = "LAKEBOARD_FILE_AGENT_MODEL"
LENT_MODEL_ENV = "LAKEBOARD_FILE_AGENT_MODEL_NAME"


class OwnModel:
    """The server's own endpoint (blocking client, run in a worker thread)."""

    source = "own"

    def __init__(self, model: ServerModel) -> None:
        self.model = model
        self.name: str | None = model.settings.model

    async def complete(self, key: str, system: str, prompt: str, *, max_tokens: int) -> str:
        return await anyio.to_thread.run_sync(partial(self.model.complete, system, prompt, max_tokens=max_tokens))


def model_for(ctx: Any) -> Model | None:
    """The model this call should use: the client's, else the server's own, else None."""
    if os.environ.get(MODE_ENV, "auto").strip().lower() == "off":
        return None
    model = sampling_model(ctx)
    if model is not None:
        return model
    return _own_model()


def expected_models() -> list[str]:
    """Names of the models this agent will likely use: the one a client lends, then its own."""
    if os.environ.get(MODE_ENV, "auto").strip().lower() == "off":
        return []
    names = [os.environ.get(LENT_MODEL_ENV, "").strip()]
    own = own_model()
    names.append(own.name if own is not None and own.name else "")
    return list(dict.fromkeys(n for n in names if n))


def own_model() -> OwnModel | None:
    """The server's own model, unless the agent is kept offline."""
    if os.environ.get(MODE_ENV, "auto").strip().lower() == "off":
        return None
    return _own_model()


@cache
def _own_model() -> OwnModel | None:
    """Read once per process: the environment is fixed, and the client (its connections) is kept."""
    own = ServerModel.from_env()
    return OwnModel(own) if own is not None else None
