"""What a loader returned, next to what the file's profile says it holds.

A loader check compares two lists of `TableShape`: the tables a loader returned (`shapes_of`)
and the tables its profile expects (`expected_shapes`). `problems` says, one sentence each,
where they disagree. The indexer runs these on a loader's data in its profiling worker; the
host runs `problems` on shapes a kernel program printed as JSON (`TableShape` is plain data,
so `[shape.model_dump() for shape in shapes_of(data)]` crosses the process boundary as is).
Pure functions: no I/O, and pandas is imported only when data is given to `shapes_of`.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from lakeboard.common.table_shapes import table_shapes
from lakeboard.schemas.profiles import FileProfile, TableShape

_LISTED = 5  # names listed in one sentence; the rest are counted


def shapes_of(data: Any) -> list[TableShape]:
    """The tables in what a loader returned (`lakeboard.common.table_shapes.table_shapes`), typed."""
    return shapes_from_json(table_shapes(data))


def shapes_from_json(items: Iterable[Mapping[str, Any]]) -> list[TableShape]:
    """Shapes a program printed as JSON (`shape.model_dump()` each), validated."""
    return [TableShape.model_validate(item) for item in items]


def expected_shapes(profile: FileProfile) -> list[TableShape]:
    """The tables `profile`'s file should load as: its tables' columns, the columns profiled as
    numbers, and their row counts. An estimated count (a big file, read in part) becomes a lower
    bound of half the estimate: estimates come from bytes per sampled row, and rows vary in length."""
    out = []
    for t in profile.tables:
        rows, exact = t.n_rows or 0, t.n_rows_exact and t.n_rows is not None
        out.append(TableShape(
            name=t.name,
            columns=[c.name for c in t.columns],
            # a column of no values says nothing of its type: a loader may well give it as text
            numeric=[c.name for c in t.columns if _numeric_dtype(c.dtype) and (c.null_fraction or 0.0) < 1.0],
            rows=rows if exact else rows // 2,
            rows_exact=exact,
        ))
    return out


def problems(loaded: list[TableShape], expected: list[TableShape]) -> list[str]:
    """Where the loaded tables disagree with the expected ones, one sentence each; [] when they agree.

    Tables are matched by name (a file's only table matches whatever the loader called it). Checked:
    every expected table is there, with the same column names, as many rows (at least as many for
    a lower bound), numbers in the columns profiled as numbers, and no header row among its data.
    """
    if not expected:
        return []
    if not loaded:
        return [f"it returned no table; the profile expects {_count(len(expected), 'table')}"]
    by_name = {shape.name: shape for shape in loaded}
    out = []
    for want in expected:
        got = by_name.get(want.name)
        if got is None and len(expected) == 1 and len(loaded) == 1:
            got = loaded[0]
        if got is None:
            out.append(f"table {want.name!r} is missing from what it returned")
            continue
        out += _table_problems(got, want, f"table {want.name!r}: " if len(expected) > 1 or want.name else "")
    return out


def _table_problems(got: TableShape, want: TableShape, where: str) -> list[str]:
    out = []
    names = set(got.columns)
    missing = [c for c in want.columns if c not in names]
    extra = [c for c in got.columns if c not in set(want.columns)]
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"it lacks {_names(missing)}")
        if extra:
            parts.append(f"it has {_names(extra)} that the profile does not")
        out.append(f"{where}column names differ: " + " and ".join(parts))
    repeated = [c for c in dict.fromkeys(got.columns) if got.columns.count(c) > want.columns.count(c) > 0]
    if repeated:
        out.append(f"{where}{_names(repeated)} {'is' if len(repeated) == 1 else 'are'} named more than once")
    if want.rows_exact and got.rows != want.rows:
        out.append(f"{where}{_count(got.rows, 'row')} loaded, the profile counted {want.rows:,}")
    elif not want.rows_exact and got.rows < want.rows:
        out.append(f"{where}{_count(got.rows, 'row')} loaded, fewer than the at least {want.rows:,} the profile expects")
    as_text = [c for c in want.numeric if c in names and c not in set(got.numeric)]
    if as_text:
        out.append(f"{where}{_names(as_text)} loaded as text, though the profile read numbers there")
    if got.header_rows_in_data:
        n = got.header_rows_in_data
        out.append(f"{where}{_count(n, 'data row')} {'repeats' if n == 1 else 'repeat'} the column names (a header read as data)")
    return out


def _names(names: list[str]) -> str:
    shown = ", ".join(repr(n) for n in names[:_LISTED])
    more = f" and {len(names) - _LISTED} more" if len(names) > _LISTED else ""
    return f"{'column' if len(names) == 1 else 'columns'} {shown}{more}"


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _numeric_dtype(dtype: str) -> bool:
    """A profiled dtype that holds numbers: int64, float64, Int32, UInt8 ... (not bool)."""
    d = dtype.lower()
    return d.startswith(("int", "uint", "float"))
