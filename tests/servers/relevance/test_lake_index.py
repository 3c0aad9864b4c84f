"""What the indexer stores of a lake for relevance, read back as a file agent reads it."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from lakeboard.common.card_vectors import KEYS_FILE
from lakeboard.servers.profiling.families import describe_families
from lakeboard.servers.relevance import LakeIndex

from .conftest import table_profile


class CountingEmbedder:
    """A stand-in for MiniLM that is a pure function of the text, counting the texts it embeds:
    what is tested here is what the index keeps and reuses, not the model (tests/common/test_minilm.py)."""

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.embedded += texts
        rows = np.stack([np.random.default_rng(int.from_bytes(hashlib.sha256(t.encode()).digest()[:8], "little"))
                         .standard_normal(384) for t in texts]).astype(np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_a_saved_index_gives_back_the_facts_and_vectors_and_a_reindex_embeds_only_changed_cards(small_lake, tmp_path):
    embed = CountingEmbedder()
    first = LakeIndex.build(small_lake, describe_families(small_lake), embed)
    first.save(tmp_path / "one")
    assert len(embed.embedded) == len(set(first.cards)) == len(small_lake)
    loaded = LakeIndex.load(tmp_path / "one")
    assert [f.path for f in loaded.facts] == loaded.index.paths == sorted(p.path for p in small_lake)
    assert [f.model_dump() for f in loaded.facts] == [f.model_dump() for f in first.facts]
    query = embed(["riders of the red line"])[0]
    exact = embed(first.cards) @ query
    assert np.abs(loaded.vectors.similarities(query) - exact).max() < 0.03
    # one file's columns changed: only its card is embedded again; the others' vectors come from the last index
    changed = [table_profile("transit/ridership.csv", {"line": ["Green"], "year": ["2030"], "passengers": ["9"]})
               if p.path == "transit/ridership.csv" else p for p in small_lake]
    embed.embedded.clear()
    second = LakeIndex.build(changed, describe_families(changed), embed, previous=tmp_path / "one")
    assert len(embed.embedded) == 1 and "passengers" in embed.embedded[0]
    second.save(tmp_path / "two")
    again = LakeIndex.load(tmp_path / "two")
    unchanged = [i for i, p in enumerate(again.index.paths) if p != "transit/ridership.csv"]
    np.testing.assert_array_equal(again.vectors.codes[unchanged], loaded.vectors.codes[unchanged])


def test_a_partition_reads_only_its_own_facts(small_lake, tmp_path):
    LakeIndex.build(small_lake, describe_families(small_lake)).save(tmp_path)
    part = LakeIndex.load(tmp_path, paths=["transit/ridership.csv", "air/sensor_readings.csv", "not/in/the/lake.csv"])
    assert [f.path for f in part.facts] == ["air/sensor_readings.csv", "transit/ridership.csv"]
    assert part.vectors is None  # no embedder: no vectors, and none made up


def test_an_index_whose_vectors_an_older_lakeboard_wrote_is_refused_with_what_to_do(small_lake, tmp_path):
    lake = LakeIndex.build(small_lake, describe_families(small_lake), CountingEmbedder())
    lake.save(tmp_path)
    np.save(tmp_path / "vectors.npy", lake.vectors.dense())  # float32 rows, as indexes before int8 codes held
    (tmp_path / "vector_scales.npy").unlink()
    with pytest.raises(ValueError, match="older form: index the lake again"):
        LakeIndex.load(tmp_path)


def test_keys_that_do_not_match_the_last_index_s_vectors_cost_a_line_and_every_card_is_embedded(small_lake, tmp_path, caplog):
    LakeIndex.build(small_lake, describe_families(small_lake), CountingEmbedder()).save(tmp_path / "one")
    np.save(tmp_path / "one" / KEYS_FILE, np.load(tmp_path / "one" / KEYS_FILE)[:-1])
    embed = CountingEmbedder()
    with caplog.at_level("WARNING"):
        again = LakeIndex.build(small_lake, describe_families(small_lake), embed, previous=tmp_path / "one")
    assert "cannot be reused" in caplog.text and "card keys for" in caplog.text
    assert len(embed.embedded) == len(small_lake) and len(again.vectors) == len(small_lake)


def test_an_index_that_stored_whole_card_keys_reuses_none_and_its_cards_are_embedded_again(small_lake, tmp_path):
    from lakeboard.common.card_vectors import card_keys
    from lakeboard.common.minilm import MODEL_NAME

    first = LakeIndex.build(small_lake, describe_families(small_lake), CountingEmbedder())
    first.save(tmp_path / "one")
    assert np.load(tmp_path / "one" / KEYS_FILE).shape == (len(small_lake), 8)
    whole = b"".join(card_keys(MODEL_NAME, first.cards))  # as indexes before half keys stored them
    np.save(tmp_path / "one" / KEYS_FILE, np.frombuffer(whole, dtype=np.uint8).reshape(-1, 16))
    embed = CountingEmbedder()
    again = LakeIndex.build(small_lake, describe_families(small_lake), embed, previous=tmp_path / "one")
    assert len(embed.embedded) == len(small_lake)
    np.testing.assert_array_equal(again.vectors.codes, first.vectors.codes)


def test_facts_gzipped_by_an_earlier_index_are_read_and_damaged_ones_say_what_to_do(small_lake, tmp_path):
    import gzip

    import zstandard

    LakeIndex.build(small_lake, describe_families(small_lake)).save(tmp_path)
    lines = zstandard.ZstdDecompressor().decompress((tmp_path / "facts.jsonl.zst").read_bytes())
    (tmp_path / "facts.jsonl.zst").unlink()
    (tmp_path / "facts.jsonl.gz").write_bytes(gzip.compress(lines))
    assert [f.path for f in LakeIndex.load(tmp_path).facts] == sorted(p.path for p in small_lake)
    (tmp_path / "facts.jsonl.zst").write_bytes(b"not zstd")
    with pytest.raises(ValueError, match="is damaged .*: index the lake again"):
        LakeIndex.load(tmp_path)
