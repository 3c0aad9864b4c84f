"""Card vectors of every lake indexed on this machine, kept by a digest of the card's text.

A re-index reuses the vectors of the index it replaces, but a lake indexed into a new config
folder (another --out or --name, a config deleted and made again) would embed every card again:
on two cores about 35 ms a card, minutes for a lake of 50k files. This cache gives back a card's
vector whatever index it was made for. It lives in the user's cache folder (platformdirs), or
in `$LAKEBOARD_HOME/cache` when that is set, never in a lake or a config folder.

It is only a cache: when it cannot be opened, read or written, indexing goes on without it and
says so once in the log. Rows are int8 codes and a scale, about 400 bytes a card: finer than
the 4-bit codes of an index (common/card_vectors.py), so that a vector taken from here is
quantized for an index almost as the one just embedded. The file carries no text of any lake,
only digests.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import numpy as np

from lakeboard.common.card_vectors import peak_codes
from lakeboard.common.config_home import cache_folder

log = logging.getLogger(__name__)
CACHE_FILE = "card_vectors.sqlite"
_SCHEMA = "create table if not exists vectors (key blob primary key, scale real not null, codes blob not null) without rowid"
_BUSY_TIMEOUT_S = 30.0
_IN_CHUNK = 500  # keys per `in (...)` query, well below SQLite's parameter limit


def _int8(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row as int8 codes and the scale that maps its peak to 127."""
    codes, scales = peak_codes(vectors, 127)
    return codes.astype(np.int8), scales


def _floats(codes: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """Rows of int8 codes back in float32."""
    return codes.astype(np.float32) * scales[:, None]


def as_cached(vectors: np.ndarray) -> np.ndarray:
    """`vectors` as the cache gives them back. An index quantizes vectors in this form whether it
    embedded them or found them here, so that a lake indexed twice gets the same codes."""
    return _floats(*_int8(vectors))


def cache_file() -> Path:
    return cache_folder() / CACHE_FILE


class VectorCache:
    """Opened by the indexer around one build; `get` and `put` never raise. Vectors are looked up
    by `card_keys` (common/card_vectors.py), which hold the model: one model's vectors are never
    given for another's."""

    def __init__(self, path: Path | None = None, *, lake: Path | None = None) -> None:
        """`lake`: the lake being indexed; a cache that would sit inside it is not used."""
        self.path = (path or cache_file()).absolute()
        self.lake = lake
        self._db: sqlite3.Connection | None = None

    def __enter__(self) -> VectorCache:
        if self.lake is not None and self.lake.absolute() in self.path.parents:
            log.info("the card vector cache %s is inside the lake, which is never written to: not used", self.path)
            return self
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_S)
            self.path.chmod(0o600)  # as a config folder: owner-only, whatever the umask
            db.execute("pragma journal_mode=wal")
            db.execute(_SCHEMA)
            self._db = db
        except (OSError, sqlite3.Error) as exc:
            self._give_up(exc)
        return self

    def __exit__(self, *exc) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def get(self, keys: list[bytes]) -> dict[bytes, np.ndarray]:
        """The vectors the cache holds of these card keys, by key."""
        if self._db is None or not keys:
            return {}
        rows = []
        try:
            for start in range(0, len(keys), _IN_CHUNK):
                chunk = keys[start:start + _IN_CHUNK]
                marks = ",".join("?" * len(chunk))
                rows += self._db.execute(f"select key, scale, codes from vectors where key in ({marks})", chunk)
        except sqlite3.Error as exc:
            self._give_up(exc)
            return {}
        if not rows:
            return {}
        codes = np.stack([np.frombuffer(codes, dtype=np.int8) for _, _, codes in rows])
        scales = np.array([scale for _, scale, _ in rows], dtype=np.float32)
        return dict(zip((key for key, _, _ in rows), _floats(codes, scales)))

    def put(self, keys: list[bytes], vectors: np.ndarray) -> None:
        if self._db is None or not keys:
            return
        codes, scales = _int8(vectors)
        rows = [(k, float(s), q.tobytes()) for k, s, q in zip(keys, scales, codes)]
        try:
            with self._db:
                self._db.executemany("insert or replace into vectors values (?, ?, ?)", rows)
        except sqlite3.Error as exc:
            self._give_up(exc)

    def _give_up(self, exc: Exception) -> None:
        log.warning("the card vector cache %s is not used (%s): cards are embedded again", self.path, exc)
        if self._db is not None:
            self._db.close()
        self._db = None
