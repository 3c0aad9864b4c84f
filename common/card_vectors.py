"""The lake's card vectors on disk: int8 codes and one scale per file.

A file's MiniLM vector in float32 weighs 1.5 KB, more than many a small file of a lake (at 50k
generated files, 77 MB of a 44 MB lake). Each unit vector is stored as 384 signed bytes with the
scale that maps them back, a quarter of the size; a similarity read from the codes differs from
the float32 one by at most about 0.002 (tests/common/test_card_vectors.py). Computed a block at
a time, a pass over the codes is no slower than one over float32 rows: it reads a quarter of the
memory (benchmarks/bench_scale.py measures the request times).

The indexer writes the files (servers/relevance/lake_index.py); file agents weigh their own
files and the host weighs the whole lake to send its best similarity (common/request_embedding.py).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

CODES_FILE = "vectors.npy"  # int8, one row per file in the search index's order
SCALES_FILE = "vector_scales.npy"  # float32, one per row: a row's vector is its codes times its scale
KEYS_FILE = "card_keys.npy"  # (files, 16) uint8: each row's card_key, for reuse at a re-index
_BLOCK = 4096  # rows converted to float32 at a time: a pass never holds the lake's vectors in float32


def card_keys(model: str, cards: list[str]) -> list[bytes]:
    """A 128-bit digest of each card and the model that embeds it: what a re-index and the machine's
    vector cache look vectors up by, instead of keeping every card's text."""
    person = model.encode()[:16]
    return [hashlib.blake2b(c.encode(), digest_size=16, person=person).digest() for c in cards]


@dataclass(frozen=True)
class CardVectors:
    codes: np.ndarray  # (files, dimensions) int8, memory-mapped when loaded
    scales: np.ndarray  # (files,) float32

    @classmethod
    def quantize(cls, vectors: np.ndarray) -> CardVectors:
        vectors = np.asarray(vectors, dtype=np.float32)
        peak = np.abs(vectors).max(axis=1) if len(vectors) else np.zeros(0, dtype=np.float32)
        scales = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
        codes = np.clip(np.rint(vectors / scales[:, None]), -127, 127).astype(np.int8)
        return cls(codes, scales)

    def __len__(self) -> int:
        return len(self.codes)

    @property
    def dimensions(self) -> int:
        return self.codes.shape[1] if self.codes.ndim == 2 else 0

    def dense(self) -> np.ndarray:
        """Every row back in float32 (for reusing vectors at a re-index, not for queries)."""
        return self.codes.astype(np.float32) * self.scales[:, None]

    def similarities(self, vector: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """The dot product of `vector` with each row (of `rows` only, when given), in float32."""
        vector = np.asarray(vector, dtype=np.float32)
        codes, scales = (self.codes, self.scales) if rows is None else (self.codes[rows], self.scales[rows])
        out = np.empty(len(codes), dtype=np.float32)
        for start in range(0, len(codes), _BLOCK):
            out[start:start + _BLOCK] = codes[start:start + _BLOCK].astype(np.float32) @ vector
        return out * scales

    def save(self, folder: Path) -> None:
        np.save(folder / CODES_FILE, self.codes)
        np.save(folder / SCALES_FILE, self.scales)

    @classmethod
    def load(cls, folder: Path) -> CardVectors:
        """The vectors in `folder`, the codes memory-mapped (their pages are shared by every
        process of the lake). ValueError when they are not in this form (an older Lakeboard's index)."""
        codes = np.asarray(np.load(folder / CODES_FILE, mmap_mode="r"))
        if not (folder / SCALES_FILE).exists():
            raise ValueError(f"{folder} holds card vectors in an older form")
        scales = np.load(folder / SCALES_FILE)
        if codes.dtype != np.int8 or codes.ndim != 2 or scales.shape != (len(codes),):
            raise ValueError(f"{folder} holds card vectors in an older form")
        return cls(codes, scales.astype(np.float32, copy=False))

    @staticmethod
    def present(folder: Path) -> bool:
        return (folder / CODES_FILE).exists()
