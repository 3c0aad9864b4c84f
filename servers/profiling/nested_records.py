"""Records nested in records: a JSON API's series under each site, items under each order.

A web service often returns a short list of parents (a site and its variable), each holding the
long list of measurements under it (`values[0].value[...]`). Normalised as a record list, the
measurements stay one cell of lists per parent. Here the nested list becomes a table of its own,
a row per child with its parent's identifying fields beside it. (`pd.json_normalize`'s own `meta`
takes a nested field only at the level of the record path its length names, so the loader uses
`nested_rows` below, whose source it carries, and normalises what it returns.)
"""

from __future__ import annotations

from typing import Any

MIN_CHILDREN_PER_PARENT = 5  # on average: fewer are a parent's details (its instruments, tags), not its series
MIN_CHILDREN = 10
MAX_META = 8  # parent fields carried beside each child
_MAX_DEPTH = 4


def _records(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v[:20])


def child_path(rec: dict, depth: int = 0) -> list[str]:
    """The keys from a record to the longest list of records below it, through objects, and through
    a list of records when its first holds a longer list again (`values` -> `value`)."""
    best: list[str] = []
    best_len = 0
    if depth > _MAX_DEPTH:
        return best
    for k, v in list(rec.items())[:200]:
        if not isinstance(k, str):
            continue
        if _records(v):
            deeper = child_path(v[0], depth + 1)
            inner = nested_rows([v[0]], deeper, []) if deeper else []
            path, n = ([k, *deeper], len(inner)) if deeper and len(inner) > len(v) else ([k], len(v))
        elif isinstance(v, dict):
            path = child_path(v, depth + 1)
            n = len(nested_rows([v], path, [])) if path else 0
            path = [k, *path] if path else []
        else:
            continue
        if path and n > best_len:
            best, best_len = path, n
    return best


def nested_rows(parents: list, record_path: list, meta: list) -> list:
    """Each record under `record_path` in each parent, with the parent's `meta` fields (lists of keys)
    beside it under their dotted names: the rows of a nested record list, for pd.json_normalize."""

    def field(rec, keys):
        for k in keys:
            rec = rec.get(k) if isinstance(rec, dict) else None
        return rec

    rows = []
    for parent in parents:
        level = [parent]
        for k in record_path:  # a list is each of its records, an object is itself
            values = [o.get(k) if isinstance(o, dict) else None for o in level]
            level = [x for v in values for x in (v if isinstance(v, list) else [v]) if isinstance(x, dict)]
        known = {".".join(keys): field(parent, keys) for keys in meta}
        rows.extend({**child, **known} for child in level)
    return rows


def _scalars(rec: dict, prefix: tuple[str, ...] = (), out: dict | None = None) -> dict[tuple[str, ...], Any]:
    """The parent's fields that are single values, by their keys (through objects, not lists)."""
    out = {} if out is None else out
    for k, v in rec.items():
        if not isinstance(k, str):
            continue
        if isinstance(v, dict):
            _scalars(v, (*prefix, k), out)
        elif v is None or isinstance(v, (str, int, float, bool)):
            out[(*prefix, k)] = v
    return out


def meta_fields(parents: list[Any], child_names: set[str]) -> list[list[str]]:
    """The parent fields put beside each child: those that tell the parents apart first, then those
    all share (a unit, a site type), at most MAX_META, none named as a child's column is."""
    seen: dict[tuple[str, ...], set[str]] = {}
    for p in parents[:200]:
        if isinstance(p, dict):
            for key, v in _scalars(p).items():
                seen.setdefault(key, set()).add(repr(v))
    keys = [k for k in seen if ".".join(k) not in child_names and not any(len(repr(v)) > 200 for v in seen[k])]
    keys.sort(key=lambda k: len(seen[k]) < 2)  # stable: fields that vary first, each group in document order
    return [list(k) for k in keys[:MAX_META]]


def nested_table(parents: list[Any]) -> tuple[list[str], int] | None:
    """(record path, number of children) of the list nested in these parents that should be a table
    of its own, or None: each parent must head a series (MIN_CHILDREN_PER_PARENT children on average)."""
    first = next((p for p in parents if isinstance(p, dict)), None)
    if first is None:
        return None
    path = child_path(first)
    if not path:
        return None
    n = len(nested_rows(parents, path, []))
    if n < MIN_CHILDREN or n < MIN_CHILDREN_PER_PARENT * len(parents):
        return None
    return path, n
