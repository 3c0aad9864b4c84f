import numpy as np

from lakeboard.servers.relevance.index_fields import INDEXED
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


def test_scores_are_kept_in_half_the_room_and_read_back_close(tmp_path):
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(500)]
    docs = [{"columns": [str(w) for w in rng.choice(words, size=rng.integers(2, 30))]} for _ in range(2000)]
    index = SearchIndex.build([f"f{i}.csv" for i in range(2000)], docs)
    index.save(tmp_path / "ix")
    assert np.load(tmp_path / "ix" / "columns" / "data.csc.index.npy", mmap_mode="r").dtype == np.float16
    assert np.load(tmp_path / "ix" / "columns" / "indices.csc.index.npy", mmap_mode="r").dtype == np.uint16
    got = SearchIndex.load(tmp_path / "ix").term_scores("columns", words)
    exact = np.zeros_like(got)
    import bm25s  # the same index with float32 scores, for the comparison
    wide = bm25s.BM25()
    wide.index([d["columns"] for d in docs], show_progress=False)
    for i, w in enumerate(words):
        exact[i] = wide.get_scores([w])
    assert np.abs(got - exact).max() <= 1e-3 * exact.max()


def test_more_terms_than_two_bytes_number_keep_four_byte_ids(tmp_path):
    docs = [{"text": [f"t{i}", f"u{i}"]} for i in range(40_000)]  # 80,000 distinct terms
    index = SearchIndex.build([f"f{i}.txt" for i in range(40_000)], docs)
    index.save(tmp_path / "ix")
    assert np.load(tmp_path / "ix" / "text" / "indices.csc.index.npy", mmap_mode="r").dtype == np.int32
    got = SearchIndex.load(tmp_path / "ix").term_scores("text", ["u39999", "t35000"])[:, [39_999, 35_000]]
    assert got[0, 0] > 0 and got[1, 1] > 0 and got[0, 1] == 0 and got[1, 0] == 0


def test_an_index_saved_with_float32_scores_is_still_read(tmp_path):
    """As indexes before the float16 ones were saved (bm25s's default types): a file agent started
    from an older config reads it until the lake is indexed again."""
    import bm25s

    docs = [["rain", "station"], ["budget", "amount", "budget"], ["rain"]]
    folder = tmp_path / "ix"
    for name in INDEXED:
        older = bm25s.BM25()
        older.index(docs, show_progress=False)
        older.save(str(folder / name), show_progress=False)
    SearchIndex(["a.csv", "b.csv", "c.csv"], {}).save(folder)  # its list of paths
    got = SearchIndex.load(folder).term_scores("columns", ["budget", "rain"])
    assert np.load(folder / "columns" / "data.csc.index.npy").dtype == np.float32
    np.testing.assert_allclose(got[0], older.get_scores(["budget"]))
    np.testing.assert_allclose(got[1], older.get_scores(["rain"]))
    assert got[0, 1] > 0 and got[0, 0] == 0 and got[1, 0] > 0 and got[1, 2] > 0
