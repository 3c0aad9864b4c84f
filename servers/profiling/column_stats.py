"""Column profiles and sample rows from a bounded DataFrame sample."""

from __future__ import annotations

import math
import re
from collections import Counter
from datetime import date, datetime, time
from typing import TYPE_CHECKING, Any

from schemas.profiles import ColumnProfile

if TYPE_CHECKING:
    import pandas as pd

_ISO_DATE = re.compile(r"^\d{4}-\d{2}(-\d{2})?([ T]\d{2}:\d{2}(:\d{2})?)?")
MAX_TOP_VALUES = 30
MAX_EXAMPLES = 5
SAMPLE_ROWS = 20
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


def _is_textual(dtype: Any) -> bool:
    kind = getattr(dtype, "kind", "O")
    name = str(dtype)
    return kind in ("O", "U", "S", "b") or name in ("str", "string", "category", "bool", "boolean") or name.startswith(
        "string"
    )


def profile_column(name: str, s: "pd.Series") -> ColumnProfile:
    total = len(s)
    col = ColumnProfile(name=name, dtype=str(s.dtype))
    textual = _is_textual(s.dtype)
    if textual:
        # Python's Counter beats pandas on a few thousand strings (and arrow-backed dropna is slow).
        values = [v for v in s.tolist() if v is not None and v == v]
    else:
        values = None
        n_nonnull = int(total - s.isna().sum())
    n_nonnull = len(values) if values is not None else n_nonnull
    col.null_fraction = round(1 - n_nonnull / total, 4) if total else None
    if not n_nonnull:
        col.n_unique = 0
        return col
    if values is None:
        head = [v for v in s.head(200).tolist() if v is not None and v == v]
        col.examples = _first_distinct(head)
        try:
            col.n_unique = int(s.nunique())
        except TypeError:
            col.n_unique = len({value_text(v, 200) for v in s.dropna().tolist()})
        if getattr(s.dtype, "kind", "") in "iufmM":
            try:
                col.minimum, col.maximum = value_text(s.min()), value_text(s.max())
            except (TypeError, ValueError):
                pass
        return col
    col.examples = _first_distinct(values[:200])
    if all(isinstance(v, str) and _ISO_DATE.match(v) for v in values[:20]):
        # Dates kept as text (ISO order sorts like time): their range is still useful.
        try:
            col.minimum, col.maximum = value_text(min(values)), value_text(max(values))
        except TypeError:
            pass
    try:
        counts = Counter(values)
    except TypeError:  # unhashable cells (lists, dicts from JSON)
        counts = Counter(value_text(v, 200) for v in values)
    col.n_unique = len(counts)
    if col.n_unique <= MAX_TOP_VALUES or col.n_unique <= 0.5 * n_nonnull:
        top = [value_text(v) for v, _ in counts.most_common(MAX_TOP_VALUES)]
        if sum(len(t) for t in top) <= 60 * max(1, len(top)):  # long prose is not a category
            col.top_values = top
    return col


def _first_distinct(values: list[Any]) -> list[str]:
    try:
        values = list(dict.fromkeys(values))[: MAX_EXAMPLES * 3]
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


def profile_columns(df: "pd.DataFrame") -> list[ColumnProfile]:
    names = unique_names([str(c) for c in df.columns])
    return [profile_column(n, series) for n, (_, series) in zip(names, df.items())]


_PLAIN = (str, int, float, bool, type(None))


def sample_records(df: "pd.DataFrame", n: int = SAMPLE_ROWS) -> list[dict[str, Any]]:
    """The first rows as JSON-safe records."""
    names = unique_names([str(c) for c in df.columns])
    columns = [s.head(n).tolist() for _, s in df.items()]
    rows = []
    for values in zip(*columns):
        row = {}
        for k, v in zip(names, values):
            if type(v) in _PLAIN:
                if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
                    v = None
                elif isinstance(v, str) and len(v) > _MAX_CELL_CHARS:
                    v = v[: _MAX_CELL_CHARS - 1] + "…"
            else:
                v = json_value(v)
            row[k] = v
        rows.append(row)
    return rows


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
