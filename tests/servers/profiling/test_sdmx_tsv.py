"""Eurostat's TSV layout (SDMX-TSV): joined dimension codes, periods across, values with flags."""

from __future__ import annotations

import gzip
from pathlib import Path

from lakeboard.servers.profiling.sdmx_tsv import looks_like, read_sdmx_tsv
from tests.servers.profiling.loading import profile_and_load

DOCUMENT = ("freq,unit,geo\\TIME_PERIOD\t2021 \t2022 \t2023 \n"
            "A,PC,AT\t6.2 \t4.8 p\t: \n"
            "A,PC,BE\t6.3 \t: c\t5.5 e\n"
            "A,PC,BG\t5.3 \t4.3 \t4.3 b\n")


def test_a_row_per_series_and_period_with_its_flags() -> None:
    rows = read_sdmx_tsv(DOCUMENT.splitlines(keepends=True))
    assert len(rows) == 9
    assert rows[1] == {"freq": "A", "unit": "PC", "geo": "AT", "TIME_PERIOD": "2022", "value": 4.8, "flag": "p"}
    assert rows[4]["value"] is None and rows[4]["flag"] == "c" and rows[2]["value"] is None
    assert looks_like(DOCUMENT.splitlines()) and not looks_like(["a\tb", "1\t2"])


def test_a_file_loads_as_the_long_table_also_compressed(tmp_path: Path) -> None:
    """Read as a TSV every column was text and the codes stayed joined."""
    for name, data in (("une_rt_a.tsv", DOCUMENT.encode()), ("une_rt_a.tsv.gz", gzip.compress(DOCUMENT.encode()))):
        f = tmp_path / name
        f.write_bytes(data)
        prof, ns = profile_and_load(f)
        t = prof.tables[0]
        assert prof.format == "sdmx_tsv" and [c.name for c in t.columns] == ["freq", "unit", "geo", "TIME_PERIOD",
                                                                              "value", "flag"]
        df = ns["data"]
        assert df.shape == (9, 6) and df["value"].isna().sum() == 2 and df["value"].dtype == float
        assert prof.loader_check.verified, prof.loader_check
