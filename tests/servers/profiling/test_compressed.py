"""Compressed text files (gzip, bzip2, xz, zstd) are read by what they hold, named so or not."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
from pathlib import Path

import pandas as pd
import pytest
import zstandard

from tests.servers.profiling.loading import profile_and_load

FRAME = pd.DataFrame({"station": ["north", "south", "east"], "rain_mm": [0.5, 1.25, 3.0]})
COMPRESS = {"gzip": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress,
            "zstd": lambda b: zstandard.ZstdCompressor().compress(b)}
SUFFIX = {"gzip": ".gz", "bz2": ".bz2", "xz": ".xz", "zstd": ".zst"}


@pytest.mark.parametrize("compression", list(COMPRESS))
@pytest.mark.parametrize("named", [True, False])
def test_a_compressed_csv_with_a_preamble_is_profiled_and_loaded(tmp_path: Path, compression: str, named: bool) -> None:
    text = "Rainfall at the county's gauges\n\n" + FRAME.to_csv(index=False)
    f = tmp_path / ("rain.csv" + (SUFFIX[compression] if named else ""))
    f.write_bytes(COMPRESS[compression](text.encode()))
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.format == "csv", prof.reason
    assert prof.attributes["compression"] == compression
    assert prof.tables[0].notes == ["Rainfall at the county's gauges"]
    assert "None" not in prof.summary, prof.summary  # a compressed file's rows are not counted: it says so
    assert prof.loader_check is not None and prof.loader_check.verified, prof.loader_check
    pd.testing.assert_frame_equal(ns["data"], FRAME)


@pytest.mark.parametrize("compression", list(COMPRESS))
def test_compressed_json_and_json_lines_are_loaded(tmp_path: Path, compression: str) -> None:
    records = FRAME.to_dict("records")
    whole = tmp_path / f"rain.json{SUFFIX[compression]}"
    whole.write_bytes(COMPRESS[compression](json.dumps({"rows": records}).encode()))
    lines = tmp_path / f"rain.jsonl{SUFFIX[compression]}"
    lines.write_bytes(COMPRESS[compression]("".join(json.dumps(r) + "\n" for r in records).encode()))
    for f in (whole, lines):
        prof, ns = profile_and_load(f)
        assert prof.status == "ok" and prof.tables, prof.reason
        pd.testing.assert_frame_equal(ns["data"], FRAME)


@pytest.mark.parametrize("compression", ["bz2", "xz", "zstd"])
def test_damaged_compressed_data_says_so(tmp_path: Path, compression: str) -> None:
    f = tmp_path / f"rain.csv{SUFFIX[compression]}"
    f.write_bytes(COMPRESS[compression](b"a,b\n1,2\n" * 1000)[:40] + b"\x00" * 40)
    prof, _ = profile_and_load(f)
    assert prof.status != "ok" and "does not decompress" in prof.reason, prof.reason


def test_a_compressed_binary_format_says_to_decompress_it(tmp_path: Path) -> None:
    """Parquet and NumPy readers open the file itself: compressed, it was 'truncated or corrupt'."""
    import io

    buf = io.BytesIO()
    FRAME.to_parquet(buf)
    f = tmp_path / "rain.parquet.gz"
    f.write_bytes(gzip.compress(buf.getvalue()))
    prof, ns = profile_and_load(f)
    assert prof.status == "unreadable" and ns["data"] is None
    assert prof.reason == "a Parquet file compressed with gzip: decompress it to read it", prof.reason
