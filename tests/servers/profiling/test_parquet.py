"""Parquet and Feather: schema and row count from metadata, statistics from the first rows."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from lakeboard.servers.profiling import profile_file
from tests.servers.profiling.loading import profile_and_load


def _frame(n: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "id": range(n),
            "species": [["oak", "pine", "birch"][i % 3] for i in range(n)],
            "height": [i * 0.5 for i in range(n)],
            "seen": pd.date_range("2024-01-01", periods=n, freq="h"),
        }
    )


def test_parquet_rows_from_metadata_and_statistics_from_a_batch(tmp_path: Path) -> None:
    f = tmp_path / "trees.parquet"
    n = 12_000
    pq.write_table(pa.Table.from_pandas(_frame(n)), f, row_group_size=3000)
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.format == "parquet" and prof.kind == "table"
    t = prof.tables[0]
    assert t.n_rows == n and t.n_rows_exact
    assert prof.attributes["row_groups"] == "4"
    assert [c.name for c in t.columns] == ["id", "species", "height", "seen"]
    species = next(c for c in t.columns if c.name == "species")
    assert set(species.top_values) == {"oak", "pine", "birch"}
    seen = next(c for c in t.columns if c.name == "seen")
    assert seen.minimum.startswith("2024-01-01") and seen.dtype.startswith("datetime64")
    assert ns["data"].shape == (n, 4)


def test_truncated_parquet_says_why(tmp_path: Path) -> None:
    good = tmp_path / "good.parquet"
    _frame(100).to_parquet(good)
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(good.read_bytes()[:-200])
    prof = profile_file(bad, tmp_path)
    assert prof.status == "unreadable" and "truncated or corrupt" in prof.reason
    assert "return None" in prof.loader


def test_feather(tmp_path: Path) -> None:
    f = tmp_path / "trees.feather"
    _frame(50).to_feather(f)
    prof, ns = profile_and_load(f)
    assert prof.format == "feather" and prof.tables[0].n_rows == 50
    assert ns["data"].shape == (50, 4)


def test_list_columns_and_a_named_index_pass_the_loader_check(tmp_path: Path) -> None:
    """A column of lists (some empty) made the check's comparison raise, and a frame saved with
    a named index came back without the column its profile lists."""
    frame = pd.DataFrame({"id": range(6), "tags": [[], ["a"], ["a", "b"], [], ["c", "d", "e"], ["f"]]})
    frame.to_parquet(tmp_path / "tags.parquet")
    prof, ns = profile_and_load(tmp_path / "tags.parquet")
    assert prof.loader_check is not None and prof.loader_check.verified, prof.loader_check

    prices = pd.DataFrame({"close": [1.0, 2.0, 3.0]}, index=pd.Index(pd.date_range("2024-01-01", periods=3), name="date"))
    prices.to_parquet(tmp_path / "prices.parquet")
    prof, ns = profile_and_load(tmp_path / "prices.parquet")
    assert prof.loader_check is not None and prof.loader_check.verified, prof.loader_check
    assert set(ns["data"].columns) == {"date", "close"} and len(ns["data"]) == 3
