"""What a request restricts: periods of time, months of the year, and numbers that may be ids.

Lakes split one dataset into many files on time, place or id (`inspections-2001.csv`,
`rainfall_<town>.csv`, `readings/80412.dat`). Words alone cannot tell those files apart;
the request's constraints can. This module reads them from the request's text:

- years and year ranges: "in 2012", "2005 to 2016 (inclusive)", "between 2005 and 2016",
  "since 2019", "before 2010", "the 1990s";
- months and seasons: "June, July and August", "summer", "Q3", with or without a year;
- dates and date ranges: "2013-04-05", "5 April 2013", "April 1 to April 10, 2016";
- numbers that are not years or dates: candidate ids ("sensor 80412").

Names (towns, sites) are matched against a family's member values where the family is
known, not parsed here: any word can be a name.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, field
from collections.abc import Collection, Sequence
from datetime import date
from typing import Protocol

from lakeboard.servers.time_vocabulary import YEAR

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
_SEASONS = {  # the northern meteorological seasons, the usual reading
    "spring": (3, 4, 5), "summer": (6, 7, 8), "autumn": (9, 10, 11), "fall": (9, 10, 11),
    "winter": (12, 1, 2),
}
_QUARTERS = {"q1": (1, 2, 3), "q2": (4, 5, 6), "q3": (7, 8, 9), "q4": (10, 11, 12)}
# the open end of "since 2019": later than any data
_FAR_FUTURE = date(9999, 12, 31)
_FAR_PAST = date(1, 1, 1)

_MONTH_NAME = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"

# One point or span of time, most specific forms first. Each alternative is a named group.
_WHEN = re.compile(
    rf"""(?ix)
    (?<![\w.])(?:
        (?P<drd1>{_DAY})\s*(?:-|–|to|and|until|till|through)\s*(?P<drd2>{_DAY})\s+(?:of\s+)?(?P<drm>{_MONTH_NAME})\.?,?\s+(?P<dry>{YEAR})
      | (?P<rdm>{_MONTH_NAME})\.?\s+(?P<rdd1>{_DAY})\s*(?:-|–|to|until|till|through)\s*(?P<rdd2>{_DAY}),?\s+(?P<rdy>{YEAR})
      | (?P<sy1>{YEAR})[-/](?P<sy2>\d\d)(?![\d/.-])
      | (?P<iso>{YEAR})[-/.](?P<iso_m>0?[1-9]|1[0-2])(?:[-/.](?P<iso_d>0?[1-9]|[12]\d|3[01]))?(?![\d])
      | (?P<compact>{YEAR})(?P<compact_m>0[1-9]|1[0-2])(?P<compact_d>0[1-9]|[12]\d|3[01])?(?!\d)
      | (?P<dmy_d>{_DAY})\s+(?:of\s+)?(?P<dmy_m>{_MONTH_NAME})\.?,?\s+(?P<dmy_y>{YEAR})
      | (?P<mdy_m>{_MONTH_NAME})\.?\s+(?P<mdy_d>{_DAY})(?:,?\s+(?P<mdy_y>{YEAR}))?(?![\d:])
      | (?P<my_m>{_MONTH_NAME})\.?,?\s+(?:of\s+)?(?P<my_y>{YEAR})
      | (?P<decade>(?={YEAR})\d\d\d0)'?s
      | (?P<year>{YEAR})
      | (?P<month>{_MONTH_NAME})
    )(?![\w])
    """
)
_RANGE_WORD = re.compile(r"(?i)^\s*(?:-|–|—|to|through|thru|until|till|and|up\s+to)\s*$")
_OPEN_BEFORE = re.compile(r"(?i)\b(?:since|after|from|starting(?:\s+in)?|beginning(?:\s+in)?)\s*$")
_AFTER = re.compile(r"(?i)\bafter\s*$")
_CLOSE_BEFORE = re.compile(r"(?i)\b(?:before|until|till|up\s+to|through|prior\s+to)\s*$")
_BEFORE = re.compile(r"(?i)\b(?:before|prior\s+to)\s*$")
_NUMBER = re.compile(r"(?<![\w.])(\d[\d,]*\d|\d)(?![\w.]|\.\d)")
_SEASON_WORD = re.compile(r"(?i)\b(spring|summer|autumn|fall|winter|q[1-4]|(?:first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter)s?\b")
_ORDINAL_QUARTER = {"first": "q1", "1st": "q1", "second": "q2", "2nd": "q2", "third": "q3", "3rd": "q3", "fourth": "q4", "4th": "q4"}


@dataclass(frozen=True)
class Period:
    """A span of days, both ends included, and the request's words for it."""

    start: date
    end: date
    text: str


