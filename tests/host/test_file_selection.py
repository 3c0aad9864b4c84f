from lakeboard.host.file_selection import SelectionPolicy, select_files
from lakeboard.schemas.messages import FileMatch


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


def test_a_weaker_file_matching_what_the_best_matches_is_a_rival_not_a_complement():
    matches = [m("noaa.csv", 0.8, ["noaa", "fire"]), m("noaa_copy.csv", 0.7, ["noaa", "fire", "nifc"]),
               m("nifc.csv", 0.6, ["nifc"])]
    assert [x.path for x in select_files(matches, W)] == ["noaa.csv", "nifc.csv"]
    # without the rival check the copy's incidental extra term wins it a place
    got = select_files(matches, W, SelectionPolicy(rival=1.01))
    assert [x.path for x in got] == ["noaa.csv", "noaa_copy.csv"]


def test_a_low_scoring_file_is_taken_when_it_covers_much_the_chosen_ones_miss():
    weights = {**W, "year": 0.2}
    matches = [m("noaa.csv", 0.8, ["noaa", "fire"]), m("year.csv", 0.42, ["year"]), m("nifc.csv", 0.36, ["nifc"])]
    # nifc.csv scores under `relative` of the best but covers 40% of the request anew;
    # year.csv is as weak and adds little
    assert [x.path for x in select_files(matches, weights)] == ["noaa.csv", "nifc.csv"]
    assert [x.path for x in select_files(matches, weights, SelectionPolicy(rescue_gain=1.0))] == ["noaa.csv"]
    # far below the best, even new coverage is no evidence
    far = [matches[0], m("nifc.csv", 0.2, ["nifc"])]
    assert [x.path for x in select_files(far, weights)] == ["noaa.csv"]
