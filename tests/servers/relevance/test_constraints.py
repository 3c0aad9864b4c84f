from datetime import date

import pytest

from lakeboard.servers.relevance.constraints import parse_constraints


def spans(text: str) -> list[tuple[date, date]]:
    return sorted((p.start, p.end) for p in parse_constraints(text).periods)


def years(a: int, b: int) -> tuple[date, date]:
    return date(a, 1, 1), date(b, 12, 31)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("inspections in 2012 compared with 2011", [years(2011, 2011), years(2012, 2012)]),
        ("from 2005 to 2016 (inclusive)", [years(2005, 2016)]),
        ("between 2005 and 2016", [years(2005, 2016)]),
        ("2005-2016 totals", [years(2005, 2016)]),
        ("2005 through 2016", [years(2005, 2016)]),
        ("in 2011 and 2012", [years(2011, 2011), years(2012, 2012)]),
        ("since 2019", [(date(2019, 1, 1), date(9999, 12, 31))]),
        ("after 2019", [(date(2020, 1, 1), date(9999, 12, 31))]),
        ("before 2010", [(date(1, 1, 1), date(2009, 12, 31))]),
        ("until 2010", [(date(1, 1, 1), date(2010, 12, 31))]),
        ("in the 1990s", [years(1990, 1999)]),
        ("April 2013 versus August 2017", [(date(2013, 4, 1), date(2013, 4, 30)), (date(2017, 8, 1), date(2017, 8, 31))]),
        ("on 2013-04-05", [(date(2013, 4, 5), date(2013, 4, 5))]),
        ("on 5 April 2013", [(date(2013, 4, 5), date(2013, 4, 5))]),
        ("from April 1 to April 10, 2016", [(date(2016, 4, 1), date(2016, 4, 10))]),
        ("between 2016-04-01 and 2016-04-10", [(date(2016, 4, 1), date(2016, 4, 10))]),
        ("June, July and August 2015", [(date(2015, 6, 1), date(2015, 6, 30)), (date(2015, 7, 1), date(2015, 7, 31)),
                                        (date(2015, 8, 1), date(2015, 8, 31))]),
        ("flux from 20130401 to 20130410", [(date(2013, 4, 1), date(2013, 4, 10))]),
        ("how many sensors are there", []),
        ("fastest flow between 3 and 12 March 2019", [(date(2019, 3, 3), date(2019, 3, 12))]),
        ("flow on March 3-12, 2019", [(date(2019, 3, 3), date(2019, 3, 12))]),
    ],
)
def test_periods(text, expected):
    assert spans(text) == expected


def test_months_without_a_year_filter_every_period():
    c = parse_constraints("rainfall in summer between 2010 and 2012")
    assert c.months == {6, 7, 8}
    assert c.covers(date(2011, 7, 1), date(2011, 7, 31))
    assert not c.covers(date(2011, 1, 1), date(2011, 3, 31))
    assert not c.covers(date(2014, 7, 1), date(2014, 7, 31))


def test_listed_months():
    c = parse_constraints("readings for June, July and August")
    assert c.months == {6, 7, 8} and not c.periods


def test_may_the_verb_is_not_a_month():
    assert parse_constraints("which file may hold the totals").months == set()
    assert parse_constraints("totals for May").months == {5}


def test_fall_and_spring_the_verbs_and_nouns_are_no_seasons():
    for text in ("Which states fall into the most areas?", "a station that falls into the fire area",
                 "water of the hot spring", "the springs of the valley"):
        assert parse_constraints(text).months == set(), text
    for text in ("readings in the fall of 2019", "fall 2019 readings", "during spring", "mid-spring rain"):
        assert parse_constraints(text).months, text


def test_numbers_exclude_years_and_dates():
    c = parse_constraints("readings of sensor 80412 and sensor 1,204 in 2019 on 2019-05-03")
    assert c.numbers == ["80412", "1204"]


def test_covers_with_open_ends():
    c = parse_constraints("every inspection since 2019")
    assert c.covers(date(2021, 1, 1), date(2021, 12, 31))
    assert not c.covers(date(2018, 1, 1), date(2018, 12, 31))
    assert c.covers(date(2018, 6, 1), date(2019, 2, 1))  # overlaps


def test_hostile_text_does_not_raise():
    # arbitrary text, including impossible dates, must parse to something or nothing
    for text in ["2019-02-30", "31 February 2020", "Q5 0000", "since since since", "\u2028\x00 2011-13"]:
        parse_constraints(text)


def test_winter_across_the_new_year():
    c = parse_constraints("trucks over the winter of 2023/24 (December to February)")
    assert [(p.start, p.end) for p in c.periods] == [(date(2023, 12, 1), date(2024, 2, 29))]


def test_quarters_and_month_ranges():
    c = parse_constraints("containers in the first quarter of 2024")
    assert c.months == {1, 2, 3} and spans("containers in the first quarter of 2024") == [years(2024, 2024)]
    assert parse_constraints("from October to January").months == {10, 11, 12, 1}
    assert spans("the 2015/16 season") == [years(2015, 2016)]
    assert spans("case 2019-33") == []  # a code, not a span of years
