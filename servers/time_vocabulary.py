"""How names, cells and requests write time: plausible years, time columns, how often data comes.

One definition for every reader of time (the profiler's table layout, a file's time coverage,
its search fields, a request's constraints, the search agent's triage), so that a year a
request can name is a year a file can be found by.
"""

from __future__ import annotations

from dataclasses import dataclass

# The years a four-digit number is taken to be. From 1600: the oldest series tables commonly
# hold begin in the 17th century (Central England temperatures in 1659), while smaller
# four-digit numbers are far more often counts, codes or ids than dates. To 2100: the usual
# horizon of climate and population projections; a larger four-digit number is again more
# likely a count than a year.
YEAR_MIN, YEAR_MAX = 1600, 2100
# YEAR_MIN..YEAR_MAX as a pattern without a group or anchors (a test holds the two together):
# each use adds its own anchors (a whole cell, a word, digits inside a name).
YEAR = r"(?:1[6-9]\d\d|20\d\d|2100)"

# Words in a column's name that say it holds years, and more broadly that it holds time.
YEAR_COLUMN_WORDS = frozenset({"year", "years", "yr", "fy"})
TIME_COLUMN_WORDS = YEAR_COLUMN_WORDS | {
    "date", "dates", "time", "timestamp", "datetime", "day", "month", "period", "season", "decade", "century",
}


@dataclass(frozen=True)
class Granularity:
    """How often a dataset has a row: the unit, the words for "once per unit", and the
    largest median gap in days between rows that still counts as that (calendar months and
    years vary, and readings slip)."""

    unit: str
    adjectives: tuple[str, ...]
    max_gap_days: float


# Finest first: rows are as fine as the first granularity whose gap they fit.
GRANULARITIES = (
    Granularity("hour", ("hourly",), 0.9),
    Granularity("day", ("daily",), 1.5),
    Granularity("week", ("weekly",), 8),
    Granularity("month", ("monthly",), 32),
    Granularity("quarter", ("quarterly",), 95),
    Granularity("year", ("annual", "yearly"), 370),
)
GRANULARITY_WORDS = tuple(w for g in GRANULARITIES for w in g.adjectives)


def granularity(unit: str) -> Granularity:
    """The granularity of one row per `unit` ("day", "month" ...)."""
    return next(g for g in GRANULARITIES if g.unit == unit)
