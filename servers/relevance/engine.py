"""The relevance engine of one file agent: the lake's index, the fitted model, its own files.

It computes the lake-wide evidence for a request once (BM25 per field, term statistics, dense
similarity), scores only the files of its partition with the fitted file model, and asks the
gate whether its partition holds anything the request needs. Probabilities are on one scale
for every file agent of the lake, because every input is lake-wide.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from lakeboard.common.request_embedding import embed_request
from lakeboard.servers.relevance.relevance_model import RelevanceWeights, relevance_weights
from lakeboard.schemas.families import TimeCoverage
from lakeboard.schemas.messages import FileMatch, LakeSimilarity
from lakeboard.schemas.query import Query
from lakeboard.servers.relevance.features import FEATURES, FactColumns, LakeEvidence, feature_rows
from lakeboard.servers.relevance.file_facts import FileFacts
from lakeboard.servers.relevance.lake_index import LakeIndex

Embed = Callable[[list[str]], np.ndarray]
# the absolute evidence the gate reads, maximised over the files it is asked about
GATE_FEATURES = ("dense_nearest", "name_fit", "quoted", "log_all")
# what the gate weighs: those, the best file's probability, its lead on the next, and how far the
# files' best nearest similarity (to the whole request or one of its sentences) stands above the lake's
GATE_INPUTS = (*GATE_FEATURES, "best_p", "lead", "dense_standing")
_SHOWN = 21  # matches a file agent reports: the one it chose and the next 20


@dataclass
class Ranking:
    matches: list[FileMatch]  # the partition's files with evidence, most likely first
    gate: float  # how likely the partition holds anything the request needs
    term_weights: dict[str, float]  # the request's words and their lake-wide weights (idf)


def gate_row(rows: np.ndarray, p: np.ndarray, standing: float) -> np.ndarray:
    """The gate's inputs (GATE_INPUTS): the strongest absolute evidence among `rows`, the best
    probability and its lead on the next, and the dense similarity's `standing` in the lake."""
    cols = [FEATURES.index(f) for f in GATE_FEATURES]
    top = np.sort(p)[::-1]
    best = rows[:, cols].max(0) if len(rows) else np.zeros(len(cols))
    first = top[0] if len(top) else 0.0
    second = top[1] if len(top) > 1 else 0.0
    return np.array([[*best, first, first - second, standing]], dtype=np.float64)


class RelevanceEngine:
    def __init__(self, lake: LakeIndex, paths: list[str] | None = None, *, embed: Embed | None = None,
                 weights: RelevanceWeights | None = None) -> None:
        self.lake = lake
        self.embed = embed if lake.vectors is not None else None
        self.weights = weights or relevance_weights(dense=self.embed is not None)
        wanted = set(paths) if paths is not None else None
        self.facts = [f for f in lake.facts if wanted is None or f.path in wanted]
        self.positions = np.array([lake.index.position[f.path] for f in self.facts], dtype=np.intp)
        self._facts_of = {f.path: f for f in self.facts}
        self.columns = [FEATURES.index(f) for f in self.weights.file.features]
        self._fact_columns = FactColumns.of(self.facts)
        self._usable = np.array([f.usable for f in self.facts], dtype=bool)

    @property
    def dense(self) -> bool:
        return self.embed is not None

    def facts_of(self, path: str) -> FileFacts:
        return self._facts_of[path]

    def coverage_of(self, path: str) -> TimeCoverage | None:
        return self._facts_of[path].coverage

    def evidence(self, query: Query, vectors: np.ndarray | None = None, lake: LakeSimilarity | None = None) -> LakeEvidence:
        """`vectors`: the request's embeddings as the host sent them, one row each (the whole
        request's, then its sentences'); without them the agent embeds the request. `lake`: their similarity over the
        whole lake, as the host sent it; with it only this partition's vectors are weighed (the
        others' similarities are left at 0)."""
        dense = None
        if self.embed is not None:  # set only where the lake has vectors
            if vectors is None:
                vectors, lake = embed_request(self.embed, [query.data_text, *query.sentences]), None
            if lake is None:
                dense = self.lake.vectors.similarities(vectors)
            else:
                own = self.lake.vectors.similarities(vectors, self.positions)
                dense = np.zeros((len(own), len(self.lake.vectors)), dtype=np.float32)
                dense[:, self.positions] = own
                if own.size:  # the host's best is never below a file's
                    lake = lake.model_copy(update={"best": max(lake.best, float(own[0].max())),
                                                   "nearest": max(lake.nearest, float(own.max()))})
        return LakeEvidence(query, self.lake.index, dense, lake)

    def rank(self, query: Query, vectors: np.ndarray | None = None, lake: LakeSimilarity | None = None) -> Ranking:
        ev = self.evidence(query, vectors, lake)
        rows = feature_rows(ev, self.positions, self.facts, self._fact_columns)
        p = self.weights.file.probability(rows[:, self.columns]) * self._usable
        gate = float(self.weights.gate.probability(gate_row(rows, p, ev.standing))[0]) if len(p) else 0.0
        words = list(query.terms.values())
        weight = {w: round(float(v), 4) for w, v in zip(words, ev.idf)}
        return Ranking(to_matches(p, self.positions, self.facts, ev.hits, words, _SHOWN), gate, weight)


def to_matches(p: np.ndarray, positions: Sequence[int], facts: list[FileFacts], hits: np.ndarray, words: list[str],
               limit: int) -> list[FileMatch]:
    """The `limit` most likely files as matches: each with the request's words it contains."""
    out = []
    for r in np.argsort(-p, kind="stable")[:limit]:
        if p[r] <= 0:
            break
        f = facts[r]
        matched = [w for w, hit in zip(words, hits[:, positions[r]]) if hit]
        out.append(FileMatch(path=f.path, score=round(float(p[r]), 4), matched_terms=matched,
                             role="dictionary" if f.describes else "template" if f.template else "data", group=f.family,
                             companions=f.described_by, copies=f.copies))
    return out
