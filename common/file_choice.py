"""The offline main agent's choice of files from the volunteers' evidence.

Each file agent scores its own files on the lake-wide scale; the host merges them and
keeps the smallest set that covers the request: the best file, then further files only
when they add request terms the chosen ones miss (a question joining two datasets names
both), whole families when one member wins a tie, and the dictionaries of chosen files.

A further file is a *complement* (a second dataset the question joins), not a *rival* (a
weaker match for the same thing): one that also matches most of what a chosen file
matches, yet scores lower, is skipped; one that scores well below the best is still taken
when it covers much of the request the chosen files know nothing about.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from lakeboard.common.confidence import EVIDENCE_FLOOR, RELATIVE_SHARE
from lakeboard.schemas.messages import FileMatch


@dataclass(frozen=True)
class SelectionPolicy:
    floor: float = EVIDENCE_FLOOR  # below this the best file is not evidence of anything
    relative: float = RELATIVE_SHARE  # a further file must score at least this share of the best
    min_gain: float = 0.05  # ... and cover at least this share of the request's weight anew
    tie: float = 0.97  # family members within this share of a chosen member come along
    max_files: int = 6  # excluding family members and companions
    # a further file matching this share of a chosen file's request weight is a rival to it
    rival: float = 0.7
    # below `relative` (down to `rescue_relative`), a file covering this share anew is taken
    rescue_gain: float = 0.3
    rescue_relative: float = 0.4


def merge_matches(matches: list[FileMatch]) -> list[FileMatch]:
    """One match per path (the best), best first."""
    best: dict[str, FileMatch] = {}
    for m in matches:
        if m.path not in best or m.score > best[m.path].score:
            best[m.path] = m
    return sorted(best.values(), key=lambda m: (-m.score, m.path))


def _weight(terms: Iterable[str], term_weights: dict[str, float]) -> float:
    return sum(term_weights.get(t, 0.0) for t in terms)


def _repeats(cand: FileMatch, chosen: list[FileMatch], term_weights: dict[str, float]) -> float:
    """The largest share of a chosen file's request weight that `cand` matches too.

    A lower-scoring file that matches nearly everything a chosen file matches is a weaker
    alternative to it (the same terms in weaker fields): the terms it adds are incidental.
    """
    theirs = set(cand.matched_terms)
    shares = []
    for c in chosen:
        own = _weight(c.matched_terms, term_weights)
        if own > 0:
            shares.append(_weight((t for t in c.matched_terms if t in theirs), term_weights) / own)
    return max(shares, default=0.0)


def select_files(
    matches: list[FileMatch], term_weights: dict[str, float], policy: SelectionPolicy = SelectionPolicy()
) -> list[FileMatch]:
    ranked = merge_matches(matches)
    data = [m for m in ranked if m.role != "dictionary"] or ranked
    if not data or data[0].score < policy.floor or data[0].score <= 0:
        return []
    total = sum(term_weights.values()) or 1.0
    best = data[0]
    chosen = [best]
    covered = set(best.matched_terms)
    for cand in data[1:]:
        ratio = cand.score / best.score
        if len(chosen) >= policy.max_files or ratio < min(policy.relative, policy.rescue_relative):
            break
        if cand.group and any(c.group == cand.group for c in chosen):
            continue
        gain = _weight((t for t in cand.matched_terms if t not in covered), term_weights) / total
        if gain < policy.min_gain or _repeats(cand, chosen, term_weights) >= policy.rival:
            continue
        if ratio >= policy.relative or gain >= policy.rescue_gain:
            chosen.append(cand)
            covered |= set(cand.matched_terms)

    picked = {c.path for c in chosen}
    out = list(chosen)
    for c in chosen:
        if c.group:
            for m in ranked:
                if m.group == c.group and m.path not in picked and m.score >= policy.tie * c.score:
                    out.append(m)
                    picked.add(m.path)
    by_path = {m.path: m for m in ranked}
    for c in list(out):
        for comp in c.companions:
            if comp not in picked:
                picked.add(comp)
                out.append(by_path.get(comp) or FileMatch(path=comp, score=c.score, role="dictionary"))
    return out
