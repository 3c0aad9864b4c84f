"""Data dictionaries: tables whose rows describe the columns of another file.

A dictionary is recognised by content, not by name: one of its columns lists (most of)
another file's column names. The described file then inherits the dictionary's
descriptions as searchable text, and the two are served together.
"""

from __future__ import annotations

from schemas.profiles import FileProfile

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


def link_dictionaries(profiles: list[FileProfile]) -> dict[str, list[str]]:
    """Map data file path -> dictionary file paths that describe its columns."""
    columns_of = {
        p.path: {_norm(c) for c in p.column_names if _norm(c)} for p in profiles if p.status == "ok" and p.tables
    }
    links: dict[str, list[str]] = {}
    for cand in profiles:
        if cand.status != "ok" or not cand.tables or len(cand.column_names) < 2:
            continue
        for values in _column_values(cand):
            if len(values) < _MIN_SHARED:
                continue
            for path, cols in columns_of.items():
                if path == cand.path or len(cols) < _MIN_SHARED:
                    continue
                shared = len(values & cols)
                if shared >= _MIN_SHARED and shared >= 0.5 * min(len(values), len(cols)):
                    links.setdefault(path, []).append(cand.path)
    return {k: sorted(set(v)) for k, v in links.items()}


def dictionary_text(profile: FileProfile) -> str:
    """All text of a dictionary's sampled rows, for the described file's search fields."""
    parts: list[str] = []
    for table in profile.tables:
        for row in table.sample_rows:
            parts.extend(str(v) for v in row.values() if v is not None)
        for col in table.columns:
            parts.extend(col.top_values)
    return " ; ".join(parts)
