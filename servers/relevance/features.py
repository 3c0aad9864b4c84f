"""Evidence that a file holds what a request needs, as one row of numbers per file.

Lake-wide quantities (each field's best BM25 score, a file's rank, a term's document
frequency) come from the lake's search index, so a file agent that scores only its own
files still puts them on the lake's scale. The relevance model weighs the columns.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lakeboard.schemas.query import Query
from lakeboard.servers.relevance.constraints import time_fits
from lakeboard.servers.relevance.file_facts import FileFacts
from lakeboard.servers.relevance.index_fields import ALL, FIELDS
from lakeboard.servers.relevance.search_index import SearchIndex

_NAME_FIELDS = ("name", "folder")
FEATURES: tuple[str, ...] = (
    *(f"bm25_{f}" for f in FIELDS),
    "bm25_all", "rank_all", "log_all", "bm25_plain", "log_plain", "cover", "cover_rel",
    "name_fit", "period_fit", "period_conflict", "dictionary", "family", "quoted", "dense", "dense_rel",
)
# Cross-validation dropped (each cost macro F1 or carried no weight on the real lakes): an id of the
# request in a file's name (ids stay content terms, so BM25 and coverage see them), a file format
# named, a family member named, prose documents, being described, name-field coverage and two ranks.
def _relative(x: np.ndarray) -> np.ndarray:
    top = float(x.max()) if x.size else 0.0
    return x / top if top > 0 else np.zeros_like(x)


def _ranks(x: np.ndarray) -> np.ndarray:
    """1 for the best file, 1/2 for the second ...; 0 where there is no evidence."""
    order = np.argsort(-x, kind="stable")
    r = np.empty_like(order)
    r[order] = np.arange(len(x))
    return np.where(x > 0, 1.0 / (1.0 + r), 0.0)


class LakeEvidence:
    """The lake-wide part of the evidence for one query, computed once per request."""

    def __init__(self, query: Query, index: SearchIndex, dense: np.ndarray | None = None) -> None:
        self.query = query
        n = len(index.paths)
        content = list(query.terms)
        per_field: dict[str, np.ndarray] = {}
        hits = np.zeros((len(content), n), dtype=bool)
        for field in FIELDS:
            m = index.term_scores(field, content)
            if field in _NAME_FIELDS:
                extra = [t for t in query.name_parts if t not in query.terms]
                per_field[field] = m.sum(0) + index.term_scores(field, extra).sum(0)
            else:
                per_field[field] = m.sum(0)
            hits |= m > 0
        self.field_scores = {f: _relative(s) for f, s in per_field.items()}
        plain = index.term_scores(ALL, list(dict.fromkeys(content + query.name_parts))).sum(0)
        self.plain, self.log_plain = _relative(plain), np.log1p(plain)
        total = sum(per_field.values()) if per_field else np.zeros(n)
        self.all = _relative(total)
        self.rank = _ranks(total)
        self.log_all = np.log1p(total)
        df = hits.sum(1)
        idf = np.log((n + 1) / (df + 0.5))
        # which content terms each file matches, and what each term weighs: how the host tells
        # a second dataset the request joins from a weaker copy of the first
        self.hits, self.idf = hits, idf
        weight = idf.sum()
        self.cover = (idf @ hits) / weight if weight > 0 else np.zeros(n)
        self.cover_rel = _relative(self.cover)
        if dense is not None:
            self.dense = dense
            self.dense_rel = dense - dense.max() if dense.size else dense
        else:
            self.dense = self.dense_rel = np.zeros(n)
        self.parts = set(query.name_parts)


def _name_fit(facts: FileFacts, parts: set[str]) -> float:
    own = facts.word_parts
    return sum(p in parts for p in own) / len(own) if own else 0.0


def period_fit(facts: FileFacts, query: Query) -> tuple[float, float]:
    """(1, 0) when the file's time meets the request's, (0, 1) when it does not, (0, 0) when
    either says nothing of time."""
    cov = facts.coverage
    if not query.has_time or cov is None:
        return 0.0, 0.0
    return (1.0, 0.0) if time_fits(query.periods, query.months, cov.start, cov.end) else (0.0, 1.0)


def feature_rows(ev: LakeEvidence, positions: Sequence[int], facts: Sequence[FileFacts]) -> np.ndarray:
    """One row per file (`positions` in the index, with their facts), columns as FEATURES.

    Built column by column: the lake-wide evidence is indexed once per column, and only what
    depends on a file's facts is computed file by file (a partition holds thousands of files).
    """
    q = ev.query
    at = np.asarray(positions, dtype=np.intp)
    n = len(facts)

    def per_file(values, width: int = 1) -> np.ndarray:
        return np.fromiter(values, dtype=np.float64, count=n * width)

    none = np.zeros(n)
    fits = per_file((v for f in facts for v in period_fit(f, q)), 2).reshape(n, 2) if q.has_time else np.zeros((n, 2))
    phrases = set(q.phrases)
    columns = [
        *(ev.field_scores[name][at] for name in FIELDS),
        ev.all[at], ev.rank[at], ev.log_all[at], ev.plain[at], ev.log_plain[at], ev.cover[at], ev.cover_rel[at],
        per_file(_name_fit(f, ev.parts) for f in facts) if ev.parts else none,
        fits[:, 0], fits[:, 1],
        per_file(bool(f.describes) for f in facts),
        per_file(f.family is not None for f in facts),
        per_file(bool(phrases & set(f.labels)) for f in facts) if phrases else none,
        ev.dense[at], ev.dense_rel[at],
    ]
    rows = np.zeros((n, len(FEATURES)), dtype=np.float32)
    for j, column in enumerate(columns):
        rows[:, j] = column
    return rows