@dataclass
class Constraints:
    periods: list[Period] = field(default_factory=list)  # the request needs any of these
    months: set[int] = field(default_factory=set)  # months of the year, when named without a year
    numbers: list[str] = field(default_factory=list)  # as written, years and dates left out
    # where the request's text names a time (a year, a date, a month, a season)
    time_spans: list[tuple[int, int]] = field(default_factory=list)

    @property
    def has_time(self) -> bool:
        return bool(self.periods or self.months)

    def covers(self, start: date, end: date) -> bool:
        """Whether data covering start..end meets the requested time (True with none)."""
        return time_fits(self.periods, self.months, start, end)

    def without_time(self, text: str) -> str:
        """The request's text with its mentions of time blanked: what is left says what
        data it needs; the time is matched against coverage instead."""
        chars = list(text)
        for a, b in self.time_spans:
            chars[a:b] = " " * (b - a)
        return "".join(chars)

class Span(Protocol):
    start: date
    end: date


def time_fits(periods: Sequence[Span], months: Collection[int], start: date, end: date) -> bool:
    """Whether data covering start..end meets a request's periods (any of them) and months of
    the year (in the part of the data a period takes); True when the request names no time."""
    overlapping = [p for p in periods if p.start <= end and start <= p.end]
    if periods and not overlapping:
        return False
    if months:
        spans = [(max(p.start, start), min(p.end, end)) for p in overlapping] or [(start, end)]
        return any(_has_month(a, b, set(months)) for a, b in spans)
    return True


def _has_month(start: date, end: date, months: set[int]) -> bool:
    if (end.year - start.year) * 12 + end.month - start.month >= 11:
        return True
    y, m = start.year, start.month
    while (y, m) <= (end.year, end.month):
        if m in months:
            return True
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return False


@dataclass(frozen=True)
class _Point:
    """One mention of time: the span it names, where it stands, and how precise it is."""

    start: date
    end: date
    at: int
    stop: int
    precision: str  # "day", "month", "year", "decade", "month-of-year"
    month: int | None = None  # for a bare month name
    day: int | None = None  # for "April 5" with no year yet


def _month_end(y: int, m: int) -> date:
    return date(y, m, calendar.monthrange(y, m)[1])


