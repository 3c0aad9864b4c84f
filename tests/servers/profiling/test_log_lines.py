"""Log files read as tables: access logs (NCSA common and combined) and applications' logs."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakeboard.servers.profiling import profile_file
from lakeboard.servers.profiling.log_lines import read_access_log, read_app_log
from tests.servers.profiling.loading import profile_and_load

COMBINED = ('192.0.2.{i} - {user} [15/Mar/2024:06:{m:02d}:21 +0100] "GET /item/{i}?q=a%20b HTTP/1.1" {status} {size} '
            '"https://example.com/" "Mozilla/5.0 (X11; Linux x86_64)"')


def test_a_combined_access_log_is_a_row_per_request(tmp_path: Path) -> None:
    lines = [COMBINED.format(i=i, m=i % 60, user="frank" if i % 4 == 0 else "-", status=200 if i % 5 else 404,
                             size="-" if i % 7 == 0 else 1000 + i) for i in range(30)]
    f = tmp_path / "access.log"
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert prof.format == "access_log" and df.shape == (30, 10)
    assert df["status"].dtype == "int64" and (df["status"] == 404).sum() == 6
    assert df["size"].isna().sum() == 5 and df["user"].notna().sum() == 8
    assert df["path"].iloc[1] == "/item/1?q=a%20b" and df["method"].iloc[0] == "GET"
    assert prof.loader_check.verified, prof.loader_check


def test_the_common_format_has_no_referrer() -> None:
    rows = read_access_log(['10.0.0.1 - - [01/Jan/2024:00:00:01 +0000] "POST /login HTTP/1.0" 302 0'])
    assert rows[0]["status"] == 302 and rows[0]["referrer"] is None and rows[0]["size"] == 0


def test_an_application_log_joins_a_traceback_to_its_event(tmp_path: Path) -> None:
    lines = []
    for i in range(20):
        level = "ERROR" if i % 6 == 5 else "INFO"
        lines.append(f"2024-05-20 14:{i:02d}:24,906 - app.worker - {level} - Job {i} finished")
        if level == "ERROR":
            lines += ["Traceback (most recent call last):", '  File "/srv/app/worker.py", line 88, in run',
                      "ValueError: bad payload"]
    f = tmp_path / "server_output.txt"  # no .log: the lines tell it
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert prof.format == "app_log" and df.shape == (20, 4)
    assert list(df.columns) == ["time", "level", "logger", "message"]
    assert (df["level"] == "ERROR").sum() == 3 and df["logger"].iloc[0] == "app.worker"
    assert df["message"].iloc[5].endswith("ValueError: bad payload")
    assert prof.loader_check.verified, prof.loader_check


def test_levels_in_brackets_and_iso_stamps() -> None:
    rows = read_app_log(["2024-05-20T14:00:24Z [WARN] disk almost full", "[2024-05-20 14:00:25.123] INFO: started"])
    assert [(r["level"], r["message"]) for r in rows] == [("WARN", "disk almost full"), ("INFO", "started")]


@pytest.mark.parametrize("rows", [
    [f"2024-01-01 00:{i:02d}:00,{5 + i / 10:.1f},{3 + i}" for i in range(20)],  # a time, then values
    [f"2024-01-01 00:{i:02d}:00,{512 + i}" for i in range(20)],  # a time and a value of three digits
])
def test_a_table_whose_first_column_is_a_time_stays_a_table(tmp_path: Path, rows: list[str]) -> None:
    f = tmp_path / "series.csv"
    f.write_text("\n".join(rows) + "\n")
    prof = profile_file(f, tmp_path)
    assert prof.format == "csv" and prof.tables[0].n_rows == 20
