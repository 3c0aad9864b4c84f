"""The time a file covers: from the dates in its name, else from its date columns.

Both come from the profile, so nothing is read again: names like `flux-3-20130401_to_20130410`
say it outright; otherwise the smallest and largest values of the columns that hold dates
or years bound the data (as far as the profiler's sample saw them).
"""

from __future__ import annotations

import calendar
import re
from datetime import date
from pathlib import PurePosixPath

from lakeboard.schemas.families import TimeCoverage
from lakeboard.schemas.profiles import ColumnProfile, FileProfile
from lakeboard.servers.time_vocabulary import TIME_COLUMN_WORDS, YEAR, YEAR_COLUMN_WORDS

_Y = rf"({YEAR})"
_M = r"(0[1-9]|1[0-2])"
_D = r"(0[1-9]|[12]\d|3[01])"
# a full date in a name: 20130401, 2013-04-01, 2013_04_01, 2013.04.01
DATE_IN_NAME = re.compile(rf"(?<!\d){_Y}([-_.]?){_M}\2{_D}(?!\d)")
MONTH_IN_NAME = re.compile(rf"(?<!\d){_Y}[-_.]?{_M}(?!\d)")
YEAR_IN_NAME = re.compile(rf"(?<!\d){_Y}(?!\d)")
_ISO_PREFIX = re.compile(rf"^\s*{_Y}(?:[-/.]{_M}(?:[-/.]{_D})?)?")


def dates_in(text: str) -> list[date]:
    out = []
    for m in DATE_IN_NAME.finditer(text):
        try:
            out.append(date(int(m.group(1)), int(m.group(3)), int(m.group(4))))
        except ValueError:
            continue
    return out


def month_end(y: int, m: int) -> date:
    return date(y, m, calendar.monthrange(y, m)[1])


def coverage_from_name(path: str) -> TimeCoverage | None:
    """The period a file name states: a date range, a date, a month or a single year."""
    stem = PurePosixPath(path).name
    found = dates_in(stem)
    if found:
        return TimeCoverage(start=min(found), end=max(found), source="name")
    months = [(int(m.group(1)), int(m.group(2))) for m in MONTH_IN_NAME.finditer(stem)]
    if len(months) == 1:
        y, mo = months[0]
        return TimeCoverage(start=date(y, mo, 1), end=month_end(y, mo), source="name")
    years = sorted({int(m.group(1)) for m in YEAR_IN_NAME.finditer(stem)})
    if years and len(years) <= 2:
        return TimeCoverage(start=date(years[0], 1, 1), end=date(years[-1], 12, 31), source="name")
    return None


def _as_date(value: str | None, *, end: bool) -> date | None:
    """A column's min or max as a date: ISO dates and datetimes, or a bare year."""
    if value is None:
        return None
    m = _ISO_PREFIX.match(str(value))
    if not m:
        return None
    y = int(m.group(1))
    if m.group(2) is None:
        # a bare number in YEAR_MIN..YEAR_MAX is a year only in a column named for years; checked by the caller
        return date(y, 12, 31) if end else date(y, 1, 1)
    mo = int(m.group(2))
    if m.group(3) is None:
        return month_end(y, mo) if end else date(y, mo, 1)
    try:
        return date(y, mo, int(m.group(3)))
    except ValueError:
        return None


def _is_time_column(col: ColumnProfile) -> bool:
    if "datetime" in col.dtype or "date" in col.dtype:
        return True
    name = col.name.lower()
    # inside the name: column names run words together ("birthdate", "fiscalyear")
    return any(w in name for w in TIME_COLUMN_WORDS)


def coverage_from_data(profile: FileProfile) -> TimeCoverage | None:
    """The span of a file's date or year columns, as far as the profile saw them."""
    starts: list[date] = []
    ends: list[date] = []
    for table in profile.tables:
        for col in table.columns:
            if not _is_time_column(col):
                continue
            lo = _as_date(col.minimum, end=False)
            hi = _as_date(col.maximum, end=True)
            if lo is None or hi is None or lo > hi:
                continue
            bare_years = re.fullmatch(r"\s*\d{4}(\.0)?\s*", str(col.minimum)) is not None
            if bare_years and not any(w in col.name.lower() for w in YEAR_COLUMN_WORDS):
                continue
            starts.append(lo)
            ends.append(hi)
    if not starts:
        return None
    return TimeCoverage(start=min(starts), end=max(ends), source="data")


def coverage_of(profile: FileProfile) -> TimeCoverage | None:
    """What the name and the data say together (`report_2024.csv` may hold 2019-2024)."""
    found = [c for c in (coverage_from_name(profile.path), coverage_from_data(profile)) if c is not None]
    if not found:
        return None
    return TimeCoverage(start=min(c.start for c in found), end=max(c.end for c in found), source=found[-1].source)