def _day(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


def _month_number(word: str) -> int:
    return _MONTHS[word.lower().rstrip(".")[:3] if word.lower()[:4] != "sept" else "sept"]


def _points(text: str) -> list[_Point]:
    out: list[_Point] = []
    for m in _WHEN.finditer(text):
        g = m.groupdict()
        at, stop = m.start(), m.end()
        if g["drd1"] or g["rdm"]:
            y, mo = int(g["dry"] or g["rdy"]), _month_number(g["drm"] or g["rdm"])
            first, last = (int(re.match(r"\d+", g[k]).group()) for k in (("drd1", "drd2") if g["drd1"] else ("rdd1", "rdd2")))
            a, b = _day(y, mo, first), _day(y, mo, last)
            if a and b and a <= b:
                out.append(_Point(a, b, at, stop, "days"))
        elif g["sy1"]:
            y1 = int(g["sy1"])
            if int(g["sy2"]) != (y1 + 1) % 100:  # "2023/24" is a span; "2023-13" is nothing
                continue
            out.append(_Point(date(y1, 1, 1), date(y1 + 1, 12, 31), at, stop, "year-span"))
        elif g["iso"] or g["compact"]:
            y = int(g["iso"] or g["compact"])
            mo = int(g["iso_m"] or g["compact_m"])
            d = g["iso_d"] or g["compact_d"]
            if d:
                day = _day(y, mo, int(d))
                if day:
                    out.append(_Point(day, day, at, stop, "day"))
            else:
                out.append(_Point(date(y, mo, 1), _month_end(y, mo), at, stop, "month"))
        elif g["dmy_d"] or g["mdy_m"]:
            d = int(re.match(r"\d+", g["dmy_d"] or g["mdy_d"]).group())
            mo = _month_number(g["dmy_m"] or g["mdy_m"])
            y = g["dmy_y"] or g["mdy_y"]
            if y:
                day = _day(int(y), mo, d)
                if day:
                    out.append(_Point(day, day, at, stop, "day"))
            else:
                out.append(_Point(_FAR_PAST, _FAR_FUTURE, at, stop, "day-of-year", month=mo, day=d))
        elif g["my_m"]:
            y, mo = int(g["my_y"]), _month_number(g["my_m"])
            out.append(_Point(date(y, mo, 1), _month_end(y, mo), at, stop, "month"))
        elif g["decade"]:
            y = int(g["decade"])
            out.append(_Point(date(y, 1, 1), date(y + 9, 12, 31), at, stop, "decade"))
        elif g["year"]:
            y = int(g["year"])
            out.append(_Point(date(y, 1, 1), date(y, 12, 31), at, stop, "year"))
        elif g["month"]:
            word = g["month"]
            # "may" and "march" are also verbs; a lower-case one is taken as a month only
            # when it stands next to another month or a time word
            if word.lower() in ("may", "march") and word.islower():
                continue
            out.append(_Point(_FAR_PAST, _FAR_FUTURE, at, stop, "month-of-year", month=_month_number(word)))
    return out


def _complete(p: _Point, year: int) -> _Point:
    """A month or day named without a year, placed in `year`."""
    if p.precision == "month-of-year":
        return _Point(date(year, p.month, 1), _month_end(year, p.month), p.at, p.stop, "month")
    if p.precision == "day-of-year":
        day = _day(year, p.month, p.day) or _month_end(year, p.month)
        return _Point(day, day, p.at, p.stop, "day")
    return p


def parse_constraints(text: str) -> Constraints:
    points = _points(text)
    out = Constraints()
    used: set[int] = set()
    range_months: set[int] = set()
    # ranges: two mentions joined by "to", "-", "through", "and" (after "between"/"from")
    i = 0
    while i < len(points):
        a = points[i]
        b = points[i + 1] if i + 1 < len(points) else None
        joined = b is not None and _RANGE_WORD.match(text[a.stop : b.at])
        if joined and text[a.stop : b.at].strip().lower() == "and":
            # "2011 and 2012" is two years; "between 2011 and 2012" is a range
            joined = re.search(r"(?i)\b(between|from)\s*$", text[max(0, a.at - 12) : a.at]) is not None
        if joined and a.precision == b.precision == "month-of-year":
            # "December to February": every month from one to the other, across the new year
            m, months_between = a.month, []
            while True:
                months_between.append(m)
                if m == b.month or len(months_between) > 12:
                    break
                m = m % 12 + 1
            range_months.update(months_between)
            used |= {i, i + 1}
            i += 2
            continue
        if joined:
            a2, b2 = _pair(a, b)
            if a2 is not None and b2 is not None and a2.start <= b2.end:
                out.periods.append(Period(a2.start, b2.end, text[a.at : b.stop]))
                used |= {i, i + 1}
                i += 2
                continue
        i += 1
    # open ends and single mentions
    dangling: list[int] = []
    for i, p in enumerate(points):
        if i in used:
            continue
        if p.precision in ("month-of-year", "day-of-year"):
            dangling.append(i)
            continue
        before = text[max(0, p.at - 20) : p.at]
        if (m := _OPEN_BEFORE.search(before)) and m.group().split()[0].lower() != "from":
            after_year = _AFTER.search(before) and p.precision == "year"
            start = date(p.end.year + 1, 1, 1) if after_year else p.start
            out.periods.append(Period(start, _FAR_FUTURE, text[p.at - len(before) + m.start() : p.stop]))
        elif m := _CLOSE_BEFORE.search(before):
            before_year = _BEFORE.search(before) and p.precision == "year"
            end = date(p.start.year - 1, 12, 31) if before_year else p.end
            out.periods.append(Period(_FAR_PAST, end, text[p.at - len(before) + m.start() : p.stop]))
        else:
            out.periods.append(Period(p.start, p.end, text[p.at : p.stop]))
    # A month listed before a dated one takes its year ("June, July and August 2015");
    # other months named without a year filter every period ("in summer", "every June").
    months: set[int] = set()
    for i in dangling:
        p = points[i]
        year = _listed_year(text, points, i)
        if year is None:
            months.add(p.month)
        else:
            q = _complete(p, year)
            out.periods.append(Period(q.start, q.end, f"{text[p.at : p.stop]} {year}"))
    for m in _SEASON_WORD.finditer(text):
        if not _is_season(text, m):
            continue
        key = m.group(1).lower()
        key = _ORDINAL_QUARTER.get(key.split()[0], key)
        months |= set(_SEASONS.get(key) or _QUARTERS[key])
        out.time_spans.append((m.start(), m.end()))
    months |= range_months
    out.months = months
    _winter_across_years(out, points)
    out.time_spans += [(p.at, p.stop) for p in points]
    out.numbers = _numbers(text, points)
    return out


# "fall" and "spring" are verbs and nouns too ("states that fall into", "a hot spring"):
# either is a season only after one of these words or before a year
_SEASON_BEFORE = re.compile(
    r"(?i)\b(?:in|the|this|last|next|each|every|during|of|over|through|early|late|mid|since|until|by)[\s-]*$"
)
_YEAR_AFTER = re.compile(rf"^\s*(?:of\s+)?{YEAR}\b")


def _is_season(text: str, m: re.Match[str]) -> bool:
    word = m.group(0).lower()
    if not word.startswith(("fall", "spring")):
        return True
    if word.endswith("s"):  # "falls", "springs": never the season
        return False
    return bool(_SEASON_BEFORE.search(text[: m.start()]) or _YEAR_AFTER.match(text[m.end() :]))


_LIST_GAP = re.compile(r"(?i)^(?:\s*(?:,|and|or|&|/)\s*)+$")


def _listed_year(text: str, points: list[_Point], i: int) -> int | None:
    """The year of the dated mention that ends a list of months starting at points[i]."""
    for j in range(i + 1, len(points)):
        if not _LIST_GAP.match(text[points[j - 1].stop : points[j].at]):
            return None
        if points[j].precision in ("month", "day"):
            return points[j].start.year
        if points[j].precision not in ("month-of-year", "day-of-year"):
            return None
    return None


def _winter_across_years(out: Constraints, points: list[_Point]) -> None:
    """'Winter 2023/24', 'December to February 2023/24': the months that wrap the new year,
    in the span's two years, are one period from the first year's to the second's."""
    spans = [p for p in points if p.precision == "year-span"]
    if len(spans) != 1 or len(out.periods) != 1 or 12 not in out.months or 1 not in out.months:
        return
    y = spans[0].start.year
    first = min(m for m in out.months if m >= 7)
    last = max(m for m in out.months if m < 7)
    out.periods = [Period(date(y, first, 1), _month_end(y + 1, last), out.periods[0].text)]
    out.months = set()


def _pair(a: _Point, b: _Point) -> tuple[_Point | None, _Point | None]:
    """Both ends of a range, giving each the year the other names ("April 1 to 10, 2016")."""
    year_a = a.start.year if a.precision not in ("month-of-year", "day-of-year") else None
    year_b = b.end.year if b.precision not in ("month-of-year", "day-of-year") else None
    if year_a is None and year_b is None:
        return None, None
    return _complete(a, year_a or year_b), _complete(b, year_b or year_a)


def _numbers(text: str, points: list[_Point]) -> list[str]:
    spans = [(p.at, p.stop) for p in points]
    out = []
    for m in _NUMBER.finditer(text):
        if any(a <= m.start() < b for a, b in spans):
            continue
        out.append(m.group(1).replace(",", ""))
    return list(dict.fromkeys(out))
