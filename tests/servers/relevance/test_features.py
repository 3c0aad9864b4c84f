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


def test_the_gate_sees_each_files_nearest_similarity_the_file_model_the_whole_requests():
    """Rows of `dense`: the whole request, then its sentences. `dense` and `dense_rel` are the
    whole request's; `dense_nearest` is the best of the rows, file by file."""
    import numpy as np

    from lakeboard.servers.relevance import LakeIndex, parse_query
    from lakeboard.servers.profiling.families import describe_families
    from lakeboard.servers.relevance.features import LakeEvidence

    from .conftest import table_profile

    profiles = [table_profile(f"t{i}.csv", {"a": ["x"]}) for i in range(3)]
    lake = LakeIndex.build(profiles, describe_families(profiles))
    dense = np.array([[0.5, 0.2, 0.1], [0.1, 0.7, 0.0], [0.3, 0.3, 0.4]], dtype=np.float32)
    ev = LakeEvidence(parse_query("a request. And its second sentence here."), lake.index, dense)
    assert ev.dense.tolist() == dense[0].tolist()
    assert np.allclose(ev.dense_rel, dense[0] - 0.5)
    assert np.allclose(ev.dense_nearest, [0.5, 0.7, 0.4])
    nearest = np.array([0.5, 0.7, 0.4])
    assert abs(ev.standing - ((0.7 - nearest.mean()) / nearest.std() - np.sqrt(2 * np.log(3)))) < 1e-5
    alone = LakeEvidence(parse_query("a request"), lake.index, dense[0])
    assert np.allclose(alone.dense_nearest, dense[0])
