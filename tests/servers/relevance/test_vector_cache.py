"""The machine's cache of card vectors: a lake indexed into a second config folder embeds nothing again."""

from __future__ import annotations

import logging
import shutil
import sqlite3

import numpy as np
import pytest

from lakeboard.common.card_vectors import CardVectors, card_keys
from lakeboard.common.minilm import MODEL_NAME, embed
from lakeboard.servers.indexing import index_lake
from lakeboard.servers.relevance.vector_cache import CACHE_FILE, VectorCache, cache_file

from ...conftest import DEMO_LAKE


@pytest.fixture
def small_demo(tmp_path):
    lake = tmp_path / "lake"
    lake.mkdir()
    for f in sorted(p for p in DEMO_LAKE.rglob("*.csv") if p.is_file())[:3]:
        shutil.copy(f, lake / f.name)
    return lake


class CountedModel:
    """The product's MiniLM, counting the texts it is given."""

    def __init__(self) -> None:
        self.texts = 0

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.texts += len(texts)
        return embed(texts)


def test_a_lake_indexed_into_a_second_config_folder_embeds_no_card_again(small_demo, tmp_path, monkeypatch):
    monkeypatch.setenv("LAKEBOARD_HOME", str(tmp_path / "home"))
    model = CountedModel()
    first = index_lake(small_demo, out=tmp_path / "one", workers=0, embed=model).config_dir
    embedded = model.texts
    assert embedded >= 3 and cache_file() == tmp_path / "home" / "cache" / CACHE_FILE and cache_file().is_file()
    second = index_lake(small_demo, out=tmp_path / "two", workers=0, embed=model).config_dir
    assert model.texts == embedded, "the second index embedded cards the cache held"
    one, two = (CardVectors.load(c / "relevance") for c in (first, second))
    np.testing.assert_array_equal(one.codes, two.codes)
    # the cache holds digests and codes, not the lake's words
    raw = cache_file().read_bytes()
    for f in small_demo.iterdir():
        assert f.stem.encode() not in raw


def test_a_cache_that_cannot_be_made_costs_a_line_and_the_index_is_the_same(small_demo, tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("LAKEBOARD_HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "cache").write_text("a file where the cache folder would be")
    with caplog.at_level(logging.WARNING):
        config = index_lake(small_demo, out=tmp_path / "out", workers=0).config_dir
    assert "card vector cache" in caplog.text and "not used" in caplog.text
    assert CardVectors.present(config / "relevance")


def test_a_damaged_cache_is_not_used_and_never_stops_a_build(tmp_path, caplog):
    path = tmp_path / CACHE_FILE
    path.write_bytes(b"not a database" * 100)
    key = card_keys(MODEL_NAME, ["a card"])
    with caplog.at_level(logging.WARNING), VectorCache(path) as cache:
        assert cache.get(key) == {}
        cache.put(key, np.ones((1, 384), dtype=np.float32) / np.sqrt(384))
    assert "not used" in caplog.text


def test_vectors_come_back_for_the_same_model_only(tmp_path):
    rows = np.eye(384, dtype=np.float32)[:2]
    one, two, three = card_keys(MODEL_NAME, ["card one", "card two", "card three"])
    with VectorCache(tmp_path / CACHE_FILE) as cache:
        cache.put([one, two], rows)
        got = cache.get([two, three])
    assert list(got) == [two] and np.allclose(got[two], rows[1], atol=0.01)
    with VectorCache(tmp_path / CACHE_FILE) as other:
        assert other.get(card_keys("another-model", ["card one"])) == {}
    assert card_keys(MODEL_NAME, ["x"]) != card_keys("another-model", ["x"])
    assert sqlite3.connect(tmp_path / CACHE_FILE).execute("select count(*) from vectors").fetchone() == (2,)


def test_a_cache_inside_the_lake_is_never_written(tmp_path):
    lake = tmp_path / "lake"
    lake.mkdir()
    key = card_keys(MODEL_NAME, ["a card"])
    with VectorCache(lake / "cache" / CACHE_FILE, lake=lake) as cache:
        cache.put(key, np.ones((1, 384), dtype=np.float32) / np.sqrt(384))
        assert cache.get(key) == {}
    assert list(lake.iterdir()) == []
