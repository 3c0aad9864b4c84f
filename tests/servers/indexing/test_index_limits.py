"""The indexer's limits, as a user meets them (issue 24, item 15): a full disk, a killed index's
leftover link, a lake too slow to profile in the time a user gives it.

The full disks are file systems of several sizes, mounted side by side in one bubblewrap; the indexer
runs on each in a fork of one process that imported it once (a run costs its indexing, not two
Python starts), and `lakeboard index` itself runs on one of them.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from lakeboard.servers.indexing import index_lake
from lakeboard.servers.indexing.__main__ import main as indexer_main
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


def tmpfs_of(mounts: Sequence[tuple[int, Path]]) -> list[str]:
    """A command prefix that runs a command with each (size, mount) a fresh file system of size bytes (bubblewrap)."""
    bwrap = shutil.which("bwrap")
    prefix = [bwrap or "bwrap", "--dev-bind", "/", "/"]
    for size, mount in mounts:
        prefix += ["--size", str(size), "--tmpfs", str(mount)]
    prefix.append("--")
    problem = "bubblewrap is not installed" if bwrap is None else None
    if problem is None:
        tried = subprocess.run([*prefix, "true"], capture_output=True, text=True, timeout=30)
        problem = None if tried.returncode == 0 else tried.stderr.strip()
    if problem is not None:
        if os.environ.get("LAKEBOARD_REQUIRE_SANDBOX") == "1":
            pytest.fail(f"LAKEBOARD_REQUIRE_SANDBOX=1 but bubblewrap cannot mount a small file system: {problem}")
        pytest.skip(f"bubblewrap cannot mount a small file system here: {problem}")
    return prefix


# argv: LAKE LOGS MOUNT...; for each MOUNT, a fork of this process runs the indexer as `python -m
# lakeboard.servers.indexing LAKE --out MOUNT/configs --workers 0 --quiet` would, its stdout and stderr
# in LOGS/<i>.out and LOGS/<i>.err; prints each run's exit code as subprocess reports it, one a line.
# First it indexes a one-file scratch lake in LOGS/warm (on the roomy disk) itself, so that every fork
# starts with the indexer's lazy imports and the embedding model loaded, as test_config_set's driver does:
# each fork then costs its own indexing only.
INDEX_ON_EACH = """
import contextlib, os, sys, traceback
from lakeboard.servers.indexing import index_lake  # what the indexer's main imports when it runs
from lakeboard.servers.indexing.__main__ import main

lake, logs, *mounts = sys.argv[1:]
scratch = os.path.join(logs, "warm")
os.makedirs(os.path.join(scratch, "lake", "warm"))
with open(os.path.join(scratch, "lake", "warm", "w.csv"), "w") as f:
    f.write("a,b\\n1,2\\n")
with contextlib.redirect_stdout(sys.stderr):
    if main([os.path.join(scratch, "lake"), "--out", os.path.join(scratch, "out"), "--workers", "0", "--quiet"]) != 0:
        sys.exit("the warm-up index failed")
for i, mount in enumerate(mounts):
    pid = os.fork()
    if pid == 0:
        for fd, kind in ((1, "out"), (2, "err")):
            os.dup2(os.open(os.path.join(logs, f"{i}.{kind}"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), fd)
        try:
            # Profiled in the fork itself: a worker writes nothing on the mount (the indexer writes the cache
            # and the configs), and spawning one would cost each run a Python start; `lakeboard index`
            # below runs as a user runs it, with --workers 1.
            code = main([lake, "--out", os.path.join(mount, "configs"), "--workers", "0", "--quiet"])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code or 0)
    _, status = os.waitpid(pid, 0)
    print(os.waitstatus_to_exitcode(status), flush=True)
"""


def _says_the_disk_is_full(size: int, code: int, stdout: str, stderr: str, configs: Path) -> None:
    message = stderr.strip()
    assert code == 2, f"{size} bytes: {stdout[-500:]}{message[-2000:]}"
    assert "Traceback" not in message and "no transaction is active" not in message, f"{size} bytes: {message}"
    assert message.count("\n") == 0 and message.startswith("lakeboard index: the disk is full: cannot write "), (
        f"{size} bytes: {message}")
    assert str(configs) in message and "free some space" in message, f"{size} bytes: {message}"


def test_a_first_index_onto_a_full_disk_says_so_in_one_sentence(tmp_path: Path) -> None:
    lake = make_lake(tmp_path / "lake", files=60, rows=200, seed=15)
    logs = tmp_path / "logs"
    logs.mkdir()
    # From a disk too small for the cache's first page to one too small only for the config files.
    sizes = sorted({4096, 20480, 65536, 131072, 204800, *random.Random(15).sample(range(4096, 204800), 2)})
    mounts = [(size, tmp_path / f"full{size}") for size in sizes]
    for _, mount in mounts:
        mount.mkdir()
    done = subprocess.run([*tmpfs_of(mounts), sys.executable, "-P", "-c", INDEX_ON_EACH, str(lake), str(logs),
                           *(str(mount) for _, mount in mounts)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=150,
                          env={**os.environ, "FASTMCP_LOG_LEVEL": "WARNING"})
    codes = [int(line) for line in done.stdout.split()]
    assert len(codes) == len(sizes), f"the runs ended early: {done.stderr[-3000:]}"
    for i, ((size, mount), code) in enumerate(zip(mounts, codes)):
        _says_the_disk_is_full(size, code, (logs / f"{i}.out").read_text(), (logs / f"{i}.err").read_text(),
                               mount / "configs")

    # `lakeboard index` (which runs the indexer) says the same, and nothing more.
    size, mount = mounts[0]
    done = lakeboard("index", str(lake), "--out", str(mount / "configs"), "--workers", "1", "--quiet",
                     prefix=tmpfs_of([(size, mount)]), cwd=tmp_path)
    _says_the_disk_is_full(size, done.returncode, done.stdout, done.stderr, mount / "configs")


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

    # The skipped files were not cached as skipped: the next index, without a budget, profiles them. What
    # is checked is the cache the command left, so this index runs in this process (no Python start).
    assert index_lake(lake, name="lake", out=configs, workers=0).errors == {}
    assert json.loads((configs / "lake" / "clusters.json").read_text())["errors"] == {}


def test_the_time_budget_holds_when_files_are_profiled_in_process_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lake = make_lake(tmp_path / "lake", files=5, rows=20, seed=5)
    result = index_lake(lake, name="lake", out=tmp_path / "configs", workers=0, time_budget_s=1e-9)
    assert len(result.errors) == 5 and all("time budget" in why for why in result.errors.values())
    # A budget that is no time at all is refused by the indexer's own argument parsing; `lakeboard index`
    # passes its code and stderr through (the real command runs in the tests above).
    mask = os.umask(0o022)  # an indexer that ran would make this process's new files owner-only: put back
    try:
        with pytest.raises(SystemExit) as bad:
            indexer_main([str(lake), "--out", str(tmp_path / "configs"), "--time-budget", "-1"])
    finally:
        os.umask(mask)
    said = capsys.readouterr().err
    assert bad.value.code == 2 and "not a number of seconds above 0" in said, said
