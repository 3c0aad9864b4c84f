"""Discovery scores: recall, precision and F1 of returned files against ground-truth units.

A ground-truth entry is a *unit*: a file (`a.csv` or `dir/a.csv`), a directory (`dir/`,
any file under it matches) or a glob (`dir/*.csv`). Workloads name units loosely (case,
a bare file name for a nested file, prose such as "all csv in dir/"), so a unit is
resolved against the lake's paths before scoring. Files with the same bytes count as one file.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from lakeboard.common.byte_copies import copies_by_file
from lakeboard.host.lakes import Lake


@dataclass(frozen=True)
class DiscoveryScore:
    recall: float
    precision: float
    f1: float
    matched_units: int
    units: int


def _unit_matcher(unit: str):
    u = unit.strip().lower().lstrip("./")
    if any(ch in u for ch in "*?["):
        return lambda p: fnmatch.fnmatch(p, u) or fnmatch.fnmatch(p, "*/" + u)
    if u.endswith("/"):
        d = u.rstrip("/")
        return lambda p: ("/" + str(PurePosixPath(p).parent) + "/").find("/" + d + "/") >= 0 or (
            "/" + str(PurePosixPath(p).parent)
        ).endswith("/" + d)
    return lambda p: p == u or p.endswith("/" + u)


def resolve_unit(unit: str, lake_paths: list[str]):
    """A predicate over lower-cased lake paths for `unit`, dropping leading prose if needed."""
    words = unit.strip().split(" ")
    for start in range(len(words)):
        candidate = " ".join(words[start:])
        match = _unit_matcher(candidate)
        if any(match(p.lower()) for p in lake_paths):
            return match
    return _unit_matcher(unit)


def score_discovery(returned: list[str], units: list[str], lake_paths: list[str],
                    copies: Mapping[str, list[str]] | None = None) -> DiscoveryScore:
    """`copies`: for a file of the lake, the others with the same bytes: a returned file stands
    for its copies too (it is the same data under another name), whichever method returned it."""
    matchers = [resolve_unit(u, lake_paths) for u in units]
    same = copies or {}
    names = [[n.lower() for n in (p, *same.get(p, ()))] for p in returned]
    matched = sum(1 for m in matchers if any(m(n) for ns in names for n in ns))
    relevant = sum(1 for ns in names if any(m(n) for m in matchers for n in ns))
    recall = matched / len(units) if units else 0.0
    precision = relevant / len(returned) if returned else 0.0
    f1 = 2 * recall * precision / (recall + precision) if recall + precision else 0.0
    return DiscoveryScore(recall, precision, f1, matched, len(units))


def lake_copies(lake: Lake, paths: list[str]) -> dict[str, list[str]]:
    """The files of `paths` that have copies with the same bytes in the lake, with them (none for a
    bucket lake, whose local replica holds samples, not the objects' bytes). Found from the files
    themselves, not read from the index's facts: those are the file agents' (servers/relevance),
    which the host does not import, and the scorer should not lean on what it scores."""
    return {} if lake.root is None or lake.mirror() is not None else copies_by_file(lake.root, paths)
