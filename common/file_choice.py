"""The choice of files from ranked matches, the same for a file agent and for the host.

File agents score their own files on one lake-wide scale (a probability from the fitted
file model). A file agent chooses among its own matches; the host merges the volunteers'
matches and chooses again. Both keep the best data file with its companions.

Only the best file: under cross-validation on the real lakes, every way tried of adding a
second file (a fitted model of what it adds to the best, a ratio of their probabilities)
lowered F1 on the held-out lake, although each raised it on the lakes it was fitted on
(benchmarks/fit_relevance.py). The files ranked next stay in the matches a client reads.
"""

from __future__ import annotations

from lakeboard.schemas.messages import FileMatch

# The files a person or a model is shown for a request: the chosen one and those ranked after
# it, or, when no file agent volunteers, the best they declined. benchmarks/bench_discovery.py
# reports this list's recall (rec@10).
SHOWN_FILES = 10


def merge_matches(matches: list[FileMatch]) -> list[FileMatch]:
    """One match per path (the best), best first; a file with the same bytes as one ranked before
    it is left out (that one's match names it among its copies)."""
    best: dict[str, FileMatch] = {}
    for m in matches:
        if m.path not in best or m.score > best[m.path].score:
            best[m.path] = m
    out, copied = [], set()
    for m in sorted(best.values(), key=lambda m: (-m.score, m.path)):
        if m.path not in copied:
            out.append(m)
            copied.update(m.copies)
    return out


def _data(ranked: list[FileMatch]) -> list[FileMatch]:
    return [m for m in ranked if m.role not in ("dictionary", "template")]


def best_data_file(matches: list[FileMatch]) -> FileMatch | None:
    """The most likely data file; a dictionary or an answer template only where no data file
    matched (a dictionary comes as a companion of the data it describes, never in its place)."""
    ranked = merge_matches(matches)
    return (_data(ranked) or ranked or [None])[0]


def next_data_files(matches: list[FileMatch], chosen: list[FileMatch], limit: int) -> list[FileMatch]:
    """The files ranked after the chosen ones that are not dictionaries, best first, at most `limit`:
    answer templates among them (they show the form an answer takes)."""
    taken = {m.path for m in chosen}
    return [m for m in merge_matches(matches) if m.role != "dictionary" and m.path not in taken][:limit]


def select_files(matches: list[FileMatch]) -> list[FileMatch]:
    """The best data file, then its companions."""
    best = best_data_file(matches)
    return with_companions([best], matches) if best is not None else []


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
