"""GHCN-Daily station files: one row per day and element, -9999 as None, no 31st of February."""

from __future__ import annotations

from pathlib import Path

from lakeboard.servers.profiling.ghcn_daily import read_ghcn_daily
from tests.servers.profiling.loading import profile_and_load


def _line(station: str, year: int, month: int, element: str, values: list[int], mflag: str = " ") -> str:
    days = "".join(f"{v:5d}{mflag if v != -9999 else ' '} W" for v in values)
    return f"{station}{year:04d}{month:02d}{element}{days}"


def test_a_station_file_is_a_row_per_day_and_element(tmp_path: Path) -> None:
    lines = [_line("USW00094728", 2023, m, e, [10 * m + d if d != 5 else -9999 for d in range(31)])
             for m in (1, 2, 3) for e in ("TMAX", "TMIN", "PRCP")]
    f = tmp_path / "USW00094728.dly"
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert prof.format == "ghcn_daily" and df.shape == ((31 + 28 + 31) * 3, 7)
    assert list(df.columns) == ["station", "date", "element", "value", "mflag", "qflag", "sflag"]
    jan = df[(df["element"] == "TMAX") & (df["date"].str.startswith("2023-01"))]
    assert jan["value"].iloc[0] == 10 and jan["value"].isna().sum() == 1
    assert prof.loader_check.verified, prof.loader_check


def test_flags_and_a_short_last_line() -> None:
    rows = read_ghcn_daily([_line("CA001012345", 2024, 2, "PRCP", [0] * 29, mflag="T")])
    assert len(rows) == 29 and rows[0]["mflag"] == "T" and rows[0]["sflag"] == "W" and rows[-1]["date"] == "2024-02-29"
