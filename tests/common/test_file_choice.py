"""The choice of files from ranked matches: the best data file, then its companions."""

from lakeboard.common.file_choice import best_data_file, merge_matches, select_files
from lakeboard.schemas.messages import FileMatch


def m(path, score, **kw):
    return FileMatch(path=path, score=score, **kw)


def test_one_match_per_path_the_best_first():
    merged = merge_matches([m("a.csv", 0.2), m("b.csv", 0.5), m("a.csv", 0.7), m("c.csv", 0.5)])
    assert [(x.path, x.score) for x in merged] == [("a.csv", 0.7), ("b.csv", 0.5), ("c.csv", 0.5)]


def test_the_best_data_file_then_its_dictionary_never_a_dictionary_in_its_place():
    matches = [m("codebook.md", 0.9, role="dictionary"), m("survey.csv", 0.6, companions=["codebook.md"]),
               m("other.csv", 0.5)]
    assert [x.path for x in select_files(matches)] == ["survey.csv", "codebook.md"]
    # a dictionary is chosen only where no data file matched at all
    assert best_data_file([m("codebook.md", 0.9, role="dictionary")]).path == "codebook.md"
    assert select_files([]) == []


def test_a_family_member_comes_with_the_members_the_request_takes_in_order():
    matches = [m("b/2021.csv", 0.8, group="b/{year}.csv", companions=["b/2022.csv", "b/2020.csv"]),
               m("b/2022.csv", 0.7, group="b/{year}.csv"), m("rival.csv", 0.75)]
    got = select_files(matches)
    assert [x.path for x in got] == ["b/2020.csv", "b/2021.csv", "b/2022.csv"]
    # a member no match names comes as a companion, at the chosen file's score
    assert got[0].role == "companion" and got[0].score == 0.8


def test_a_file_with_the_same_bytes_as_one_ranked_before_it_is_named_once():
    matches = [m("copy/data.csv", 0.7, copies=["data.csv"]), m("data.csv", 0.9, copies=["copy/data.csv"]),
               m("other.csv", 0.8)]
    merged = merge_matches(matches)
    assert [x.path for x in merged] == ["data.csv", "other.csv"]
    assert merged[0].copies == ["copy/data.csv"]
    assert [x.path for x in select_files(matches)] == ["data.csv"]


def test_an_answer_template_is_chosen_only_where_no_data_file_matched_and_is_listed_next():
    from lakeboard.common.file_choice import next_data_files

    matches = [m("sample_submission.csv", 0.9, role="template"), m("train.csv", 0.4), m("notes.md", 0.8, role="dictionary")]
    assert [x.path for x in select_files(matches)] == ["train.csv"]
    chosen = select_files(matches)
    assert [x.path for x in next_data_files(matches, chosen, 9)] == ["sample_submission.csv"]
    assert best_data_file([m("sample_submission.csv", 0.9, role="template")]).path == "sample_submission.csv"
