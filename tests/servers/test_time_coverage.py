from datetime import date

from lakeboard.schemas.profiles import ColumnProfile, FileProfile, TableProfile
from lakeboard.servers.time_coverage import coverage_from_data, coverage_from_name


def test_coverage_from_names():
    c = coverage_from_name("flux/flux-7-20130401_to_20130410.csv")
    assert (c.start, c.end) == (date(2013, 4, 1), date(2013, 4, 10))
    c = coverage_from_name("a/readings_2024-02.csv")
    assert (c.start, c.end) == (date(2024, 2, 1), date(2024, 2, 29))
    c = coverage_from_name("budget_2023.xlsx")
    assert (c.start, c.end) == (date(2023, 1, 1), date(2023, 12, 31))
    assert coverage_from_name("readings/80412.dat") is None
    assert coverage_from_name("stations.csv") is None


def _profile(*cols: ColumnProfile) -> FileProfile:
    return FileProfile(path="t.csv", format="csv", tables=[TableProfile(columns=list(cols))])


def test_coverage_from_date_and_year_columns():
    c = coverage_from_data(_profile(ColumnProfile(name="obs_date", dtype="str", minimum="2019-03-02", maximum="2021-07-30")))
    assert (c.start, c.end) == (date(2019, 3, 2), date(2021, 7, 30))
    c = coverage_from_data(_profile(ColumnProfile(name="Year", dtype="int64", minimum="1998", maximum="2004")))
    assert (c.start, c.end) == (date(1998, 1, 1), date(2004, 12, 31))


def test_numbers_that_look_like_years_are_not_time():
    # a count column whose values fall in 1600..2100 is not a calendar
    assert coverage_from_data(_profile(ColumnProfile(name="visitors", dtype="int64", minimum="1700", maximum="2050"))) is None
    # a column named for time but holding no dates
    assert coverage_from_data(_profile(ColumnProfile(name="time_zone", dtype="str", minimum="CET", maximum="UTC"))) is None
