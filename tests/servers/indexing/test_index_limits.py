"""The indexer's limits, as a user meets them (issue 24, item 15): a full disk, a killed index's
leftover link, a lake too slow to profile in the time a user gives it."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lakeboard.servers.indexing import index_lake
from lakeboard.servers.indexing.config_set import CURRENT

pytestmark = pytest.mark.timeout(180)

CONFIG_FILES = ("clusters.json", "servers.json", "relevance")


def make_lake(folder: Path, files: int, rows: int, seed: int) -> Path:
    rng = random.Random(seed)
    for i in range(files):
        part = folder / f"part{i % 3}"
        part.mkdir(parents=True, exist_ok=True)
        body = "".join(f"{rng.random():.6f},{rng.randint(0, 10**6)},{rng.choice('abcdef') * rng.randint(1, 9)}\n"
                       for _ in range(rows))
        (part / f"readings_{i}.csv").write_text("value,count,label\n" + body)
    return folder


def lakeboard(*args: str, prefix: list[str] = (), cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*prefix, sys.executable, "-P", "-m", "lakeboard.host.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "FASTMCP_LOG_LEVEL": "WARNING"})


def tmpfs_of(size: int, mount: Path) -> list[str]:
    """A command prefix that runs a command with `mount` a fresh file system of `size` bytes (bubblewrap)."""
    bwrap = shutil.which("bwrap")
    prefix = [bwrap or "bwrap", "--dev-bind", "/", "/", "--size", str(size), "--tmpfs", str(mount), "--"]
    problem = "bubblewrap is not installed" if bwrap is None else None
    if problem is None:
        tried = subprocess.run([*prefix, "true"], capture_output=True, text=True, timeout=30)
        problem = None if tried.returncode == 0 else tried.stderr.strip()
    if problem is not None:
        if os.environ.get("LAKEBOARD_REQUIRE_SANDBOX") == "1":
            pytest.fail(f"LAKEBOARD_REQUIRE_SANDBOX=1 but bubblewrap cannot mount a small file system: {problem}")
        pytest.skip(f"bubblewrap cannot mount a small file system here: {problem}")
    return prefix


def test_a_first_index_onto_a_full_disk_says_so_in_one_sentence(tmp_path: Path) -> None:
    lake = make_lake(tmp_path / "lake", files=60, rows=200, seed=15)
    full = tmp_path / "full"
    full.mkdir()
    # From a disk too small for the cache's first page to one too small only for the config files.
    sizes = sorted({4096, 20480, 65536, 131072, 204800, *random.Random(15).sample(range(4096, 204800), 2)})
    for size in sizes:
        done = lakeboard("index", str(lake), "--out", str(full / "configs"), "--workers", "1", "--quiet",
                         prefix=tmpfs_of(size, full), cwd=tmp_path)
        message = done.stderr.strip()
        assert done.returncode == 2, f"{size} bytes: {done.stdout[-500:]}{message[-2000:]}"
        assert "Traceback" not in message and "no transaction is active" not in message, f"{size} bytes: {message}"
        assert message.count("\n") == 0 and message.startswith("lakeboard index: the disk is full: cannot write "), (
            f"{size} bytes: {message}")
        assert str(full / "configs") in message and "free some space" in message


def test_a_temporary_link_left_by_a_killed_index_is_removed_by_the_next(tmp_path: Path) -> None:
    lake = make_lake(tmp_path / "lake", files=3, rows=5, seed=2)
    config = index_lake(lake, name="lake", out=tmp_path / "configs", workers=0).config_dir
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    rng = random.Random(3)
    stale = []
    for name in (CURRENT, *CONFIG_FILES):
        for pid in (dead.pid, os.getpid(), rng.randint(10**6, 4 * 10**6)):  # gone, alive (not an index), never
            link = config / f".{name}.{pid}.link"
            link.symlink_to(rng.choice(["sets/20240101-000000-gone", f"{CURRENT}/{name}"]))
            stale.append(link)
    kept = config / ".notes.12.link"  # not a name the index links: not its to remove
    kept.symlink_to("elsewhere")

    index_lake(lake, name="lake", out=tmp_path / "configs", workers=0)
    assert [p.name for p in stale if p.is_symlink()] == []
    assert kept.is_symlink()
    assert json.loads((config / "clusters.json").read_text())["name"] == "lake"


def test_files_left_when_the_time_budget_runs_out_are_skipped_with_the_reason(tmp_path: Path) -> None:
    lake = make_lake(tmp_path / "lake", files=12, rows=50, seed=4)
    configs = tmp_path / "configs"
    done = lakeboard("index", str(lake), "--out", str(configs), "--time-budget", "0.000001", "--workers", "1",
                     cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    config = json.loads((configs / "lake" / "clusters.json").read_text())
    files = {f for c in config["clusters"] for f in c["files"]}
    assert len(files) == 12 and set(config["errors"]) == files  # every file is listed, none profiled
    assert all("time budget" in why and "--time-budget" in why for why in config["errors"].values())
    assert (configs / "lake" / "servers.json").is_file()

    # The skipped files were not cached as skipped: the next index, without a budget, profiles them.
    done = lakeboard("index", str(lake), "--out", str(configs), "--workers", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads((configs / "lake" / "clusters.json").read_text())["errors"] == {}


def test_the_time_budget_holds_when_files_are_profiled_in_process_too(tmp_path: Path) -> None:
    lake = make_lake(tmp_path / "lake", files=5, rows=20, seed=5)
    result = index_lake(lake, name="lake", out=tmp_path / "configs", workers=0, time_budget_s=1e-9)
    assert len(result.errors) == 5 and all("time budget" in why for why in result.errors.values())
    bad = lakeboard("index", str(lake), "--out", str(tmp_path / "configs"), "--time-budget", "-1", cwd=tmp_path)
    assert bad.returncode == 2 and "not a number of seconds above 0" in bad.stderr
