"""The lake's card vectors stored as 4-bit codes, two a byte, with a scale per row."""

from __future__ import annotations

import numpy as np
import pytest

from lakeboard.common.card_vectors import CODES_FILE, CardVectors


def _unit_rows(n: int, seed: int = 0) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((n, 384)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_similarities_from_the_codes_are_those_of_the_float_vectors_within_a_few_hundredths(tmp_path):
    rows = _unit_rows(5000)  # more than one block of rows
    query = _unit_rows(1, seed=1)[0]
    CardVectors.quantize(rows).save(tmp_path)
    stored = CardVectors.load(tmp_path)
    exact = rows @ query
    assert stored.codes.dtype == np.uint8 and len(stored) == 5000 and stored.dimensions == 384
    error = np.abs(stored.similarities(query) - exact)
    assert np.median(error) < 0.006 and error.max() < 0.035
    some = np.array([4999, 3, 4100])
    np.testing.assert_allclose(stored.similarities(query, some), stored.similarities(query)[some], atol=1e-6)
    assert np.abs(stored.dense() - rows).max() < 0.025
    # an eighth of float32's size on disk
    assert (tmp_path / CODES_FILE).stat().st_size < rows.nbytes / 7.9


def test_rows_taken_and_stacked_keep_their_codes():
    """A re-index keeps the codes of the last index's unchanged cards (servers/relevance/lake_index.py)."""
    first, second = CardVectors.quantize(_unit_rows(6)), CardVectors.quantize(_unit_rows(4, seed=2))
    both = CardVectors.stack([first, second]).take(np.array([7, 0, 5]))
    np.testing.assert_array_equal(both.codes, np.stack([second.codes[1], first.codes[0], first.codes[5]]))
    np.testing.assert_array_equal(both.scales, [second.scales[1], first.scales[0], first.scales[5]])


def test_rows_of_an_odd_number_of_dimensions_are_refused():
    with pytest.raises(ValueError, match="even number of dimensions"):
        CardVectors.quantize(np.ones((2, 5), dtype=np.float32))


def test_quantizing_again_what_was_read_back_changes_nothing():
    """A re-index reuses the last index's vectors through `dense()`: the codes must not drift."""
    first = CardVectors.quantize(_unit_rows(50))
    again = CardVectors.quantize(first.dense())
    np.testing.assert_array_equal(again.codes, first.codes)
    np.testing.assert_allclose(again.scales, first.scales, rtol=1e-6)


def test_a_zero_row_and_an_empty_lake_are_stored(tmp_path):
    rows = np.zeros((2, 384), dtype=np.float32)
    rows[1, 0] = 1.0
    vectors = CardVectors.quantize(rows)
    assert vectors.similarities(rows[1]).tolist() == [0.0, 1.0]
    empty = CardVectors.quantize(np.zeros((0, 384), dtype=np.float32))
    assert len(empty) == 0 and empty.similarities(rows[1]).shape == (0,)


@pytest.mark.parametrize("older", ["float32 vectors, no scales", "int8 codes, one a byte", "scales of another length"])
def test_vectors_of_an_older_index_are_refused_with_a_sentence(tmp_path, older):
    if older.startswith("float32"):
        np.save(tmp_path / CODES_FILE, _unit_rows(3))
    elif older.startswith("int8"):
        np.save(tmp_path / CODES_FILE, np.ones((3, 384), dtype=np.int8))
        np.save(tmp_path / "vector_scales.npy", np.ones(3, dtype=np.float32))
    else:
        CardVectors.quantize(_unit_rows(3)).save(tmp_path)
        np.save(tmp_path / "vector_scales.npy", np.ones(2, dtype=np.float32))
    with pytest.raises(ValueError, match="in an older form"):
        CardVectors.load(tmp_path)
