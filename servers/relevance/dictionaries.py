"""Data dictionaries: tables whose rows describe the columns of another file.

A dictionary is recognised by content, not by name: one of its columns lists (most of)
another file's column names. The described file then inherits the dictionary's
descriptions as searchable text, and the two are served together.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from schemas.profiles import FileProfile
from servers.relevance.tokens import terms

_MIN_SHARED = 3


def _norm(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


def _column_values(profile: FileProfile) -> list[set[str]]:
    """Per column of each table: the normalised values seen in the sample and top values."""
    out = []
    for table in profile.tables:
        for col in table.columns:
            seen = {_norm(str(r.get(col.name, ""))) for r in table.sample_rows}
            seen |= {_norm(v) for v in col.top_values + col.examples}
            seen.discard("")
            out.append(seen)
    return out


def link_dictionaries(profiles: list[FileProfile], *, closest_only: bool = True) -> dict[str, list[str]]:
    """Map data file path -> dictionary file paths that describe its columns.

    With `closest_only`, a dictionary that fits several files goes with the ones whose
    names it echoes (the file it was written for); without, with every file it fits.
    """
    columns_of = {
        p.path: {_norm(c) for c in p.column_names if _norm(c)} for p in profiles if p.status == "ok" and p.tables
    }
    links: dict[str, set[str]] = {}
    for cand in profiles:
        if cand.status != "ok" or not cand.tables or len(cand.column_names) < 2:
            continue
        described: set[str] = set()
        for values in _column_values(cand):
            if len(values) < _MIN_SHARED:
                continue
            for path, cols in columns_of.items():
                if path == cand.path or len(cols) < _MIN_SHARED:
                    continue
                shared = len(values & cols)
                if shared >= _MIN_SHARED and shared >= 0.5 * min(len(values), len(cols)):
                    described.add(path)
        for path in _closest_by_name(cand.path, described) if closest_only else described:
            links.setdefault(path, set()).add(cand.path)
    return {k: sorted(v) for k, v in links.items()}


def _closest_by_name(dictionary: str, described: set[str]) -> set[str]:
    """When a dictionary fits several files (copies, or files sharing columns), it belongs
    to the ones whose names it echoes; if it echoes none, to all of them."""
    if len(described) <= 1:
        return described
    own = set(terms(PurePosixPath(dictionary).stem))
    overlap = {p: len(own & set(terms(PurePosixPath(p).stem))) for p in described}
    best = max(overlap.values())
    return {p for p, n in overlap.items() if n == best} if best else described


def dictionary_text(profile: FileProfile) -> str:
    """All text of a dictionary's sampled rows, for the described file's search fields."""
    parts: list[str] = []
    for table in profile.tables:
        for row in table.sample_rows:
            parts.extend(str(v) for v in row.values() if v is not None)
        for col in table.columns:
            parts.extend(col.top_values)
    return " ; ".join(parts)
