"""Discovery scores: recall, precision and F1 of returned files against ground-truth units.

A ground-truth entry is a *unit*: a file (`a.csv` or `dir/a.csv`), a directory (`dir/`,
any file under it matches) or a glob (`dir/*.csv`). Workloads name units loosely (case,
a bare file name for a nested file, prose such as "all csv in dir/"), so a unit is
resolved against the lake's paths before scoring.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import PurePosixPath


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


def score_discovery(returned: list[str], units: list[str], lake_paths: list[str]) -> DiscoveryScore:
    matchers = [resolve_unit(u, lake_paths) for u in units]
    low = [p.lower() for p in returned]
    matched = sum(1 for m in matchers if any(m(p) for p in low))
    relevant = sum(1 for p in low if any(m(p) for m in matchers))
    recall = matched / len(units) if units else 0.0
    precision = relevant / len(returned) if returned else 0.0
    f1 = 2 * recall * precision / (recall + precision) if recall + precision else 0.0
    return DiscoveryScore(recall, precision, f1, matched, len(units))
