"""The lake's search index: BM25 per field over every file, built once at index time.

bm25s keeps each field as a sparse matrix of precomputed term scores; saved to the config
folder and opened memory-mapped, it is shared through the page cache by every file agent of
the lake, and a query costs a few sparse-row sums whatever the lake's size. Statistics are
lake-wide, so every file agent scores on the same scale.
"""

from __future__ import annotations

import gzip
import json
import logging
from pathlib import Path

import numpy as np

from lakeboard.common.file_versions import read_once
from lakeboard.servers.relevance.index_fields import INDEXED

log = logging.getLogger(__name__)
PATHS_FILE = "paths.json.gz"  # the files in the index's order; gzipped, a twelfth of its size at 50k files
# Term scores kept as float16: a score differs from float32 by under 0.1% of the term's best, and
# the arrays take half the room (the config folder at 50k files, bench_scale.py).
SCORE_DTYPE = "float16"
_UINT16_IDS = 2**16  # file and term numbers below this are kept in two bytes


def _id_dtype(corpus: list[list[str]]) -> str:
    """Two-byte file and term numbers where both fit: bm25s stores the files' numbers with this type
    and casts a query's term numbers to it, so it must hold the largest of either."""
    if len(corpus) < _UINT16_IDS - 1 and len({t for doc in corpus for t in doc}) < _UINT16_IDS - 1:  # bm25s may add a term of its own
        return "uint16"
    return "int32"


class SearchIndex:
    def __init__(self, paths: list[str], fields: dict[str, object]) -> None:
        self.paths = paths
        self.position = {p: i for i, p in enumerate(paths)}
        self._fields = fields  # field name -> bm25s.BM25

    @classmethod
    def build(cls, paths: list[str], documents: list[dict[str, list[str]]]) -> SearchIndex:
        import bm25s

        fields = {}
        for name in INDEXED:
            # bm25s needs one non-empty document to build a vocabulary
            corpus = [d.get(name, []) for d in documents]
            if not any(corpus):
                corpus = corpus[:-1] + [["\x00"]] if corpus else [["\x00"]]
            bm25 = bm25s.BM25(method="lucene", dtype=SCORE_DTYPE, int_dtype=_id_dtype(corpus))
            bm25.index(corpus, show_progress=False)
            fields[name] = bm25
        return cls(paths, fields)

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        for name, bm25 in self._fields.items():
            bm25.save(str(folder / name), show_progress=False)
        (folder / PATHS_FILE).write_bytes(gzip.compress(json.dumps(self.paths).encode(), compresslevel=6, mtime=0))

    @classmethod
    def load(cls, folder: Path, *, mmap: bool = True) -> SearchIndex:
        """The index in `folder`; a memory-mapped one is opened once per version of the index in
        a process (a fork server opens it for every file agent it forks, see warm_start.py)."""
        if mmap:
            return read_once(folder / PATHS_FILE, _open_mapped)
        return cls._open(folder, mmap=False)

    @classmethod
    def _open(cls, folder: Path, *, mmap: bool) -> SearchIndex:
        import bm25s

        paths = json.loads(gzip.decompress((folder / PATHS_FILE).read_bytes()))
        fields = {name: bm25s.BM25.load(str(folder / name), mmap=mmap, show_progress=False) for name in INDEXED}
        return cls(paths, fields)

    def term_scores(self, field: str, tokens: list[str]) -> np.ndarray:
        """BM25 score of each token (rows) in each file (columns) for one field."""
        bm25 = self._fields[field]
        vocab = bm25.vocab_dict
        out = np.zeros((len(tokens), len(self.paths)), dtype=np.float32)
        # A term's scores are one column of bm25s's matrix (its default method scores only the files
        # that have the term): copied into float32 rows, not summed by get_scores in the index's
        # float16, whose numpy arithmetic made a request's scoring 3-4x slower than with float32.
        data, indices, indptr = bm25.scores["data"], bm25.scores["indices"], bm25.scores["indptr"]
        for i, tok in enumerate(tokens):
            t = vocab.get(tok)
            if t is not None:
                start, end = indptr[t], indptr[t + 1]
                out[i, indices[start:end]] = data[start:end]
        return out


def _open_mapped(paths_file: Path) -> SearchIndex:
    return SearchIndex._open(paths_file.parent, mmap=True)
