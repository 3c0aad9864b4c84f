"""Feature rows: the facts laid out as arrays give what each file gives on its own."""

from __future__ import annotations


def test_the_facts_arrays_give_what_each_file_gives_on_its_own():
    from datetime import date

    from lakeboard.schemas.families import TimeCoverage
    from lakeboard.servers.relevance.features import FactColumns, period_fit
    from lakeboard.servers.relevance.file_facts import FileFacts
    from lakeboard.servers.relevance.query_parsing import parse_query

    def cov(a: str, b: str) -> TimeCoverage:
        return TimeCoverage(start=date.fromisoformat(a), end=date.fromisoformat(b), source="data")

    facts = [
        FileFacts(path="a.csv", usable=True, name_parts=["rain", "rain", "ashford", "2023"], coverage=cov("2023-01-01", "2023-12-31")),
        FileFacts(path="b.csv", usable=True, name_parts=["wind", "2021"], coverage=cov("2021-03-01", "2021-03-31"),
                  family="f", describes=["a.csv"]),
        FileFacts(path="c.csv", usable=True, name_parts=["2020"]),
        FileFacts(path="d.csv", usable=True, name_parts=[], coverage=cov("2019-06-01", "2022-02-01")),
    ]
    known = FactColumns.of(facts)
    for request in ("rain at Ashford in 2023", "wind in March", "wind from 2020 to 2021", "rain", "rain in June 2019"):
        q = parse_query(request)
        own = [sum(p in set(q.name_parts) for p in f.word_parts) / len(f.word_parts) if f.word_parts else 0.0
               for f in facts]
        assert known.name_fit(set(q.name_parts)).tolist() == own, request
        assert known.period_fit(q, facts).tolist() == [list(period_fit(f, q)) for f in facts], request
    assert known.describes.tolist() == [0, 1, 0, 0]
