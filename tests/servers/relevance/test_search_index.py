import numpy as np

from lakeboard.servers.relevance.search_index import SearchIndex


def test_scores_survive_a_save_and_a_memory_mapped_load(tmp_path):
    docs = [{"name": ["rain", "2001"], "columns": ["station", "rain"]}, {"name": ["budget"], "columns": ["amount"]}, {}]
    index = SearchIndex.build(["rain.csv", "budget.csv", "empty.csv"], docs)
    index.save(tmp_path / "ix")
    loaded = SearchIndex.load(tmp_path / "ix")
    assert loaded.paths == ["rain.csv", "budget.csv", "empty.csv"]
    got = loaded.term_scores("name", ["rain", "budget", "never-seen"])
    assert got.shape == (3, 3)
    np.testing.assert_allclose(got, index.term_scores("name", ["rain", "budget", "never-seen"]))
    assert got[0, 0] > 0 and got[0, 1] == 0 and got[1, 1] > 0 and not got[2].any()


def test_a_field_no_file_has_still_answers_with_zeros():
    index = SearchIndex.build(["a.csv"], [{"name": ["a"]}])
    assert not index.term_scores("text", ["a"]).any()
