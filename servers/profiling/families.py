"""Families of files that belong together: dated series and same-shaped siblings.

`readings_2024-01.csv ... readings_2024-12.csv` are one dataset split by date;
`sites/site_a.csv ... sites/site_f.csv` with identical columns are one dataset
split by a key. Both partitioning (keep families together) and relevance (rank a family
as one unit) need to know them; they are read off the profiles (names, columns, dates), so
they are found here, with the profiles.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import defaultdict
from pathlib import PurePosixPath
from typing import Callable

from lakeboard.schemas.families import Family, FamilyMember, SlotKind, TimeCoverage
from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.time_coverage import DATE_IN_NAME, MONTH_IN_NAME, YEAR_IN_NAME, coverage_from_data, coverage_from_name

_DATE_OR_NUMBER = re.compile(r"\d+")


def name_pattern(path: str) -> str:
    """The path with runs of digits masked: members of a dated/numbered series share it."""
    p = PurePosixPath(path)
    return str(p.parent / _DATE_OR_NUMBER.sub("#", p.name))


def column_signature(profile: FileProfile) -> str | None:
    cols = [c.name.strip().lower() for t in profile.tables for c in t.columns]
    if len(cols) < 2:
        return None
    return hashlib.sha1("\x1f".join(cols).encode()).hexdigest()[:10]


def layout_signature(profile: FileProfile) -> str:
    """What a family's members share: the format, and per table its sheet (or table) name and
    column names. Files that differ in these are never one family. (Members may still differ in
    how they are read, a title line above the header say: `response_writing.sharing_key` tells
    which members can share one loader.)"""
    parts: list[object] = [profile.format]
    parts += [(t.name, [c.name.strip() for c in t.columns]) for t in profile.tables]
    return hashlib.sha1(repr(parts).encode()).hexdigest()[:10]


def find_families(profiles: list[FileProfile], *, min_size: int = 3) -> dict[str, str]:
    """Map path -> family key, for files in a family of at least `min_size` members.

    Members share a layout (`layout_signature`): a dated series whose files differ in their
    sheets or columns is split by layout, and a file of a layout fewer than `min_size` files
    share is in no family.
    """
    members_of: dict[str, list[str]] = defaultdict(list)
    for prof in profiles:
        pattern = name_pattern(prof.path)
        if "#" in PurePosixPath(pattern).name:
            members_of[f"series:{pattern}:{layout_signature(prof)}"].append(prof.path)
            continue
        if column_signature(prof) is not None:
            parent = str(PurePosixPath(prof.path).parent)
            suffix = PurePosixPath(prof.path).suffix.lower()
            members_of[f"siblings:{parent}/*{suffix}:{layout_signature(prof)}"].append(prof.path)
    out: dict[str, str] = {}
    for key, members in members_of.items():
        if len(members) >= min_size:
            for m in members:
                out[m] = key
    # One folder per item, each holding a file of the same name and layout
    # (fleet/osprey/particulars.json, fleet/kestrel/particulars.json, ...).
    items: dict[str, list[str]] = defaultdict(list)
    for prof in profiles:
        p = PurePosixPath(prof.path)
        if prof.path not in out and len(p.parts) >= 2:
            items[f"items:{p.parent.parent}/*/{p.name}:{layout_signature(prof)}"].append(prof.path)
    for key, members in items.items():
        if len(members) >= min_size:
            for m in members:
                out[m] = key
    return out


# -- what the members' names vary in --------------------------------------------------------

def _same_class(a: str, b: str) -> bool:
    return (a.isdigit() and b.isdigit()) or (a.isalpha() and b.isalpha())


def _common_prefix(names: list[str]) -> str:
    """The longest shared start, cut back so that it does not split a word or a number."""
    p = os.path.commonprefix(names)
    while p and p[-1].isalnum() and any(len(n) > len(p) and _same_class(p[-1], n[len(p)]) for n in names):
        p = p[:-1]
    return p


def _common_suffix(names: list[str]) -> str:
    return _common_prefix([n[::-1] for n in names])[::-1]


def _date_range(name: str) -> str | None:
    found = list(DATE_IN_NAME.finditer(name))
    return name[found[0].start() : found[-1].end()] if len(found) >= 2 else None


def _only(pattern: re.Pattern[str]) -> Callable[[str], str | None]:
    """A finder of the one match of `pattern` in a name (None when there are none or several)."""
    def find(name: str) -> str | None:
        found = list(pattern.finditer(name))
        return found[0].group() if len(found) == 1 else None
    return find


_TIME_FINDERS: list[tuple[SlotKind, Callable[[str], str | None]]] = [
    ("date_range", _date_range), ("date", _only(DATE_IN_NAME)), ("month", _only(MONTH_IN_NAME)),
    ("year", _only(YEAR_IN_NAME)),
]


def _time_slot(names: list[str]) -> tuple[SlotKind, list[str]] | None:
    """Date ranges, dates, months or years that every name holds and that differ across names."""
    for kind, find in _TIME_FINDERS:
        values = [find(n) for n in names]
        if all(v is not None for v in values) and len(set(values)) > 1:
            return kind, [v for v in values if v is not None]
    return None


def slot_values(paths: list[str]) -> tuple[str, SlotKind, list[str]]:
    """The pattern of the members' names (the slot shown as <slot>), the slot's kind, and
    each member's slot text."""
    names = [PurePosixPath(p).name for p in paths]
    if len(set(names)) == 1:  # one folder per item: the folder is the slot
        folders = [PurePosixPath(p).parent.name for p in paths]
        pattern = str(PurePosixPath(paths[0]).parent.parent / "<slot>" / names[0])
        return pattern, "id" if all(f.isdigit() for f in folders) else "entity", folders
    pre = _common_prefix(names)
    rest = [n[len(pre):] for n in names]
    suf = _common_suffix(rest)
    parent = str(PurePosixPath(paths[0]).parent)
    pattern = f"{pre}<slot>{suf}" if parent == "." else f"{parent}/{pre}<slot>{suf}"
    timed = _time_slot(names)
    if timed is not None:
        kind, values = timed
        around = {n.replace(v, "<slot>", 1) for n, v in zip(names, values)}
        if len(around) == 1:
            pattern = around.pop() if parent == "." else f"{parent}/{around.pop()}"
        return pattern, kind, values
    values = [r[: len(r) - len(suf)] if suf else r for r in rest]
    if not values or any(not v for v in values):
        return pattern, "none", values
    if all(v.isdigit() for v in values):
        return pattern, "id", values
    if all(any(ch.isalpha() for ch in v) for v in values):
        return pattern, "entity", values
    return pattern, "none", values


def _member_coverage(kind: SlotKind, profile: FileProfile) -> TimeCoverage | None:
    if kind in ("year", "month", "date", "date_range"):
        return coverage_from_name(profile.path) or coverage_from_data(profile)
    return coverage_from_data(profile)


def describe_families(profiles: list[FileProfile]) -> list[Family]:
    """Every family of the lake with its slot and each member's value and time coverage."""
    by_path = {p.path: p for p in profiles}
    members_of: dict[str, list[str]] = defaultdict(list)
    for path, key in find_families(profiles).items():
        members_of[key].append(path)
    out = []
    for key, paths in sorted(members_of.items()):
        paths.sort()
        pattern, kind, values = slot_values(paths)
        out.append(
            Family(
                key=key,
                slot=kind,
                pattern=pattern,
                members=[
                    FamilyMember(path=p, value=v, coverage=_member_coverage(kind, by_path[p]))
                    for p, v in zip(paths, values)
                ],
            )
        )
    return out
