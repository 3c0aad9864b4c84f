"""One vocabulary of time: every reader of names, cells and requests takes the same numbers
for years, the same column names for time, and the same words for how often data comes."""

from __future__ import annotations

import re
from typing import Any, Sequence

import pytest

from lakeboard.schemas.profiles import ColumnProfile, FileProfile, TableProfile
from lakeboard.servers.profiling.table_layout import find_blocks
from lakeboard.servers.relevance.constraints import parse_constraints
from lakeboard.servers.relevance.search_fields import profile_texts
from lakeboard.servers.search_agent.triage import triage
from lakeboard.servers.time_coverage import coverage_from_data, coverage_from_name
from lakeboard.servers.time_vocabulary import (
    GRANULARITIES,
    GRANULARITY_WORDS,
    TIME_COLUMN_WORDS,
    YEAR,
    YEAR_COLUMN_WORDS,
    YEAR_MAX,
    YEAR_MIN,
    granularity,
)

EDGES = [1000, YEAR_MIN - 1, YEAR_MIN, 1999, YEAR_MAX, YEAR_MAX + 1, 2999]


class _Grid:
    def __init__(self, rows: list[Sequence[Any]]) -> None:
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def is_blank(self, i: int) -> bool:
        return all(v in (None, "") for v in self.rows[i])

    def row(self, i: int) -> Sequence[Any]:
        return self.rows[i]


def _table(*columns: ColumnProfile, rows: list[dict] | None = None) -> FileProfile:
    return FileProfile(path="t.csv", format="csv", kind="table",
                       tables=[TableProfile(columns=list(columns), sample_rows=rows or [])])


def test_the_year_pattern_is_the_year_range() -> None:
    for n in range(10_000):
        assert (re.fullmatch(YEAR, str(n)) is not None) == (YEAR_MIN <= n <= YEAR_MAX), n


@pytest.mark.parametrize("n", EDGES)
def test_every_reader_takes_the_same_numbers_for_years(n: int) -> None:
    is_year = YEAR_MIN <= n <= YEAR_MAX
    # a file's name, and a column of years
    assert (coverage_from_name(f"inspections_{n}.csv") is not None) == is_year
    years = ColumnProfile(name="Year", dtype="int64", minimum=str(n), maximum=str(n))
    assert (coverage_from_data(_table(years)) is not None) == is_year
    # the same column as search words ("in 2001" finds the table with 2001)
    assert (str(n) in profile_texts(_table(years)).values) == is_year
    # a header row of years above a table's data
    rows = [["Region", str(n), str(n)], ["North", "5", "6"], ["South", "8", "9"], ["East", "1", "2"]]
    assert (find_blocks(_Grid(rows))[0].header_rows == [0]) == is_year
    # a request's time, for the file agents and for the search agent's triage
    assert bool(parse_constraints(f"inspections in {n}").periods) == is_year
    assert ("names a date range" in triage(f"readings in {n}").data_cues) == is_year


def test_decades_are_decades_of_plausible_years() -> None:
    assert [p.start.year for p in parse_constraints("the 1990s and the 2000s").periods] == [1990, 2000]
    assert not parse_constraints("the 1590s").periods


@pytest.mark.parametrize("word", sorted(TIME_COLUMN_WORDS))
def test_a_column_named_for_time_is_time_to_coverage_and_to_search(word: str) -> None:
    dated = ColumnProfile(name=f"obs_{word}", dtype="str", minimum="2001-02-03", maximum="2003-04-05")
    assert coverage_from_data(_table(dated)) is not None
    # values not all years: spanned only because the name says time
    mixed = ColumnProfile(name=f"obs_{word}", dtype="str", minimum="2001", maximum="2003", examples=["2001", "unknown"])
    assert "2002" in profile_texts(_table(mixed)).values


def test_a_column_not_named_for_time_is_not_time() -> None:
    dated = ColumnProfile(name="visitors", dtype="str", minimum="2001-02-03", maximum="2003-04-05")
    assert coverage_from_data(_table(dated)) is None
    mixed = ColumnProfile(name="visitors", dtype="str", minimum="2001", maximum="2003", examples=["2001", "unknown"])
    assert "2002" not in profile_texts(_table(mixed)).values


def test_year_columns_are_time_columns() -> None:
    assert YEAR_COLUMN_WORDS <= TIME_COLUMN_WORDS


def test_granularities_run_from_finest_to_coarsest() -> None:
    gaps = [g.max_gap_days for g in GRANULARITIES]
    assert gaps == sorted(gaps)
    assert granularity("month").adjectives == ("monthly",)
    assert GRANULARITY_WORDS == ("hourly", "daily", "weekly", "monthly", "quarterly", "annual", "yearly")


@pytest.mark.parametrize("g", GRANULARITIES, ids=lambda g: g.unit)
def test_every_reader_uses_the_same_words_for_how_often(g) -> None:
    for word in g.adjectives:
        assert "asks for periodic data" in triage(f"the {word} readings").data_cues, word
