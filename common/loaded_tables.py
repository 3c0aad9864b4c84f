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

from lakeboard.schemas.profiles import FileProfile, TableShape

_LISTED = 5  # names listed in one sentence; the rest are counted


def shapes_of(data: Any) -> list[TableShape]:
    """The tables in what a loader returned: a DataFrame (or GeoDataFrame) is one table; a dict
    (sheets, stacked tables, layers) or a list of them gives one per frame or array, named by
    its key or position; an array is a table of `len` rows and no columns. Text, None and other
    values hold no table: []."""
    if _is_frame(data) or _is_array(data):
        return [_shape(None, data)]
    if isinstance(data, Mapping):
        items: Iterable[tuple[Any, Any]] = data.items()
    elif isinstance(data, (list, tuple)):
        items = enumerate(data)
    else:
        return []
    return [_shape(str(key), value) for key, value in items if _is_frame(value) or _is_array(value)]


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
            numeric=[c.name for c in t.columns if _numeric_dtype(c.dtype)],
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


def _is_frame(value: Any) -> bool:
    return hasattr(value, "columns") and hasattr(value, "dtypes") and hasattr(value, "iloc")


def _is_array(value: Any) -> bool:
    return hasattr(value, "shape") and hasattr(value, "dtype") and not hasattr(value, "columns")


def _shape(name: str | None, value: Any) -> TableShape:
    if not _is_frame(value):
        shape = tuple(value.shape)
        return TableShape(name=name, rows=int(shape[0]) if shape else 1)
    import pandas as pd

    columns = [_column_name(c) for c in value.columns]
    numeric = [
        name_ for name_, dtype in zip(columns, value.dtypes)
        if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
    ]
    return TableShape(name=name, columns=columns, numeric=numeric, rows=int(len(value)),
                      header_rows_in_data=_header_rows(value, columns))


def _column_name(c: Any) -> str:
    if isinstance(c, tuple):  # a multi-row header pandas kept as levels
        return " ".join(str(p) for p in c)
    return str(c)


def _header_rows(frame: Any, names: list[str]) -> int:
    """Data rows whose cells mostly equal their own column names: a header read as data (a
    repeated header of files stacked into one, or a header row the loader did not skip).
    Only text cells can hold a column name, so only text columns are compared."""
    import numpy as np
    import pandas as pd

    if not len(frame) or not names:
        return 0
    hits = np.zeros(len(frame), dtype=np.int32)
    for i, name in enumerate(names):
        column = frame.iloc[:, i]
        if pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_bool_dtype(column.dtype):
            continue
        if pd.api.types.is_datetime64_any_dtype(column.dtype):
            continue
        hits += np.asarray(column.to_numpy(dtype=object) == name, dtype=bool)
    # Most of the row: more than half its cells, and two of them when the table is wider than one column.
    needed = max(len(names) // 2 + 1, min(2, len(names)))
    return int((hits >= needed).sum())
