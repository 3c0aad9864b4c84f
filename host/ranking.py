"""The offline main agent's choice of files from the volunteers' evidence.

Each file agent scores its own files on the lake-wide scale; the host merges them and
keeps the smallest set that covers the request: the best file, then further files only
when they add request terms the chosen ones miss (a question joining two datasets names
both), whole families when one member wins a tie, and the dictionaries of chosen files.
"""

from __future__ import annotations

from dataclasses import dataclass

from schemas.messages import FileMatch


@dataclass(frozen=True)
class SelectionPolicy:
    floor: float = 0.12  # below this the best file is not evidence of anything
    relative: float = 0.6  # a further file must score at least this share of the best
    min_gain: float = 0.05  # ... and cover at least this share of the request's weight anew
    tie: float = 0.97  # family members within this share of a chosen member come along
    max_files: int = 6  # excluding family members and companions


def merge_matches(matches: list[FileMatch]) -> list[FileMatch]:
    """One match per path (the best), best first."""
    best: dict[str, FileMatch] = {}
    for m in matches:
        if m.path not in best or m.score > best[m.path].score:
            best[m.path] = m
    return sorted(best.values(), key=lambda m: (-m.score, m.path))


def select_files(
    matches: list[FileMatch], term_weights: dict[str, float], policy: SelectionPolicy = SelectionPolicy()
) -> list[FileMatch]:
    ranked = merge_matches(matches)
    data = [m for m in ranked if m.role != "dictionary"] or ranked
    if not data or data[0].score < policy.floor:
        return []
    total = sum(term_weights.values()) or 1.0
    best = data[0]
    chosen = [best]
    covered = set(best.matched_terms)
    for cand in data[1:]:
        if len(chosen) >= policy.max_files or cand.score < policy.relative * best.score:
            break
        if cand.group and any(c.group == cand.group for c in chosen):
            continue
        gain = sum(term_weights.get(t, 0.0) for t in cand.matched_terms if t not in covered) / total
        if gain >= policy.min_gain:
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
