from host.ranking import SelectionPolicy, select_files
from schemas.messages import FileMatch


def m(path, score, terms, **kw):
    return FileMatch(path=path, score=score, matched_terms=terms, **kw)


W = {"noaa": 1.0, "nifc": 1.0, "fire": 0.3}


def test_a_second_file_joins_only_when_it_covers_new_terms():
    got = select_files([m("noaa.csv", 0.6, ["noaa", "fire"]), m("nifc.csv", 0.5, ["nifc", "fire"]),
                        m("other.csv", 0.5, ["fire"])], W)
    assert [x.path for x in got] == ["noaa.csv", "nifc.csv"]


def test_weak_evidence_returns_nothing():
    assert select_files([m("a.csv", 0.05, ["fire"])], W) == []


def test_family_ties_come_along_and_dictionaries_follow_their_data():
    matches = [
        m("st/a.csv", 0.8, ["noaa"], group="g"), m("st/b.csv", 0.8, ["noaa"], group="g"),
        m("st/c.csv", 0.5, ["noaa"], group="g"),
        m("x.csv", 0.7, ["noaa"], companions=["x_dict.csv"]), m("x_dict.csv", 0.3, ["noaa"], role="dictionary"),
    ]
    got = [x.path for x in select_files(matches, W, SelectionPolicy(min_gain=0.5))]
    assert got == ["st/a.csv", "st/b.csv"]
    got = [x.path for x in select_files(matches[3:], W)]
    assert got == ["x.csv", "x_dict.csv"]


def test_duplicates_from_several_agents_are_merged():
    got = select_files([m("a.csv", 0.4, ["noaa"]), m("a.csv", 0.6, ["noaa"])], W)
    assert len(got) == 1 and got[0].score == 0.6
