"""A request's sentence embedding, made once by the host and sent to every helper with the call.

A lake has a file agent per partition, and each would otherwise run the model on the same
words: at 10k files the request's embedding was four fifths of a file agent's `can_help`
(benchmarks/bench_scale.py). The host embeds the request's data part once and sends the
vector in the call's `_meta`, where MCP carries what a tool's arguments do not; a helper
that does not know the key ignores it, and a file agent that gets none embeds the request
itself. Both sides use this module, so the text embedded and the model agree.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping
from typing import Any

import numpy as np

from lakeboard.common.minilm import MODEL_NAME, available_embedder
from lakeboard.common.request_text import data_part

META_KEY = "io.lakeboard/request-embedding"
DIMENSIONS = 384
_LOADING = threading.Lock()  # one load per process, whoever asks first
_warming = False


def embedding_text(request: str) -> str:
    """What is embedded: the request without its sentences about the answer's form."""
    return data_part(request)


def request_embedding(request: str) -> list[float] | None:
    """The request's unit vector, or None where the model does not load here."""
    with _LOADING:
        embed = available_embedder()
    if embed is None:
        return None
    return [float(v) for v in embed([embedding_text(request)])[0]]


def warm_up() -> None:
    """Load the model in the background, so that the first request does not wait for it (once
    a process: the gateway makes a blackboard per request)."""
    global _warming
    with _LOADING:
        if _warming:
            return
        _warming = True
    threading.Thread(target=lambda: request_embedding(""), name="load-minilm", daemon=True).start()


def embedding_meta(vector: list[float] | None) -> dict[str, Any] | None:
    """The `_meta` of a helper call that carries `vector` (None when there is none)."""
    if vector is None:
        return None
    return {META_KEY: {"model": MODEL_NAME, "vector": vector}}


def embedding_from_meta(meta: Mapping[str, Any] | None) -> np.ndarray | None:
    """The vector a caller sent, or None when it sent none or one this side cannot use.

    The caller is not trusted: anything but 384 finite numbers of about unit length from the
    same model is ignored, and the helper embeds the request itself.
    """
    entry = meta.get(META_KEY) if isinstance(meta, Mapping) else None
    if not isinstance(entry, Mapping) or entry.get("model") != MODEL_NAME:
        return None
    vector = entry.get("vector")
    if not isinstance(vector, list) or len(vector) != DIMENSIONS:
        return None
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in vector):
        return None
    out = np.asarray(vector, dtype=np.float32)
    if abs(float(np.linalg.norm(out)) - 1.0) > 1e-3:
        return None
    return out
