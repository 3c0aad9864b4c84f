"""Column profiles and sample rows from a bounded sample of a table.

Two entry points: `profile_values` works on plain Python columns (cells parsed by the
csv module, spreadsheet cells, JSON records, Arrow columns) and infers the dtype pandas
would give each column, without pandas; `profile_frame` works on a DataFrame (readers
that need pandas anyway: HTML, geodata, SQLite, fixed-width). On samples of a few hundred
rows pandas' fixed costs dominate, so the plain path is several times faster.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache
from itertools import compress
from datetime import date, datetime, time
from typing import TYPE_CHECKING, Any

from lakeboard.schemas.profiles import ColumnProfile

if TYPE_CHECKING:
    import pandas as pd

_ISO_DATE = re.compile(r"^\d{4}-\d{2}(-\d{2})?([ T]\d{2}:\d{2}(:\d{2})?)?")


def _iso_dates(values: list[Any]) -> bool:
    """Every value is text starting with an ISO date (dates kept as text sort like time)."""
    return all(_ISO_DATE.match(v) if isinstance(v, str) else False for v in values)

MAX_TOP_VALUES = 30
MAX_EXAMPLES = 5
HEAD_ROWS = 20  # first rows kept in order: a profile's sample rows
# Rows a reader types and profiles: the first ones and a spread of the rest. Profiling time
# grows with it; 200 keep nearly every value of category-like columns on the evaluation lakes.
STATS_ROWS = 200
# Columns a table's profile describes (and its loader reads): a profile of a million columns
# would be hundreds of megabytes that no agent can read. The rest are left out with a note.
MAX_COLUMNS = 1000
_MAX_VALUE_CHARS = 80
_MAX_CELL_CHARS = 200


def value_text(v: Any, limit: int = _MAX_VALUE_CHARS) -> str:
    """A value as a short string a person (and a word matcher) can read."""
    if isinstance(v, float):
        s = str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)
    elif isinstance(v, (datetime, date, time)):
        s = v.isoformat()
    elif isinstance(v, bytes):
        s = v[:limit].decode("utf-8", "replace")
    else:
        s = " ".join(str(v).split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def json_value(v: Any) -> Any:
    """A cell as a JSON-safe value (numpy scalars, timestamps, NaN, long strings)."""
    if v is None:
        return None
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        try:
            v = v.item()
        except (ValueError, TypeError, AttributeError):
            v = str(v)
    if isinstance(v, float):
        return None if math.isnan(v) or math.isinf(v) else v
    if isinstance(v, (bool, int)):
        return v
    if isinstance(v, str):
        return v if len(v) <= _MAX_CELL_CHARS else v[: _MAX_CELL_CHARS - 1] + "…"
    if isinstance(v, (datetime, date, time)):
        return v.isoformat()
    if isinstance(v, bytes):
        return f"<{len(v)} bytes>"
    try:
        import pandas as pd

        if v is pd.NaT or (not isinstance(v, (list, dict, tuple)) and pd.isna(v)):
            return None
    except (TypeError, ValueError):
        pass
    s = str(v)
    return s if len(s) <= _MAX_CELL_CHARS else s[: _MAX_CELL_CHARS - 1] + "…"


def _profile_series(name: str, s: "pd.Series", n_head: int) -> tuple[ColumnProfile, list[Any]]:
    """A column's profile, and its first n_head values (for sample rows), in one pass.

    Works on numpy arrays and Python lists rather than pandas reductions: on a sample of a
    thousand rows, pandas' per-call overhead is most of the cost.
    """
    import numpy as np

    total = len(s)
    dtype = s.dtype
    col = ColumnProfile(name=name, dtype=str(dtype))
    kind = dtype.kind if isinstance(dtype, np.dtype) else ""
    if kind in ("i", "u", "f"):
        arr = s.to_numpy()
        head = arr[:n_head].tolist()
        valid = arr[~np.isnan(arr)] if kind == "f" else arr
        n_nonnull = len(valid)
        col.null_fraction = round(1 - n_nonnull / total, 4) if total else None
        if n_nonnull:
            col.examples = _first_distinct(valid[:200].tolist())
            col.n_unique = int(len(np.unique(valid)))
            col.minimum, col.maximum = value_text(valid.min().item()), value_text(valid.max().item())
        else:
            col.n_unique = 0
        return col, head
    if kind in ("m", "M"):
        head = s.head(n_head).tolist() if n_head else []
        nn = s.dropna()
        col.null_fraction = round(1 - len(nn) / total, 4) if total else None
        col.n_unique = int(nn.nunique())
        if len(nn):
            col.examples = _first_distinct(nn.head(200).tolist())
            col.minimum, col.maximum = value_text(nn.min()), value_text(nn.max())
        return col, head

    # Text, booleans, categories, mixed objects: Python lists and a Counter.
    every = s.tolist()
    head = every[:n_head]
    missing = s.isna().to_numpy()
    values = list(compress(every, ~missing)) if missing.any() else every
    n_nonnull = len(values)
    col.null_fraction = round(1 - n_nonnull / total, 4) if total else None
    if not n_nonnull:
        col.n_unique = 0
        return col, head
    col.examples = _first_distinct(values[:200])
    if _iso_dates(values[:20]):
        # Dates kept as text (ISO order sorts like time): their range is still useful.
        try:
            col.minimum, col.maximum = value_text(min(values)), value_text(max(values))
        except TypeError:
            pass
    _count_values(col, values)
    return col, head


def _count_values(col: ColumnProfile, values: list[Any]) -> None:
    """n_unique of a text-like column, and its most common values when it looks like a category."""
    try:
        counts = Counter(values)
    except TypeError:  # unhashable cells (lists, dicts from JSON)
        counts = Counter(value_text(v, 200) for v in values)
    col.n_unique = len(counts)
    if col.n_unique <= MAX_TOP_VALUES or col.n_unique <= 0.5 * len(values):
        top = [value_text(v) for v, _ in counts.most_common(MAX_TOP_VALUES)]
        if sum(len(t) for t in top) <= 60 * max(1, len(top)):  # long prose is not a category
            col.top_values = top


def _first_distinct(values: list[Any]) -> list[str]:
    wanted = MAX_EXAMPLES * 3
    try:
        # Most columns vary from row to row: their first rows hold enough distinct values.
        distinct = list(dict.fromkeys(values[: wanted * 3]))
        if len(distinct) < wanted:
            distinct = list(dict.fromkeys(values))
        values = distinct[:wanted]
    except TypeError:  # unhashable cells
        values = values[:50]
    seen: list[str] = []
    for v in values:
        t = value_text(v)
        if t not in seen:
            seen.append(t)
            if len(seen) >= MAX_EXAMPLES:
                break
    return seen


# -- plain Python columns ---------------------------------------------------------------
# What pandas.read_csv reads as missing by default.
PANDAS_NA = frozenset(
    "|#N/A|#N/A N/A|#NA|-1.#IND|-1.#QNAN|-NaN|-nan|1.#IND|1.#QNAN|<NA>|N/A|NA|NULL|NaN|None|n/a|nan|null".split("|")
)
_INT_COLUMN = re.compile(r"(?:[ \t]*[+-]?\d+[ \t]*\n)*[ \t]*[+-]?\d+[ \t]*")
_BOOL_TEXT = {"True": True, "TRUE": True, "true": True, "False": False, "FALSE": False, "false": False}
_INT64 = 2**63


def string_dtype() -> str:
    """How pandas names the dtype of a text column: "str" from pandas 3 on, "object" before."""
    global _STRING_DTYPE
    if _STRING_DTYPE is None:
        from importlib.metadata import version

        try:
            _STRING_DTYPE = "str" if int(version("pandas").split(".")[0]) >= 3 else "object"
        except Exception:  # noqa: BLE001 - no pandas metadata: the older name
            _STRING_DTYPE = "object"
    return _STRING_DTYPE


_STRING_DTYPE: str | None = None


@lru_cache(maxsize=64)
def _with_none(na: frozenset[str]) -> frozenset[str | None]:
    """The missing-value texts and None (a short row's cell): one hash lookup per cell tells both.

    (`None in cells` would compare every text with None, the slow way.)
    """
    return na | {None}


def parse_text_column(
    cells: list[str | None], na: frozenset[str] = PANDAS_NA, thousands: str | None = None, decimal: str = "."
) -> tuple[str, list[Any]]:
    """The dtype pandas.read_csv would infer for these cells, and the parsed values (None: missing)."""
    missing_marks = _with_none(na)
    if not missing_marks.isdisjoint(cells):
        values: list[Any] = [None if c in missing_marks else c for c in cells]
        present = [v for v in values if v is not None]
    else:
        values = present = cells
    if not present:
        return "float64", values
    conv = present
    if thousands:
        conv = [v.replace(thousands, "") for v in conv]
    if decimal != ".":
        conv = [v.replace(decimal, ".") for v in conv]
    missing = len(present) < len(values)
    joined = "\n".join(conv)
    digits = "".join(conv)
    # Plain ASCII digits: the usual integer column, told apart in C without the regex's backtracking.
    if (digits.isascii() and digits.isdigit() and all(conv)) or _INT_COLUMN.fullmatch(joined):
        nums: list[Any] = list(map(int, conv))
        if all(-_INT64 <= n < _INT64 for n in (min(nums), max(nums))):
            dtype = "float64" if missing else "int64"
            if missing:
                nums = [float(n) for n in nums]
            return dtype, _refill(values, nums)
    try:
        nums = list(map(float, conv))
    except ValueError:
        pass
    else:
        if "_" not in joined:  # Python reads 1_000; pandas does not
            return "float64", _refill(values, nums)
    if all(v in _BOOL_TEXT for v in present):
        return ("object" if missing else "bool"), _refill(values, [_BOOL_TEXT[v] for v in present])
    return string_dtype(), values


def _refill(values: list[Any], parsed: list[Any]) -> list[Any]:
    if len(parsed) == len(values):
        return parsed
    it = iter(parsed)
    return [None if v is None else next(it) for v in values]


_NONE_TYPE = type(None)


def typed_dtype(values: list[Any]) -> tuple[str, list[Any]]:
    """The dtype pandas would give a column of Python values (None/NaN: missing)."""
    types = set(map(type, values))  # one pass in C; the NaN scan below only for float columns
    if any(issubclass(t, float) for t in types):
        values = [None if (v is None or (isinstance(v, float) and v != v)) else v for v in values]
        types = set(map(type, values))
    missing = _NONE_TYPE in types
    types.discard(_NONE_TYPE)
    if not types:
        return "float64", values
    if types <= {int}:
        return ("float64" if missing else "int64"), values
    if types <= {int, float}:
        return "float64", values
    if types == {bool}:
        return ("object" if missing else "bool"), values
    if all(issubclass(t, datetime) for t in types):
        return "datetime64[ns]", values
    if types <= {str}:
        return string_dtype(), values
    return "object", values


def spread_indices(n: int, k: int = STATS_ROWS, head: int = HEAD_ROWS) -> list[int]:
    """k indices into n items: the first `head`, then evenly spread over the rest.

    Tables are often sorted by a category; the first rows alone would show only its first values.
    """
    if n <= k:
        return list(range(n))
    import numpy as np

    # step > 1, so the truncated multiples are distinct and rising (no set, no sort); numpy
    # computes the same doubles as Python, ~6x faster.
    step = (n - head) / (k - head)
    return list(range(head)) + (head + (np.arange(k - head) * step).astype(np.int64)).tolist()


def profile_values(
    names: list[str], dtypes: list[str], columns: list[list[Any]], n: int = HEAD_ROWS
) -> tuple[list[ColumnProfile], list[dict[str, Any]]]:
    """Column profiles and the first n rows, from parsed columns of equal length."""
    names = unique_names(names)
    profiles = [_profile_list(name, dtype, values) for name, dtype, values in zip(names, dtypes, columns)]
    return profiles, _records(names, [values[:n] for values in columns])


def profile_typed(names: list[str], columns: list[list[Any]]) -> tuple[list[ColumnProfile], list[dict[str, Any]]]:
    """profile_values for columns of Python values (spreadsheet cells, JSON), typed by typed_dtype."""
    typed = [typed_dtype(c) for c in columns]
    return profile_values(names, [dtype for dtype, _ in typed], [values for _, values in typed])


def _profile_list(name: str, dtype: str, values: list[Any]) -> ColumnProfile:
    col = ColumnProfile(name=name, dtype=dtype)
    # Most sampled columns have no gaps: `in` scans in C (cells are scalars, lists or dicts).
    present = [v for v in values if v is not None] if None in values else values
    total = len(values)
    col.null_fraction = round(1 - len(present) / total, 4) if total else None
    if not present:
        col.n_unique = 0
        return col
    col.examples = _first_distinct(present[:200])
    if dtype in ("int64", "float64") or dtype.startswith("datetime"):
        try:
            col.n_unique = len(set(present))
            col.minimum, col.maximum = value_text(min(present)), value_text(max(present))
        except TypeError:
            pass
        return col
    if dtype == string_dtype():
        if _iso_dates(present[:20]):  # dates kept as text: their range is still useful
            col.minimum, col.maximum = value_text(min(present)), value_text(max(present))
    _count_values(col, present)
    return col


# -- DataFrames ----------------------------------------------------------------------------
def profile_frame(df: "pd.DataFrame", n: int = HEAD_ROWS) -> tuple[list[ColumnProfile], list[dict[str, Any]]]:
    """Column profiles and the first n rows as JSON-safe records."""
    names = unique_names([str(c) for c in df.columns])
    columns, heads = [], []
    for name, (_, series) in zip(names, df.items()):
        col, head = _profile_series(name, series, n)
        columns.append(col)
        heads.append(head)
    return columns, _records(names, heads)


_PLAIN = frozenset({str, int, float, bool, type(None)})
_AS_IS = frozenset({int, bool, type(None)})  # JSON-safe whatever the value
_INFINITIES = (math.inf, -math.inf)


def _records(names: list[str], heads: list[list[Any]]) -> list[dict[str, Any]]:
    """Rows as JSON-safe records (NaN and infinities become null, long text is clipped)."""
    return [dict(zip(names, values)) for values in zip(*map(_json_safe_column, heads))]


def _json_safe_column(values: list[Any]) -> list[Any]:
    if _AS_IS.issuperset(map(type, values)):  # integer and flag columns: nothing to change
        return values
    return [_json_safe(v) for v in values]


def _json_safe(v: Any) -> Any:
    t = type(v)
    if t is str:
        return v if len(v) <= _MAX_CELL_CHARS else v[: _MAX_CELL_CHARS - 1] + "…"
    if t is float:
        return None if (v != v or v in _INFINITIES) else v
    return v if t in _PLAIN else json_value(v)


def unique_names(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for n in names:
        if n in seen:
            seen[n] += 1
            out.append(f"{n}.{seen[n]}")
        else:
            seen[n] = 0
            out.append(n)
    return out


def flatten_columns(df: "pd.DataFrame") -> "pd.DataFrame":
    """Multi-level column labels (HTML, JSON) as single strings."""
    import pandas as pd

    if isinstance(df.columns, pd.MultiIndex):
        df = df.copy()
        df.columns = [flat_label(c) for c in df.columns]
    return df


def flat_label(col: Any) -> str:
    if not isinstance(col, tuple):
        return str(col)
    parts: list[str] = []
    for p in col:
        s = str(p)
        if s.startswith("Unnamed:") or s in parts:
            continue
        parts.append(s)
    return " ".join(parts) or str(col[-1])
