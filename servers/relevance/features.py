"""Evidence that a file holds what a request needs, as one row of numbers per file.

Lake-wide quantities (each field's best BM25 score, a file's rank, a term's document
frequency) come from the lake's search index, so a file agent that scores only its own
files still puts them on the lake's scale. The relevance model weighs the columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from lakeboard.schemas.messages import LakeSimilarity
from lakeboard.schemas.query import Query
from lakeboard.servers.relevance.constraints import time_fits
from lakeboard.servers.relevance.file_facts import FileFacts
from lakeboard.servers.relevance.index_fields import ALL, FIELDS
from lakeboard.servers.relevance.search_index import SearchIndex

_NAME_FIELDS = ("name", "folder")
FEATURES: tuple[str, ...] = (
    *(f"bm25_{f}" for f in FIELDS),
    "bm25_all", "rank_all", "log_all", "bm25_plain", "log_plain", "cover", "cover_rel",
    "name_fit", "period_fit", "period_conflict", "dictionary", "quoted", "dense", "dense_rel", "dense_nearest",
)
# Cross-validation dropped (each cost macro F1 or carried no weight on the real lakes): an id of the
# request in a file's name (ids stay content terms, so BM25 and coverage see them), a file format
# named, a family member named, being a family member, prose documents, being described, name-field
# coverage and two ranks.


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

    def __init__(self, query: Query, index: SearchIndex, dense: np.ndarray | None = None,
                 lake: LakeSimilarity | None = None) -> None:
        """`dense`: the request's similarity to each file (only some files', their agent's, where
        the host found `lake`): one row for the whole request, then one per sentence, or that one
        row alone; `lake`: the best over the lake's files and their spread."""
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
        if dense is not None and dense.size:
            rows = dense.reshape(-1, n)
            lake = lake if lake is not None else LakeSimilarity.of(rows)  # `dense` is the whole lake's
            self.dense, self.dense_rel, self.standing = rows[0], rows[0] - lake.best, lake.standing
            # each file's similarity to the whole request or to its sentence nearest the file:
            # the gate reads it (a long request's method dilutes its whole embedding)
            self.dense_nearest = rows.max(0)
        else:
            self.dense = self.dense_rel = self.dense_nearest = np.zeros(n)
            self.standing = 0.0
        self.parts = set(query.name_parts)


@dataclass(frozen=True)
class FactColumns:
    """What feature rows read of a partition's facts, laid out once as arrays (the facts do not
    change while an agent runs): a request then costs array products, not a loop over files."""

    describes: np.ndarray  # 1 where the file documents others
    name_parts: sparse.csr_matrix  # files x part: how often each part (numbers left out) is in its name
    part_index: dict[str, int]
    name_lengths: np.ndarray  # parts (numbers left out) in each file's name
    timed: np.ndarray  # positions of the files with a time coverage
    starts: np.ndarray  # their first and last days, as ordinals
    ends: np.ndarray

    @classmethod
    def of(cls, facts: Sequence[FileFacts]) -> FactColumns:
        index: dict[str, int] = {}
        rows, cols = [], []
        for r, f in enumerate(facts):
            for p in f.word_parts:
                rows.append(r)
                cols.append(index.setdefault(p, len(index)))
        counts = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(facts), max(len(index), 1)))
        return cls(
            describes=np.array([bool(f.describes) for f in facts], dtype=np.float64),
            name_parts=counts, part_index=index,
            name_lengths=np.array([len(f.word_parts) for f in facts], dtype=np.float64),
            timed=np.array([r for r, f in enumerate(facts) if f.coverage is not None], dtype=np.intp),
            starts=np.array([f.coverage.start.toordinal() for f in facts if f.coverage is not None], dtype=np.int64),
            ends=np.array([f.coverage.end.toordinal() for f in facts if f.coverage is not None], dtype=np.int64),
        )

    def period_fit(self, query: Query, facts: Sequence[FileFacts]) -> np.ndarray:
        """Per file, (fit, conflict) as `period_fit` gives them: over arrays where the request names
        only periods, file by file where it names months of the year too."""
        out = np.zeros((len(self.name_lengths), 2))
        if not query.has_time or not len(self.timed):
            return out
        if query.months:
            for r in self.timed:
                out[r] = period_fit(facts[r], query)
            return out
        fits = np.zeros(len(self.timed), dtype=bool)
        for p in query.periods:
            fits |= (p.start.toordinal() <= self.ends) & (self.starts <= p.end.toordinal())
        out[self.timed, 0] = fits
        out[self.timed, 1] = ~fits
        return out

    def name_fit(self, parts: set[str]) -> np.ndarray:
        """Per file, the share of its name's parts (numbers left out) that the request names."""
        wanted = np.zeros(self.name_parts.shape[1])
        wanted[[self.part_index[p] for p in parts if p in self.part_index]] = 1.0
        named = self.name_parts @ wanted
        return np.divide(named, self.name_lengths, out=np.zeros_like(named), where=self.name_lengths > 0)


def period_fit(facts: FileFacts, query: Query) -> tuple[float, float]:
    """(1, 0) when the file's time meets the request's, (0, 1) when it does not, (0, 0) when
    either says nothing of time."""
    cov = facts.coverage
    if not query.has_time or cov is None:
        return 0.0, 0.0
    return (1.0, 0.0) if time_fits(query.periods, query.months, cov.start, cov.end) else (0.0, 1.0)


def feature_rows(ev: LakeEvidence, positions: Sequence[int], facts: Sequence[FileFacts],
                 known: FactColumns | None = None) -> np.ndarray:
    """One row per file (`positions` in the index, with their facts), columns as FEATURES.

    Built column by column from the lake-wide evidence and the facts' arrays (`known`, made
    once by the engine; made here when not given). Only the time and quoted phrases are
    checked file by file, and only for the files that have them.
    """
    q = ev.query
    known = known if known is not None else FactColumns.of(facts)
    at = np.asarray(positions, dtype=np.intp)
    n = len(facts)
    none = np.zeros(n)
    fits = known.period_fit(q, facts)
    phrases = set(q.phrases)
    columns = [
        *(ev.field_scores[name][at] for name in FIELDS),
        ev.all[at], ev.rank[at], ev.log_all[at], ev.plain[at], ev.log_plain[at], ev.cover[at], ev.cover_rel[at],
        known.name_fit(ev.parts) if ev.parts else none,
        fits[:, 0], fits[:, 1],
        known.describes,
        np.array([bool(phrases & set(f.labels)) for f in facts], dtype=np.float64) if phrases else none,
        ev.dense[at], ev.dense_rel[at], ev.dense_nearest[at],
    ]
    rows = np.zeros((n, len(FEATURES)), dtype=np.float32)
    for j, column in enumerate(columns):
        rows[:, j] = column
    return rows
