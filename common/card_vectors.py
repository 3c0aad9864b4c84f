"""The lake's card vectors on disk: 4-bit codes, two a byte, and one scale per file.

A file's MiniLM vector in float32 weighs 1.5 KB, more than many a small file of a lake (at 50k
generated files, 77 MB of a 44 MB lake). Each unit vector is stored as 384 codes from -7 to 7,
packed two a byte, with the scale that maps the row's peak to 7: an eighth of float32's size.
On the real lakes' cards, a similarity read from the codes differs from the float32 one by
0.0045 at the median and 0.018 at the 99th percentile. Scaling to 3 standard deviations of the
row instead, and clipping beyond, gave about the same errors, but not back a vector with one
large component, and codes read back and quantized again would drift.
The codes are memory-mapped and unpacked a block of rows at a time, so a pass never holds
the lake's vectors in float32.

The indexer writes the files (servers/relevance/lake_index.py); file agents weigh their own
files and the host weighs the whole lake to send its best similarity (common/request_embedding.py).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

CODES_FILE = "vectors.npy"  # uint8, (files, dimensions / 2): two codes a byte, in the search index's order
SCALES_FILE = "vector_scales.npy"  # float32, one per row: a row's vector is its codes times its scale
KEYS_FILE = "card_keys.npy"  # (files, 8) uint8: each row's card_key cut to STORED_KEY_BYTES, for reuse at a re-index
# Half a key tells 50k cards apart as well (two alike by chance: about 1 in 10^10), in 0.4 MB less at 50k files.
STORED_KEY_BYTES = 8
_BLOCK = 4096  # rows unpacked to float32 at a time: a pass never holds the lake's vectors in float32
_LEVELS = 7  # codes run from -7 to 7 (stored plus 8, in four bits)


def card_keys(model: str, cards: list[str]) -> list[bytes]:
    """A 128-bit digest of each card and the model that embeds it: what a re-index and the machine's
    vector cache look vectors up by, instead of keeping every card's text."""
    person = model.encode()[:16]
    return [hashlib.blake2b(c.encode(), digest_size=16, person=person).digest() for c in cards]


def stored_key(key: bytes) -> bytes:
    """A card key as an index's KEYS_FILE keeps it."""
    return key[:STORED_KEY_BYTES]


def peak_codes(vectors: np.ndarray, levels: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row as whole codes from -levels to levels (int16) and the scale that maps its peak to
    `levels`: codes times scale give the row back. The index's 4-bit codes and the machine
    cache's int8 ones (servers/relevance/vector_cache.py) are both made here."""
    vectors = np.asarray(vectors, dtype=np.float32)
    peak = np.abs(vectors).max(axis=1) if len(vectors) else np.zeros(0, dtype=np.float32)
    scales = np.where(peak > 0, peak / levels, 1.0).astype(np.float32)
    return np.clip(np.rint(vectors / scales[:, None]), -levels, levels).astype(np.int16), scales


@dataclass(frozen=True)
class CardVectors:
    codes: np.ndarray  # (files, dimensions / 2) uint8, memory-mapped when loaded: even dimensions high, odd low
    scales: np.ndarray  # (files,) float32

    @classmethod
    def quantize(cls, vectors: np.ndarray) -> CardVectors:
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[1] % 2:
            raise ValueError(f"card vectors are rows of an even number of dimensions, not of shape {vectors.shape}")
        codes, scales = peak_codes(vectors, _LEVELS)
        stored = codes + _LEVELS + 1  # 1 to 15: four bits
        packed = (stored[:, 0::2] << 4 | stored[:, 1::2]).astype(np.uint8)
        return cls(packed, scales)

    @classmethod
    def stack(cls, parts: list[CardVectors]) -> CardVectors:
        return cls(np.concatenate([p.codes for p in parts]), np.concatenate([p.scales for p in parts]))

    def take(self, rows: np.ndarray) -> CardVectors:
        return CardVectors(self.codes[rows], self.scales[rows])

    def __len__(self) -> int:
        return len(self.codes)

    @property
    def dimensions(self) -> int:
        return self.codes.shape[1] * 2 if self.codes.ndim == 2 else 0

    @staticmethod
    def _nibbles(packed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The even and the odd dimensions' stored codes (0 to 15: each code plus 8) of `packed` rows, in float32."""
        return (packed >> 4).astype(np.float32), (packed & 15).astype(np.float32)

    def dense(self) -> np.ndarray:
        """Every row back in float32 (for tests and the benchmarks' rows, not for queries)."""
        high, low = self._nibbles(np.asarray(self.codes))
        out = np.empty((len(self.codes), self.dimensions), dtype=np.float32)
        out[:, 0::2], out[:, 1::2] = high, low
        return (out - (_LEVELS + 1)) * self.scales[:, None]

    def similarities(self, vectors: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """The dot product of each of `vectors` with each row (of `rows` only, when given), in
        float32: one value a row for one vector, a row of values a vector for a matrix of them
        (the codes are unpacked once for all)."""
        vectors = np.asarray(vectors, dtype=np.float32)
        many = np.atleast_2d(vectors)
        even, odd = many[:, 0::2].T, many[:, 1::2].T
        # the codes' offset comes out of the sum once, not out of every code (a third of the time)
        offset = (_LEVELS + 1) * many.sum(1)
        codes, scales = (self.codes, self.scales) if rows is None else (self.codes[rows], self.scales[rows])
        out = np.empty((len(codes), len(many)), dtype=np.float32)
        for start in range(0, len(codes), _BLOCK):
            high, low = self._nibbles(codes[start:start + _BLOCK])
            out[start:start + _BLOCK] = high @ even + low @ odd
        out = ((out - offset) * scales[:, None]).T
        return out if vectors.ndim > 1 else out[0]

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
        if codes.dtype != np.uint8 or codes.ndim != 2 or scales.shape != (len(codes),):
            raise ValueError(f"{folder} holds card vectors in an older form")
        return cls(codes, scales.astype(np.float32, copy=False))

    @staticmethod
    def present(folder: Path) -> bool:
        return (folder / CODES_FILE).exists()
