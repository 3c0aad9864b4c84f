"""Lines of several record types in one file (a GPS log's sentences): a table per type."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from tests.servers.profiling.loading import profile_and_load


def _log(tmp_path: Path, extra: str = "") -> Path:
    lines = []
    for i in range(40):
        lines.append(f"$GPGGA,12{i:04d}.00,4807.{i:03d},N,01131.{i:03d},E,1,08,0.9,545.{i % 10},M,46.9,M,,*47")
        if i % 2 == 0:
            lines.append(f"$GPRMC,12{i:04d}.00,A,4807.{i:03d},N,01131.{i:03d},E,022.4,084.4,230394,003.1,W*6A")
    f = tmp_path / "track.nmea"
    f.write_text("\n".join(lines) + "\n" + extra)
    return f


def test_each_record_type_is_a_table_of_its_own(tmp_path: Path) -> None:
    """Read as one CSV, rows of one type were taken for the other's header and 59 rows were lost."""
    prof, ns = profile_and_load(_log(tmp_path))
    assert prof.status == "ok" and [(t.name, t.n_rows) for t in prof.tables] == [("$GPGGA", 40), ("$GPRMC", 20)]
    assert prof.loader_check.verified, prof.loader_check
    gga, rmc = ns["data"]["$GPGGA"], ns["data"]["$GPRMC"]
    assert gga.shape == (40, 15) and rmc.shape == (20, 12)
    assert gga[8].iloc[3] == 0.9 and gga[13].isna().all() and rmc[2].iloc[0] == "A"


def test_a_line_of_a_type_with_other_fields_is_left_out_alike(tmp_path: Path) -> None:
    prof, ns = profile_and_load(_log(tmp_path, extra="$GPGGA,cut short\n"))
    assert prof.tables[0].n_rows == 40 and len(ns["data"]["$GPGGA"]) == 40 and prof.loader_check.verified


def test_a_category_column_of_one_layout_stays_one_table(tmp_path: Path) -> None:
    f = tmp_path / "sales.csv"
    f.write_text("region,month,amount\n" + "".join(f"{r},{m},{m * 10}\n" for r in ("north", "south") for m in range(1, 13)))
    prof, ns = profile_and_load(f)
    assert len(prof.tables) == 1 and "record_type" not in prof.tables[0].options
    assert isinstance(ns["data"], pd.DataFrame) and ns["data"].shape == (24, 3)


def test_a_log_of_record_types_inside_a_zip_is_loaded_alike(tmp_path: Path) -> None:
    import zipfile

    log = _log(tmp_path)
    f = tmp_path / "logs.zip"
    with zipfile.ZipFile(f, "w") as z:
        z.write(log, "day1/track.txt")
    log.unlink()
    prof, ns = profile_and_load(f)
    assert [t.name for t in prof.tables] == ["day1/track.txt: $GPGGA", "day1/track.txt: $GPRMC"], prof.summary
    assert prof.loader_check.verified, prof.loader_check
    assert ns["data"]["day1/track.txt: $GPGGA"].shape == (40, 15)
