"""Numbers written with a currency or percent sign ("$1,006M", "13%", "(£250)", "12,5 €").

pandas reads such a column as text, and every sum or mean over it fails. A delimited table's
profile finds the columns where each value is such a number, and its loader converts them with
`signed_numbers`, whose source it carries: the profile and the loaded frame agree by construction.
A percent stays in percent ("13%" is 13.0); a K, M or B after a currency amount scales it
("$55M" is 55,000,000.0), and so it does after every number of a column that uses K or B (NOAA's
storm damages, "10.00K", "1.50M"); brackets or a minus make it negative.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Any

from lakeboard.servers.profiling.column_stats import generic_marker, marker_shaped, missing_markers

if TYPE_CHECKING:
    import pandas as pd

_CURRENCIES = frozenset("$€£¥")
# a footnote's mark after a number, and a second one after it ("0.8 ! †")
FOOTNOTE_MARK = r"(?:[a-z]{1,2}(?:,[a-z]{1,2})*|\*{1,3}|[†‡!]|(?:\[\w{1,3}\])+|\([A-Za-z][a-z]{0,14}\))(?:\s?[*†‡!])?"


def signed_number(text: str, decimal: str = ".", bare_scale: bool = False) -> float | None:
    """`text` as a number if it is one, written with a currency or percent sign or none; else None.
    A scale letter counts only after a currency amount ("$55M"): a bare "12M" may be months;
    `bare_scale`: after any number (a column whose every number carries one, `scaled_column`)."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return float(text)  # a sheet's number cell, beside text cells written with marks
    if not isinstance(text, str):
        return None
    thousands = "," if decimal == "." else ". \u00a0\u202f"
    point = re.escape(decimal)
    m = re.match(
        r"^(?P<open>[-+\u2212(])?\s*(?P<lead>[$€£¥])?\s*(?P<minus>[-\u2212])?\s*"
        rf"(?P<whole>\d{{1,3}}(?:[{thousands}]\d{{3}})+|\d*)(?:{point}(?P<fraction>\d+))?"
        r"\s*(?P<scale>[KkMB]|bn)?\s*(?P<trail>[$€£¥%])?\s*(?P<close>\))?"
        # a footnote's mark ("791413a", "5,896*", a citation's "[2]", BJS's "1.3 !" and "0.8 ! †"); not
        # "+", which tops codes off ("3+" dependents, "250,000+")
        rf"(?:\s?{FOOTNOTE_MARK})?$",
        text.strip(),
    )
    if not m or not (m["whole"] or m["fraction"]) or (m["open"] == "(") != bool(m["close"]):
        return None
    if (m["lead"] and m["trail"]) or (m["scale"] and not bare_scale and not (m["lead"] or m["trail"] not in (None, "%"))):
        return None
    whole = re.sub(f"[{re.escape(thousands)}]", "", m["whole"])
    value = float((whole or "0") + "." + (m["fraction"] or "0"))
    value *= {"K": 1e3, "k": 1e3, "M": 1e6, "B": 1e9, "bn": 1e9}.get(m["scale"] or "", 1.0)
    return -value if m["open"] in ("-", "\u2212", "(") or m["minus"] else value


_NOTE_MARK = re.compile(rf"[\d)%]\s?{FOOTNOTE_MARK}$")


def _mark(text: str) -> str:
    if _NOTE_MARK.search(text.strip()):
        return "note"
    return "%" if "%" in text else "currency" if not _CURRENCIES.isdisjoint(text) else ""


_LONG_COMMA_FRACTION = re.compile(r"\d,\d{3}")


