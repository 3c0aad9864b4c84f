"""A request's sentence embeddings, made once by the host and sent to every helper with the call.

A lake has a file agent per partition, and each would otherwise run the model on the same
words: at 10k files the request's embedding was four fifths of a file agent's `can_help`
(benchmarks/bench_scale.py). The host embeds the request's data part once (and each of its
sentences, where it has several: the gate reads the nearest) and sends the vectors in the
call's `_meta`, where MCP carries what a tool's arguments do not; a helper that does not know
the key ignores it, and a file agent that gets none embeds the request itself. Both sides use
this module, so the texts embedded and the model agree.

Beside it goes the request's similarity to the lake (`lake_similarity`: the best over its files
and their spread): a file agent's dense evidence is on the lake's scale (its files against the
lake's best, the best against the rest), and each agent finding these itself multiplied one
pass over all the lake's vectors by the number of agents. With them, an agent weighs only its
own files' vectors.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from lakeboard.common.card_vectors import CODES_FILE, CardVectors
from lakeboard.common.file_versions import read_once
from lakeboard.common.minilm import MODEL_NAME, available_embedder
from lakeboard.common.request_text import MAX_SENTENCES, data_part, data_sentences
from lakeboard.schemas.messages import LakeSimilarity

META_KEY = "io.lakeboard/request-embedding"
DIMENSIONS = 384
_LOADING = threading.Lock()  # one load per process, whoever asks first
_warming = False


def embedding_text(request: str) -> str:
    """What is embedded first: the request without its sentences about the answer's form."""
    return data_part(request)


def request_embedding(request: str) -> list[list[float]] | None:
    """The request's unit vectors (the whole data part's, then each of its sentences' where it has
    several), or None where the model does not load here."""
    with _LOADING:
        embed = available_embedder()
    if embed is None:
        return None
    data = embedding_text(request)
    rows = embed_request(embed, [data, *data_sentences(data)])
    return [[float(v) for v in row] for row in rows]


def embed_request(embed: Callable[[list[str]], np.ndarray], texts: list[str]) -> np.ndarray:
    """`texts`: the whole request's data part, then its sentences. Two passes of the model: in
    one, the short sentences would be padded to the whole request's length (37 ms against 24 ms
    for a request of three sentences). The sentences' pass runs on a thread of its own beside the
    whole request's: the model's matrix products release the GIL, so with one BLAS thread each the
    two passes take one pass's time on two cores (three sentences: 19 ms against 38 ms in turn).
    A thread per request, not a pool: a pool's thread would not survive the fork of a helper."""
    if len(texts) < 2:
        return embed(texts)
    done: dict[str, np.ndarray | BaseException] = {}

    def sentences() -> None:
        try:
            done["rows"] = embed(texts[1:])
        except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
            done["rows"] = exc

    second = threading.Thread(target=sentences, name="embed-sentences", daemon=True)
    second.start()
    try:
        whole = embed(texts[:1])
    finally:
        second.join()
    rows = done["rows"]
    if isinstance(rows, BaseException):
        raise rows
    return np.vstack([whole, rows])


def warm_up() -> None:
    """Load the model in the background, so that the first request does not wait for it (once
    a process: the gateway makes a blackboard per request).

    The host embeds one request at a time while every helper computes at once, so its BLAS gets
    one thread: more only spin on the cores the helpers need (at 50k files, the gateway's CPU
    per request fell from 138-160 to 95 ms, and the answer's p50 from 147-156 to 140-142 ms).
    """
    global _warming
    with _LOADING:
        if _warming:
            return
        _warming = True
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")
    threading.Thread(target=lambda: request_embedding(""), name="load-minilm", daemon=True).start()


def _card_vectors(codes_file: Path) -> CardVectors:
    return CardVectors.load(codes_file.parent)


def lake_similarity(index_folder: Path, vectors: list[list[float]]) -> LakeSimilarity | None:
    """The request's similarities to the files of the lake whose search index is `index_folder`
    (the whole request's best, and the spread of each file's nearest), or None where the index
    has no vectors of this size."""
    try:
        cards = read_once(index_folder / CODES_FILE, _card_vectors)
    except (OSError, ValueError):
        return None
    if not vectors or cards.dimensions != len(vectors[0]) or not len(cards):
        return None
    return LakeSimilarity.of(cards.similarities(np.asarray(vectors, dtype=np.float32)))


def embedding_meta(vectors: list[list[float]] | None,
                   lakes: Mapping[str, LakeSimilarity] | None = None) -> dict[str, Any] | None:
    """The `_meta` of a helper call that carries `vectors` (None when there are none) and, per lake
    search index (its folder), their similarities there."""
    if not vectors:
        return None
    entry: dict[str, Any] = {"model": MODEL_NAME, "vector": vectors[0]}
    if len(vectors) > 1:
        entry["sentences"] = vectors[1:]
    if lakes:
        entry["lakes"] = {folder: sim.model_dump() for folder, sim in lakes.items()}
    return {META_KEY: entry}


def _unit_vector(value: Any) -> np.ndarray | None:
    if not isinstance(value, list) or len(value) != DIMENSIONS:
        return None
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value):
        return None
    out = np.asarray(value, dtype=np.float32)
    return out if abs(float(np.linalg.norm(out)) - 1.0) <= 1e-3 else None


def embedding_from_meta(meta: Mapping[str, Any] | None) -> np.ndarray | None:
    """The vectors a caller sent (a row for the whole request, then one per sentence), or None
    when it sent none or any this side cannot use.

    The caller is not trusted: anything but rows of 384 finite numbers of about unit length from
    the same model (and at most `MAX_SENTENCES` sentences) is ignored, and the helper embeds the
    request itself.
    """
    entry = meta.get(META_KEY) if isinstance(meta, Mapping) else None
    if not isinstance(entry, Mapping) or entry.get("model") != MODEL_NAME:
        return None
    sentences = entry.get("sentences", [])
    if not isinstance(sentences, list) or len(sentences) > MAX_SENTENCES:
        return None
    rows = [_unit_vector(v) for v in [entry.get("vector"), *sentences]]
    if any(r is None for r in rows):
        return None
    return np.stack(rows)


def similarity_from_meta(meta: Mapping[str, Any] | None, index_folder: str) -> LakeSimilarity | None:
    """The similarity the caller sent for the lake whose search index is `index_folder`, or None
    when it sent none for it (another lake's is not this one's) or sent one that is not a similarity."""
    entry = meta.get(META_KEY) if isinstance(meta, Mapping) else None
    lakes = entry.get("lakes") if isinstance(entry, Mapping) else None
    value = lakes.get(index_folder) if isinstance(lakes, Mapping) else None
    try:
        return LakeSimilarity.model_validate(value)
    except ValueError:
        return None
