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

from lakeboard.schemas.profiles import STATS_ROWS, ColumnProfile

if TYPE_CHECKING:
    import pandas as pd

_ISO_DATE = re.compile(r"^\d{4}-\d{2}(-\d{2})?([ T]\d{2}:\d{2}(:\d{2})?)?")


def _iso_dates(values: list[Any]) -> bool:
    """Every value is text starting with an ISO date (dates kept as text sort like time)."""
    return all(_ISO_DATE.match(v) if isinstance(v, str) else False for v in values)

MAX_TOP_VALUES = 30
MAX_EXAMPLES = 5
HEAD_ROWS = 20  # first rows kept in order: a profile's sample rows
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


def attribute_text(value: Any, limit: int = _MAX_VALUE_CHARS) -> str:
    """A file's metadata attribute (HDF5, NetCDF ...) as one line: bytes decoded, arrays and lists
    joined by spaces (as many as `limit` characters can show), lone surrogates made U+FFFD."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, list):
        value = " ".join(str(_decoded(v)) for v in value[:limit])
    return value_text(_decoded(value), limit)


def _decoded(v: Any) -> Any:
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, str):  # h5py keeps undecodable bytes as lone surrogates: they are no text
        return v.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return v


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
        # Python reads 1_000, and "NAN" as a NaN; pandas reads neither (a logger's "NAN" is a marker)
        if "_" not in joined and "nan" not in joined.lower():
            return "float64", _refill(values, nums)
    if all(v in _BOOL_TEXT for v in present):
        return ("object" if missing else "bool"), _refill(values, [_BOOL_TEXT[v] for v in present])
    return string_dtype(), values


# -- values that mean "no value" -------------------------------------------------------------
# Words that say "no value" whatever the column: taken at any share below half the column.
_MISSING_WORDS = frozenset(
    "na n.a. n/a nd n.d. n/d nan null none missing miss unk unknown void empty blank nil undefined suppressed "
    "redacted withheld undetermined".split()
) | frozenset(("not available", "not applicable", "no data", "not reported", "not recorded", "not measured"))


def missing_word(text: str) -> bool:
    """A word that says "no value", also in brackets as clinical exports write it ("[Not Available]"),
    and in angle brackets as GIS exports do ("<Null>")."""
    s = text.strip().lower()
    if s[:1] in "[(<" and s[-1:] in "])>":
        s = s[1:-1].strip()
    return s in _MISSING_WORDS


def missing_phrase(text: str) -> bool:
    """A missing word no header would be named: several words, or written with dots, slashes or
    brackets ("not available", "n.d.", "[Not Applicable]"); not a bare "Unknown" or "None"."""
    s = text.strip()
    return missing_word(s) and not s.isalpha()


_FOOTNOTE_REFERENCE = re.compile(r"^\[\d{1,2}\]$")  # "[1]" in place of a number: see footnote 1 (IRS SOI)
_SPREADSHEET_ERROR = re.compile(r"^#(?:VALUE!|N/A|DIV/0!|REF!|NUM!|NAME\?|NULL!|GETTING_DATA|SPILL!|CALC!|FIELD!)$", re.I)


_TRAILING_DAGGERS = re.compile(r"\s*[†‡]+$")


def marker_shaped(text: str) -> bool:
    """A token that reads as "no value" rather than as a value or a label: punctuation ("-", "..",
    "*"), a spreadsheet error ("#VALUE!"), a missing word ("n.a.", "null"), or one or two letters
    with dots, slashes or brackets ("M", "x", "NA", "(D)"), or a footnote's number in brackets
    ("[1]"). Never another token holding a digit ("<0.5", "12a" are values written another way)
    or a space."""
    s = text.strip()
    if missing_word(s):
        return True
    s = _TRAILING_DAGGERS.sub("", s) or s  # "NR †": a marker with its footnote's dagger
    if not s or " " in s:
        return False
    if _SPREADSHEET_ERROR.match(s) or _FOOTNOTE_REFERENCE.match(s) or _BRACKETED_SYMBOL.match(s):
        return True
    if len(s) > 8 or any(ch.isdigit() for ch in s):
        return False
    letters = [ch for ch in s if ch.isalpha()]
    rest = [ch for ch in s if not ch.isalpha()]
    return len(letters) <= 2 and all(ch in "-–—.*/?:()[]_~+!†‡" for ch in rest)


_BRACKETED_SYMBOL = re.compile(r"^\[[a-z]{1,3}\]$", re.IGNORECASE)  # "[x]", "[c]", "[low]": UK official statistics


def generic_marker(token: str) -> bool:
    """A marker in any column: no letters to be a code, a word that says "missing", or a few
    letters in square brackets (the symbol a statistics office writes in place of a value: a code
    that stands for a value is written bare, "K", "T")."""
    s = token.strip()
    return (not any(ch.isalpha() for ch in s) or missing_word(s) or bool(_SPREADSHEET_ERROR.match(s))
            or bool(_BRACKETED_SYMBOL.match(s)))


def missing_markers(n_numbers: int, n_distinct: int, tokens: Counter[str]) -> list[str]:
    """The tokens of a column that mark missing values: what pandas' na_values should add so that
    the column loads as numbers. Empty unless every token is one.

    `n_numbers` cells of the column read as numbers (`n_distinct` distinct ones), `tokens` counts
    its other non-empty cells (pandas' own missing texts left out). A token is a marker when
    - the column is a numeric one: more than half its non-empty cells are numbers (else it is a
      text column that holds some numbers, and stays text), or its tokens are punctuation only;
    - the tokens are few (at most 3 distinct: "missing", "not applicable", "suppressed" is as
      many kinds of absence as tables declare; more are labels), or 5 where one is punctuation;
    - each one is marker-shaped (`marker_shaped`);
    - and it is not a real category. A letter token can be a code that stands for a value ("K"
      for kindergarten among grades 1-12, "T" for a trace of rain): such a code sits in a column
      of a few repeated numbers (codes), while a marker interrupts measurements, which rarely
      repeat exactly. So a letter token that is not a missing word is taken only when the numbers
      look like measurements (at least half of them distinct, or more than 20 distinct values),
      and when it covers at most a fifth of the column's non-empty cells: a code covering more is
      one of the column's main values, not a gap to skip.
    """
    punctuation = any(not any(ch.isalnum() for ch in t) for t in tokens)
    # a statistics office's legend has up to five symbols ("..", "...", "x", "F", "E": Statistics
    # Canada); among so many, one at least is punctuation, which names no category
    if not tokens or len(tokens) > (5 if punctuation else 3):
        return []
    # punctuation ("..", ":", "-") names nothing: it marks gaps at any share (a statistics office's
    # latest year, mostly not yet published; a prison's women's column, "–" but in three rows), as
    # does a phrase no category is named ("n.d.", "not available"); other words and letters only
    # while numbers are the most
    unnamed = all(not any(ch.isalnum() for ch in t) or missing_phrase(t) for t in tokens)
    if n_numbers < (1 if unnamed else 3):
        return []
    filled = n_numbers + sum(tokens.values())
    if n_numbers * 2 <= filled and not unnamed:
        return []
    if not all(marker_shaped(t) for t in tokens):
        return []
    coded = [t for t in tokens if not generic_marker(t)]
    if coded:
        if not (n_distinct * 2 >= n_numbers or n_distinct > 20):
            return []
        if any(tokens[t] * 5 > filled for t in coded):
            return []
    return sorted(tokens, key=lambda t: (-tokens[t], t))


def table_markers(found: list[tuple[int, int, Counter[str], list[str]]]):
    """From each column's (numbers, distinct numbers, other tokens, markers found in it), a test of
    another column of the table: its tokens are markers when every one is a marker of some other
    column of numbers. A table marks its gaps one way ("X" = not applicable in every state's
    column), though a column where the mark is most of the cells would not show it on its own.
    A letter code spreads only to a column of measurements, as `missing_markers` takes one: in a
    column of a few repeated numbers it may stand for a value ("T", a trace of snow)."""
    marks = {t for n, _, _, markers in found if n for t in markers}

    def test(n_numbers: int, n_distinct: int, tokens: Counter[str]) -> list[str]:
        if not (n_numbers and tokens and set(tokens) <= marks):
            return []
        measured = n_distinct * 2 >= n_numbers or n_distinct > 20
        if not measured and not all(generic_marker(t) for t in tokens):
            return []
        return sorted(tokens, key=lambda t: (-tokens[t], t))

    return test


def text_markers(tokens: Counter[str]) -> list[str]:
    """Tokens that mark a missing value in a text column, which stays text:
    - a phrase that says "missing" and could name nothing else ("(null)", "n.d.", "[Not
      Available]", `missing_phrase`), at any share;
    - punctuation ("?", "-", ".."): such a token names nothing among words, so reading it as
      missing loses nothing (brackets and quotes are left alone: "[]" is an empty list, not a
      gap). Only in a real text column (at least 3 other distinct values of words, four
      characters or more: among short codes, as alleles A, C, G, T, "-" is a value, a deletion)
      and while it stays a minority of the cells."""
    phrases = [t for t in tokens if missing_phrase(t)]
    marks = [t for t in tokens if t.strip() and len(t.strip()) <= 3 and all(ch in " ?-–—.*/_~" for ch in t)]
    words = sum(1 for t in tokens if len(t.strip()) >= 4 and any(ch.isalpha() for ch in t) and t not in phrases)
    if not marks or words < 3 or sum(tokens[t] for t in marks) * 2 >= sum(tokens.values()):
        marks = []
    return sorted(phrases + marks, key=lambda t: (-tokens[t], t))


# A line that is not a plain number (loosely: thousands and decimal commas pass): C-speed pre-filter.
_NOT_A_NUMBER_LINE = re.compile(r"^(?![ \t]*[-+]?(?:\d[\d,. ]*|[.,]\d+)(?:[eE][-+]?\d+)?[ \t]*$).*\S.*$", re.M)


def numbers_and_tokens(cells: list[Any], na: frozenset[Any], thousands: str | None = None,
                       decimal: str = ".") -> tuple[int, int, Counter[str]]:
    """A column's cells as (how many are numbers, how many distinct ones, counts of the other
    non-empty texts), `na` left out. The distinct texts are told apart in one regex pass; only
    those it flags are tried as numbers (columns of a whole file's head are many cells)."""
    counts = Counter(cells)
    counts.pop(None, None)
    for mark in na.intersection(counts):
        del counts[mark]
    tokens: Counter[str] = Counter()
    if not set(map(type, counts)) <= {str}:  # spreadsheet cells: few, typed
        n_numbers = n_distinct = 0
        for cell, n in counts.items():
            if isinstance(cell, bool) or not isinstance(cell, (int, float, str)):
                tokens[str(cell)] += n
            elif isinstance(cell, str):
                if cell.strip():
                    tokens[cell] += n  # a sheet's text cell is text, whatever it spells
            else:
                n_numbers += n
                n_distinct += 1
        return n_numbers, n_distinct, tokens
    joined = "\n".join(counts).replace("\r", " ")
    blank = {m.group(0) for m in _BLANK_LINE.finditer(joined)}
    n_values = sum(counts.values()) - sum(counts[t] for t in blank if t in counts)
    n_distinct = len(counts) - len(blank & counts.keys())
    for text in {m.group(0) for m in _NOT_A_NUMBER_LINE.finditer(joined)}:
        if text not in counts:
            continue  # a piece of a cell that holds a line break
        conv = text.replace(thousands, "") if thousands else text
        if decimal != ".":
            conv = conv.replace(decimal, ".")
        if not is_number_text(conv):
            tokens[text] += counts[text]
    if joined.count("\n") >= len(counts):  # cells holding line breaks (quoted in the file): text
        for text in counts:
            if "\n" in text and text.strip():
                tokens[text] += counts[text]
    n_tokens = sum(tokens.values())
    return n_values - n_tokens, n_distinct - len(tokens), tokens


_BLANK_LINE = re.compile(r"^[ \t]*$", re.M)


def zero_padded_codes(cells: list[Any], na: frozenset[str] = PANDAS_NA) -> bool:
    """Whole numbers written as codes: all of one width, three digits or more, some with a leading
    zero ("01001", "003", "0010"), as zip, FIPS and station codes are. Two digits ("01" … "12")
    are months, days and hours as often as codes, and stay numbers; so does a column of years
    with one typed short ("038")."""
    present = [c for c in cells if c is not None and c not in na]
    width = len(present[0]) if present else 0
    return (width >= 3 and any(c[0] == "0" for c in present)
            and all(len(c) == width and c.isascii() and c.isdigit() for c in present))


def without_numbers(dtype: str, values: list[Any], drop: list[float]) -> tuple[str, list[Any]]:
    """A parsed numeric column with the values equal to a fill value read as missing (int becomes float)."""
    if not drop or dtype not in ("int64", "float64"):
        return dtype, values
    gone = frozenset(drop)
    if gone.isdisjoint(v for v in values if v is not None):
        return dtype, values
    kept = [None if v is not None and v in gone else v for v in values]
    return "float64", [float(v) if v is not None else None for v in kept]


def _nines(v: float) -> bool:
    """-9999, 999, 99999.9, 9999.99: a number written with nines only; or one digit repeated
    six times or more (-666666666, -222222222: the Census Bureau's codes for no estimate)."""
    digits = repr(abs(v)).rstrip("0").rstrip(".").replace(".", "")
    return (len(digits) >= 2 and set(digits) == {"9"}) or (len(digits) >= 6 and len(set(digits)) == 1)


def fill_value_suspects(values: list[Any]) -> list[tuple[float, tuple[float, float]]]:
    """Numbers of a numeric column that look like fill values: a sentinel magnitude (nines such as
    -9999 or 99999.9, or beyond 1e20 such as 1e30) lying far outside the column's other values
    (more than twice their span, and more than half their size, from the nearest of them).
    Each with the range of the other values."""
    present = [float(v) for v in values if v is not None and not isinstance(v, bool)]
    distinct = set(present)
    suspects = sorted(v for v in distinct if math.isfinite(v) and (_nines(v) or abs(v) >= 1e20))
    if not suspects:
        return []
    others = [v for v in distinct if v not in suspects]
    if len(others) < 2:
        return []
    lo, hi = min(others), max(others)
    span, size = hi - lo, max(abs(lo), abs(hi))
    out = []
    for v in suspects:
        gap = lo - v if v < lo else v - hi if v > hi else 0.0
        if gap > 2 * span and gap > 0.5 * size:
            out.append((v, (lo, hi)))
    return out


FILL_VALUE_NOTE = "fill value"


def certain_fill(value: float, values: list[Any]) -> bool:
    """A suspected fill value (`fill_value_suspects`) that no value of its column could be, read
    as missing: beyond 1e20 (-1e31), among numbers with fractions (99.00 among wave heights,
    999.9 among wind speeds), negative with three digits or more (-9999, -99999), or ten times
    the largest of the others (9999999 among plasma temperatures). Nearer whole numbers may be
    values: a top code (census incomes capped at 99999), a storm's -99 nT among quiet hours."""
    others = [abs(float(v)) for v in values if v is not None and not isinstance(v, bool) and float(v) != value]
    if abs(value) >= 1e20 or not others or any(not v.is_integer() for v in others):
        return True
    return (value < 0 and abs(value) >= 100) or abs(value) >= 10 * max(others)


def fill_value_note(column: str, value: float, others: tuple[float, float], label: Any, applied: bool) -> str:
    """The note a table's profile carries for a suspected fill value (the loader shows it as a comment)."""
    shown = value_text(value)
    where = f"column {column!r} holds {shown}, far outside its other values ({value_text(others[0])} to {value_text(others[1])})"
    if applied:
        return f"{FILL_VALUE_NOTE} read as missing: {where}; the loader reads it as NaN (take it out of the loader's missing values to keep it)"
    return (f"{FILL_VALUE_NOTE}, possibly: {where}; if it means no data, add na_values={{{label!r}: [{shown}]}} to the "
            f"read call (or df[{label!r}].mask(df[{label!r}] == {shown}))")


def fill_values_of(name: str, label: Any, values: list[Any]) -> tuple[list[float], list[str]]:
    """A numeric column's fill values read as missing (`certain_fill`), and the notes of all its
    suspected ones."""
    found, notes = [], []
    for value, others in fill_value_suspects(values):
        applied = certain_fill(value, values)
        found += [value] if applied else []
        notes.append(fill_value_note(name, value, others, label, applied))
    return found, notes


def frame_fill_values(df: "pd.DataFrame") -> tuple[dict[Any, list[str]], list[str]]:
    """The fill values read as missing of a frame's numeric columns, by the labels the loader's
    frame has, as na_values take them, and the notes of all suspected ones."""
    found: dict[Any, list[str]] = {}
    notes = []
    for name, (label, series) in zip(unique_names([str(c) for c in df.columns]), df.items()):
        if series.dtype.kind in "iuf":
            fills, said = fill_values_of(name, label, series.dropna().tolist())
            if fills:
                found[label] = [value_text(v) for v in fills]
            notes += said
    return found, notes


# a decimal comma too ("<0,5"), as exports of a European locale write it
_LIMIT = re.compile(r"^\s*(?:<=?|>=?|≤|≥)\s*[-+]?(?:\d+[.,]?\d*|[.,]\d+)(?:[eE][-+]?\d+)?\s*$")


def limit_cell(v: Any) -> bool:
    """A number written under or over a limit: "<0.5" (below detection), "> 100", "≤2", "<0,5"."""
    return isinstance(v, str) and bool(_LIMIT.match(v))


def censored_note(column: str, cells: list[Any], na: frozenset[Any] = frozenset()) -> str | None:
    """The note for a column of numbers some of which are written under or over a limit ("<0.5",
    ">100": below detection, above a scale), which pandas reads as text; None for another column.
    The limits are not missing values: they say something of the value, so they are not dropped."""
    limits = [c for c in cells if limit_cell(c)]
    if not limits:
        return None
    others = [c for c in cells if c is not None and c not in na and not limit_cell(c)]
    numbers = [c for c in others if isinstance(c, (int, float)) and not isinstance(c, bool)
               or isinstance(c, str) and is_number_text(c)]
    if len(numbers) < len(others) or len(numbers) < len(limits):
        return None
    shown = ", ".join(repr(v) for v in list(dict.fromkeys(c.strip() for c in limits))[:3])
    return (f"{column!r}: {len(limits)} of {len(limits) + len(numbers)} numbers are limits ({value_text(shown, 40)}), so "
            "it loads as text; to_numeric(errors='coerce') makes them NaN")


def is_number_text(text: str) -> bool:
    """A number as pandas reads one: what float() reads, but a NaN ("NAN" is text to pandas)."""
    try:
        float(text)
    except ValueError:
        return False
    return "nan" not in text.lower()


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
def as_numbers(df: "pd.DataFrame") -> "pd.DataFrame":
    """Each column as numbers where every value reads as one, for readers whose format holds only
    text (XML, records split by hand); their generated loaders do the same."""
    import pandas as pd

    for name in df.columns:
        try:
            df[name] = pd.to_numeric(df[name])
        except (ValueError, TypeError):
            pass  # a text column
    return df


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


def unique_name(name: str, taken: set[str]) -> str:
    """`name`, or `name_2`, `name_3` ... when taken (tables of one file that share a name); now taken."""
    out, n = name, 2
    while out in taken:
        out, n = f"{name}_{n}", n + 1
    taken.add(out)
    return out


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
