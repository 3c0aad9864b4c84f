"""Data dictionaries: tables whose rows describe the columns of another file.

A dictionary is recognised by content, not by name: one of its columns lists (most of)
another file's column names, and another column holds prose (the descriptions). The
described file then inherits the descriptions as searchable text, and the two are served
together.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import NamedTuple

from lakeboard.common.file_names import README_NAMES
from lakeboard.schemas.profiles import FileProfile, TableProfile
from lakeboard.servers.relevance.tokens import terms

_MIN_SHARED = 3
_MIN_DESCRIPTION_CHARS = 12  # mean length of a column's values for it to read as descriptions
_MAX_ROWS = 2000  # a dictionary has a row per variable, not per observation


def _norm(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


def _is_name(value: str) -> bool:
    """Column names worth matching: not bare numbers (sheets with 0, 1, 2 ... headers)."""
    return any(ch.isalpha() for ch in value)


def _values(table: TableProfile, column: str, extra: list[str]) -> list[str]:
    vals = [str(r.get(column, "")) for r in table.sample_rows if r.get(column) not in (None, "")]
    return vals + extra


def _dictionary_columns(table: TableProfile) -> list[set[str]]:
    """Candidate 'variable name' columns of a table that also has a descriptions column."""
    if table.n_rows is not None and table.n_rows > _MAX_ROWS:
        return []
    values = [(col, _values(table, col.name, col.top_values + col.examples)) for col in table.columns]
    # most tables are not dictionaries: no column of descriptions, so no names to normalise
    if not any(vals and sum(len(v) for v in vals) / len(vals) >= _MIN_DESCRIPTION_CHARS and " " in "".join(vals)
               for _, vals in values):
        return []
    candidates = []
    for col, vals in values:
        names = {_norm(v) for v in vals if _is_name(v)}
        names.discard("")
        # each row names a different variable: the column is (nearly) unique
        unique = col.n_unique is None or not table.n_rows or col.n_unique >= 0.8 * table.n_rows
        if len(names) >= _MIN_SHARED and unique:
            candidates.append(names)
    return candidates


class DictionaryLinks(NamedTuple):
    """Data file path -> the files that describe it: dictionaries of its columns, two ways, and the
    documents beside it."""

    closest: dict[str, list[str]]  # a dictionary that fits several files goes with the one(s) it was written for
    fitting: dict[str, list[str]]  # a dictionary goes with every file it fits; its text is searchable with each
    # documents beside a table with named columns that say what it holds (a README of its folder, a text
    # that names it): in `fitting` too, never its rival, but not needed to read it, so not in `closest`
    beside: dict[str, list[str]]


def link_dictionaries(profiles: list[FileProfile]) -> DictionaryLinks:
    """Which dictionaries describe which files (coverage is computed once for both ways).

    In `closest`, a dictionary that fits several files goes with the one(s) it describes
    most completely, then whose names it echoes (the file it was written for).
    """
    columns_of = {
        p.path: {_norm(c) for c in p.column_names if _norm(c) and _is_name(c)}
        for p in profiles
        if p.status == "ok" and p.tables
    }
    closest: dict[str, set[str]] = {}
    fitting: dict[str, set[str]] = {}
    for cand in profiles:
        if cand.status != "ok" or not cand.tables:
            continue
        coverage: dict[str, float] = {}
        for table in cand.tables:
            for names in _dictionary_columns(table):
                for path, cols in columns_of.items():
                    if path == cand.path or len(cols) < _MIN_SHARED:
                        continue
                    shared = len(names & cols)
                    if shared >= _MIN_SHARED and shared >= 0.5 * min(len(names), len(cols)):
                        coverage[path] = max(coverage.get(path, 0.0), shared / len(cols))
        for links, targets in ((closest, _closest(cand.path, coverage)), (fitting, coverage)):
            for path in targets:
                links.setdefault(path, set()).add(cand.path)
    needed, beside = _documents_beside(profiles)
    for p in profiles:  # the documents that declared its column names or fill values (profiling.declarations)
        if p.described_by:
            needed.setdefault(p.path, set()).update(p.described_by)
    for path, docs in needed.items():
        closest.setdefault(path, set()).update(docs)
    for path, docs in (*needed.items(), *beside.items()):
        fitting.setdefault(path, set()).update(docs)
    return DictionaryLinks(
        closest={k: sorted(v) for k, v in closest.items()}, fitting={k: sorted(v) for k, v in fitting.items()},
        beside={k: sorted(v) for k, v in beside.items()},
    )


README_FOLDER_TABLES = 10  # a README names none of its folder's tables: it describes them all, up to this many
_MAX_MENTION_CHECKS = 20_000  # (text, table) pairs of one folder read for a table's name


def _headerless(profile: FileProfile) -> bool:
    """A table whose columns have no names (0, 1, 2 ... or Unnamed): only a document says what they are."""
    names = profile.column_names
    return bool(names) and all(not _is_name(n) or n.startswith("Unnamed") for n in names)


def _documents_beside(profiles: list[FileProfile]) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Tables -> the text documents in their folder that describe them: one that names the table's
    file, or a README-like one over a folder of at most README_FOLDER_TABLES tables (over more, a
    README that names none of them says little of any one). For a headerless table such a document
    is needed to read it (first map); beside a table with named columns it says what the table
    holds (second map)."""
    docs_in: dict[str, list[tuple[str, bool, str]]] = {}  # folder -> (path, README-like, text lower-cased)
    tables_in: dict[str, int] = {}
    for p in profiles:
        folder = str(PurePosixPath(p.path).parent)
        if p.status == "ok" and p.text and not p.tables:
            readme = PurePosixPath(p.path).stem.lower().startswith(README_NAMES)
            docs_in.setdefault(folder, []).append((p.path, readme, p.text.lower()))
        elif p.status == "ok" and p.tables:
            tables_in[folder] = tables_in.get(folder, 0) + 1
    needed: dict[str, set[str]] = {}
    beside: dict[str, set[str]] = {}
    for p in profiles:
        folder = str(PurePosixPath(p.path).parent)
        if p.status != "ok" or not p.tables or folder not in docs_in:
            continue
        headerless = _headerless(p)
        docs = docs_in[folder]
        # each check reads a text: a folder of thousands of tables and texts would take minutes
        look = headerless or len(docs) * tables_in[folder] <= _MAX_MENTION_CHECKS
        small = tables_in[folder] <= README_FOLDER_TABLES
        if not (look or small):
            continue
        stem = PurePosixPath(p.path).stem.lower()
        # its name, or the name its series shares ("moves" of moves_2021); a short one is in every text
        names = [n for n in dict.fromkeys((stem, stem.rstrip("0123456789-_"))) if len(n) >= 4] if look else []
        for path, readme, text in docs:
            mentions = any(n in text for n in names)
            if headerless and (readme or mentions):
                needed.setdefault(p.path, set()).add(path)
            elif not headerless and (mentions or (readme and small)):
                beside.setdefault(p.path, set()).add(path)
    return needed, beside


def _closest(dictionary: str, coverage: dict[str, float]) -> set[str]:
    if len(coverage) <= 1:
        return set(coverage)
    best = max(coverage.values())
    near = {p for p, c in coverage.items() if c >= 0.8 * best}
    own = set(terms(PurePosixPath(dictionary).stem))
    overlap = {p: len(own & set(terms(PurePosixPath(p).stem))) for p in near}
    top = max(overlap.values())
    return {p for p, n in overlap.items() if n == top}


def dictionary_text(profile: FileProfile) -> str:
    """All text of a dictionary's sampled rows, for the described file's search fields."""
    parts: list[str] = [profile.text or ""] if not profile.tables else []
    for table in profile.tables:
        for row in table.sample_rows:
            parts.extend(str(v) for v in row.values() if v is not None)
        for col in table.columns:
            parts.extend(col.top_values)
    return " ; ".join(parts)
