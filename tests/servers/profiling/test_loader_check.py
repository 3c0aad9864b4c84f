"""Each file's generated loader is run on the file when it is profiled, and checked against the profile."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import numpy as np
import pytest
from lakeboard.servers.profiling import loader_check, profile_file, profile_lake
from lakeboard.servers.profiling.loader_check import check_loader


def _csv(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_a_good_csv_is_verified_when_profiled(tmp_path: Path) -> None:
    path = _csv(tmp_path / "rain.csv", "Rainfall at the station\n\nyear,rain,site\n1998,1.5,a\n1999,2.0,b\n2000,0.5,c\n")
    prof = profile_file(path, tmp_path)
    check = prof.loader_check
    assert check is not None and check.verified, check
    assert (check.tables, check.rows, check.columns) == (1, 3, 3)
    assert check.seconds is not None and check.seconds < loader_check.LOADER_CHECK_S
    assert check.sentence().startswith("verified")


def test_a_loader_that_disagrees_with_its_profile_is_unverified_with_the_reason(tmp_path: Path) -> None:
    path = _csv(tmp_path / "rain.csv", "Rainfall at the station\n\nyear,rain,site\n1998,1.5,a\n1999,2.0,b\n2000,0.5,c\n")
    prof = profile_file(path, tmp_path)
    [table] = prof.tables
    assert table.options["skiprows"] == 2
    wrong = prof.model_copy(deep=True)
    wrong.tables[0].options["skiprows"] = 3  # one line too many: the first data row becomes the header

    check = check_loader(wrong, path)

    assert not check.verified
    assert check.reasons == [
        "column names differ: it lacks columns 'year', 'rain', 'site' and it has columns '1998', '1.5', 'a' "
        "that the profile does not",
        "2 rows loaded, the profile counted 3",
    ]
    assert check.sentence().startswith("unverified: column names differ")


def test_a_loader_that_fails_is_unverified_with_its_error(tmp_path: Path) -> None:
    path = _csv(tmp_path / "a.csv", "a,b\n1,2\n")
    wrong = profile_file(path, tmp_path).model_copy(deep=True)
    wrong.tables[0].options["usecols"] = ["a", "nope"]
    check = check_loader(wrong, path)
    assert not check.verified and check.reasons[0].startswith("it failed: ValueError:"), check.reasons


def test_a_loader_that_never_returns_is_stopped_within_its_budget(tmp_path: Path) -> None:
    path = _csv(tmp_path / "a.csv", "a,b\n1,2\n")
    prof = profile_file(path, tmp_path)
    fifo = tmp_path / "never.csv"
    os.mkfifo(fifo)  # nobody writes: opening it waits forever
    t0 = time.monotonic()
    check = check_loader(prof, fifo, budget_s=1.0)
    assert time.monotonic() - t0 < 5
    assert not check.verified and check.reasons == ["it ran longer than 1 s on this file and was stopped"]
    assert profile_file(path, tmp_path).loader_check.verified  # and the next check runs as usual


def test_a_loader_that_needs_too_much_memory_is_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "big.csv"
    with open(path, "w") as f:
        f.write("a,b,c,d,e,f,g,h\n")
        f.write("1,2,3,4,5,6,7,8\n" * 1_000_000)  # 64 MB as a frame of int64
    prof = profile_file(path, tmp_path)
    assert prof.loader_check is not None and prof.loader_check.verified, prof.loader_check
    monkeypatch.setattr(loader_check, "LOADER_MEMORY", 16 << 20)

    check = check_loader(prof, path)

    assert not check.verified
    assert check.reasons == ["it needed more than 16 MB of memory on this file and was stopped"]


def test_a_loader_that_crashes_its_process_costs_only_its_check(tmp_path: Path) -> None:
    path = _csv(tmp_path / "a.csv", "a,b\n1,2\n")
    prof = profile_file(path, tmp_path)
    crashing = prof.model_copy(update={"format": "json", "tables": []})  # a loader that runs json.load
    crashing.encoding = "utf-8"
    fifo = tmp_path / "crash.json"
    os.mkfifo(fifo)
    # the child stops itself with SIGSEGV while it waits on the pipe; this process goes on
    import threading

    def crash_child() -> None:
        time.sleep(0.5)
        for pid in _children():
            os.kill(pid, signal.SIGSEGV)

    threading.Thread(target=crash_child, daemon=True).start()
    check = check_loader(crashing, fifo, budget_s=10.0)
    assert not check.verified and check.reasons == [f"it crashed the process that ran it (signal {signal.SIGSEGV})"]


def _children() -> list[int]:
    me = os.getpid()
    out = []
    for task in Path(f"/proc/{me}/task").iterdir():
        children = task / "children"
        if children.exists():
            out += [int(p) for p in children.read_text().split()]
    return out


def test_a_file_bigger_than_checks_read_is_not_run(tmp_path: Path) -> None:
    path = tmp_path / "huge.csv"
    with open(path, "w") as f:
        f.write("id,value\n" + "".join(f"{i},{i * 2}\n" for i in range(1000)))
    os.truncate(path, loader_check.LOADER_CHECK_BYTES + 1)  # sparse: the rest reads as NUL bytes
    t0 = time.monotonic()
    check = profile_file(path, tmp_path).loader_check
    assert time.monotonic() - t0 < 10
    assert check is not None and not check.verified
    assert check.reasons == ["not run: the file is 256 MB, and loaders are run at index time on files up to 256 MB"]


def test_arrays_and_documents_are_verified_by_their_kind(tmp_path: Path) -> None:
    np.save(tmp_path / "x.npy", np.arange(12.0).reshape(3, 4))
    (tmp_path / "notes.md").write_text("# Notes\nThe station moved in 2001.\n")
    checks = {p: profile_file(tmp_path / p, tmp_path).loader_check for p in ("x.npy", "notes.md")}
    assert all(c is not None and c.verified for c in checks.values()), checks
    assert checks["x.npy"].rows == 3


def test_a_pickled_array_is_not_run(tmp_path: Path) -> None:
    np.save(tmp_path / "objects.npy", np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    check = profile_file(tmp_path / "objects.npy", tmp_path).loader_check
    assert check is not None and not check.verified
    assert check.reasons[0].startswith("not run: it unpickles objects from the file")


def test_a_file_that_is_not_data_gets_no_check(tmp_path: Path) -> None:
    (tmp_path / "empty.csv").write_text("")
    prof = profile_file(tmp_path / "empty.csv", tmp_path)
    assert prof.status == "empty" and prof.loader_check is None


def test_profiling_workers_check_each_loader(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    lake.mkdir()
    _csv(lake / "good.csv", "year,rain\n1998,1.5\n1999,2.0\n")
    # files pasted together, more than the reader splits into tables: their headers are among the data
    _csv(lake / "stacked.csv", "".join("year,rain,site\n1998,1.5,a\n1999,1.5,a\n2000,1.5,a\n" for _ in range(25)))

    profiles = {p.path: p for p in profile_lake(lake, tmp_path / "cache", workers=1)}

    assert profiles["good.csv"].loader_check is not None and profiles["good.csv"].loader_check.verified
    stacked = profiles["stacked.csv"].loader_check
    assert stacked is not None and not stacked.verified
    assert stacked.reasons == ["24 data rows repeat the column names (a header read as data)"]


def test_the_check_ends_well_inside_the_pools_bound_on_a_file() -> None:
    from lakeboard.servers.profiling.worker_pool import DEFAULT_TIMEOUT_S

    assert loader_check.LOADER_CHECK_S < loader_check.CHECK_ENDS_BY_S < DEFAULT_TIMEOUT_S - 10
    assert loader_check.check_budget(2.0) == loader_check.LOADER_CHECK_S
    assert loader_check.check_budget(40.0) == loader_check.CHECK_ENDS_BY_S - 40.0
    assert loader_check.check_budget(50.0) == 0.0