def signed_column(cells: list[Any], missing: frozenset[Any], decimal: str = ".",
                  plain: bool = False) -> tuple[list[Any], str, list[str]] | None:
    """A text column's cells as numbers, the decimal mark they use, and the marker-shaped texts
    among them taken for gaps ("n.a.", "-"). None unless the numbers outnumber the gaps, every
    other cell not in `missing` is a number, and all numbers but zeros carry one mark: a percent
    sign or a currency (a column of counts over percents keeps its text, which tells them apart),
    or some carry a footnote's mark after plain numbers ("791413a", "5,896*": the mark is dropped,
    the footnote stays in the table's notes).
    The table's decimal mark is tried first, then the other ("12,50 €" in a table with no other
    decimals). `plain`: numbers with no mark count too (a sheet's numbers kept as text, "76,678")."""
    for point in dict.fromkeys((decimal, "," if decimal == "." else ".")):
        if plain and point == "," and any(_LONG_COMMA_FRACTION.search(str(c)) for c in cells if c is not None):
            continue  # "998,993", "1008,1002" in a sheet's text: lists of numbers, or thousands; no decimals
        values: list[Any] = []
        gaps: list[str] = []
        marks: set[str] = set()
        noted = 0
        for cell in cells:
            text = None if cell is None or cell in missing else str(cell)
            number = signed_number(text, point) if text and text.strip() else None
            if number is None:
                if text and text.strip():
                    if not marker_shaped(text):
                        break
                    gaps.append(text)
                values.append(None)
                continue
            values.append(number)
            mark = _mark(text)
            noted += mark == "note"
            if number or mark:
                marks.add(mark)
        else:
            numbers = sum(v is not None for v in values)
            # footnote marks on a few numbers among plain ones: on most, they are codes ("12a", "12b")
            noted_ok = marks == {"", "note"} and noted * 2 <= numbers
            # amounts with and without a currency sign are amounts alike ("$1,234.56" among 1981.04)
            if numbers > len(gaps) and (marks <= {""} if plain else noted_ok if "note" in marks
                                        else marks in ({"%"}, {"currency"}, {"", "currency"})) and _gaps(gaps, values):
                return values, point, sorted(set(gaps))
    scaled = scaled_column(cells, missing)
    return (scaled, ".", []) if scaled is not None else None


def _gaps(gaps: list[str], values: list[Any]) -> bool:
    """The texts among the numbers are gaps: marks of no value ("-", "n.a."), or letters that read
    as a marker among measurements, as `missing_markers` takes them ("NR †" among estimates); a
    letter among a few repeated numbers may be a value ("T", a trace of rain)."""
    if all(generic_marker(g) for g in gaps):
        return True
    numbers = [v for v in values if v is not None]
    return bool(missing_markers(len(numbers), len(set(numbers)), Counter(gaps)))


_SCALED = re.compile(r"^-?\d+(?:\.\d+)?\s?([KMB])$")


def scaled_column(cells: list[Any], missing: frozenset[Any] = frozenset()) -> list[Any] | None:
    """A column whose every number carries a scale letter ("10.00K", "0.00K", "1.50M": NOAA's storm
    damages), as numbers; None unless K or B is among its letters (an "M" alone may be months)."""
    values: list[Any] = []
    letters: set[str] = set()
    for cell in cells:
        text = None if cell is None or cell in missing else str(cell).strip()
        if not text:
            values.append(None)
            continue
        m = _SCALED.match(text)
        if not m:
            return None
        letters.add(m.group(1))
        values.append(signed_number(text, bare_scale=True))
    return values if letters & {"K", "B"} else None


def signed_numbers(column: "pd.Series", decimal: str = ".") -> "pd.Series":
    """A loaded column of numbers written with signs, as numbers ("$1,006M" -> 1006000000,
    "13.5%" -> 13.5, "(250)" -> -250; whole numbers with no gap as integers); the column as it
    was if a cell is no such number."""
    numbers = column.map(lambda cell: signed_number(cell, decimal), na_action="ignore")
    if numbers.notna().sum() < column.notna().sum():  # scale letters on every number ("10.00K")
        numbers = column.map(lambda cell: signed_number(cell, decimal, bare_scale=True), na_action="ignore")
    if numbers.notna().sum() < column.notna().sum():
        return column
    numbers = numbers.astype("float64")
    whole = numbers.notna().all() and (numbers % 1 == 0).all()
    return numbers.astype("int64") if whole else numbers  # years stay whole ("2021p" is 2021)


def signed_dtype(values: list[Any]) -> str:
    """The dtype `signed_numbers` gives a column of these values (None: a gap)."""
    whole = all(v is not None and float(v).is_integer() for v in values)
    return "int64" if whole and values else "float64"
