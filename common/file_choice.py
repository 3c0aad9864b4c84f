"""The choice of files from ranked matches, the same for a file agent and for the host.

File agents score their own files on one lake-wide scale (a probability from the fitted
file model). A file agent chooses among its own matches; the host merges the volunteers'
matches and chooses again. Both keep the best file, then each further file
that the fitted `further` model judges a second dataset the request needs rather than a
weaker copy of the first: one that covers request words the best file does not (a complement)
counts for it, one that repeats the best file's words counts against it (a rival).
"""

from __future__ import annotations

import numpy as np

from lakeboard.common.relevance_model import RelevanceWeights
from lakeboard.schemas.messages import FileMatch

FURTHER = ("p", "ratio", "rank", "gain", "overlap", "same_family", "companion", "cover")
CANDIDATES = 10  # the best file and the next nine are considered


def candidates(matches: list[FileMatch]) -> list[FileMatch]:
    """The files that may be chosen, best first: data files (dictionaries come as companions)."""
    ranked = merge_matches(matches)
    return ([m for m in ranked if m.role != "dictionary"] or ranked)[:CANDIDATES]


def merge_matches(matches: list[FileMatch]) -> list[FileMatch]:
    """One match per path (the best), best first."""
    best: dict[str, FileMatch] = {}
    for m in matches:
        if m.path not in best or m.score > best[m.path].score:
            best[m.path] = m
    return sorted(best.values(), key=lambda m: (-m.score, m.path))


def _weight(words: set[str], term_weights: dict[str, float]) -> float:
    return sum(term_weights.get(w, 0.0) for w in words)


def further_rows(ranked: list[FileMatch], term_weights: dict[str, float]) -> np.ndarray:
    """What each of ranked[1:] adds to ranked[0], as FURTHER columns."""
    top = ranked[0]
    total = sum(term_weights.values())
    top_words = set(top.matched_terms)
    own = _weight(top_words, term_weights)
    rows = []
    for rank, m in enumerate(ranked[1:], start=2):
        words = set(m.matched_terms)
        rows.append([
            m.score, m.score / max(top.score, 1e-9), 1.0 / rank,
            _weight(words - top_words, term_weights) / total if total else 0.0,
            _weight(words & top_words, term_weights) / own if own else 0.0,
            float(m.group is not None and m.group == top.group),
            float(top.path in m.companions or m.path in top.companions),
            _weight(words, term_weights) / total if total else 0.0,
        ])
    return np.array(rows, dtype=np.float64).reshape(-1, len(FURTHER))


def select_files(matches: list[FileMatch], term_weights: dict[str, float], weights: RelevanceWeights) -> list[FileMatch]:
    """The best data file, the further ones the `further` model takes, then their companions. A
    dictionary or README is evidence for the data it describes, never a rival to it: it comes
    with that data, not in its place."""
    ranked = candidates(matches)
    if not ranked:
        return []
    policy = weights.policy
    chosen = [ranked[0]]
    if len(ranked) > 1:
        p = weights.further.probability(further_rows(ranked, term_weights))
        chosen += [m for m, f in zip(ranked[1:], p) if f >= policy.further_at]
    return with_companions(chosen[: policy.max_files], matches)


def with_companions(chosen: list[FileMatch], matches: list[FileMatch]) -> list[FileMatch]:
    """The chosen files, each followed by its companions: the dictionaries and READMEs that
    describe it, and the members of its family that the request's period takes with it."""
    by_path = {m.path: m for m in matches}
    out: list[FileMatch] = []
    seen: set[str] = set()
    for m in chosen:
        # a family's members in their own order (its files are named in order: by date, by id)
        for path in sorted([m.path, *m.companions]) if m.group else [m.path, *m.companions]:
            if path not in seen:
                seen.add(path)
                out.append(by_path.get(path) or FileMatch(path=path, score=m.score, role="companion", group=m.group))
    return out
