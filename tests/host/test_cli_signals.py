"""Ctrl-C and a killed indexer: one line that says what happened, the shell's exit code, no traceback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

from lakeboard.servers.indexing import index_lake


def _as_a_terminal_starts_it() -> None:
    """Ctrl-C with its default action and not blocked, as a shell starts a command in the foreground,
    whatever the test process inherited."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _lakeboard(*args: str, cwd: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k == "LAKEBOARD_HOME" or not k.startswith(("LAKEBOARD_", "OPENAI_"))}
    return subprocess.Popen([sys.executable, "-P", "-m", "lakeboard.host.cli", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True,  # its own process group, as a terminal gives it
                            preexec_fn=_as_a_terminal_starts_it)


def _sigint_state(pid: int) -> dict[str, bool]:
    """Whether SIGINT is blocked, ignored or caught in `pid` (from /proc): said when a test fails."""
    bit = 1 << (signal.SIGINT - 1)
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    masks = {k: int(v, 16) for k, v in (line.split(":\t") for line in status if line.startswith(("SigBlk", "SigIgn", "SigCgt")))}
    return {name: bool(mask & bit) for name, mask in masks.items()}


def _lake(tmp_path: Path) -> Path:
    """A lake of a few hundred small tables: its indexer runs for a few seconds, long enough to interrupt."""
    lake = tmp_path / "lake"
    for i in range(400):
        folder = lake / f"station_{i % 20}"
        folder.mkdir(parents=True, exist_ok=True)
        rows = "".join(f"2024-01-{d:02d},{(i * d) % 97},{d % 7}\n" for d in range(1, 29))
        (folder / f"readings_{i}.csv").write_text("day,rainfall_mm,wind\n" + rows)
    return lake


def _wait_for_indexer(proc: subprocess.Popen) -> psutil.Process:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for child in psutil.Process(proc.pid).children(recursive=True):
            try:
                if "lakeboard.servers.indexing" in child.cmdline():
                    return child
            except psutil.NoSuchProcess:
                pass
        if proc.poll() is not None:
            raise AssertionError(f"lakeboard index ended first: {proc.communicate()}")
        time.sleep(0.02)
    raise AssertionError("the indexer never started")


def test_ctrl_c_during_index_prints_one_line_and_exits_130(tmp_path: Path) -> None:
    proc = _lakeboard("index", str(_lake(tmp_path)), "--out", str(tmp_path / "configs"), cwd=tmp_path)
    _wait_for_indexer(proc)
    # Inside the indexer's work, past its imports: once it has opened its profile cache (a fixed sleep
    # was not enough on a loaded machine, where the indexer was still importing).
    deadline = time.monotonic() + 60
    while not any((tmp_path / "configs").rglob("profiles.sqlite")):
        assert time.monotonic() < deadline and proc.poll() is None, "the indexer opened no profile cache"
        time.sleep(0.02)
    state = _sigint_state(proc.pid)
    os.killpg(proc.pid, signal.SIGINT)  # what the terminal does: the whole group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (err, state)
    assert "Traceback" not in err and "lakeboard index: interrupted" in err


def test_a_killed_indexer_is_named_and_its_signal_given(tmp_path: Path) -> None:
    proc = _lakeboard("index", str(_lake(tmp_path)), "--out", str(tmp_path / "configs"), cwd=tmp_path)
    _wait_for_indexer(proc).kill()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGKILL, err
    assert "lakeboard index: the indexer was stopped by SIGKILL" in err and "Run `lakeboard index` again" in err


def _lake_of_a_few_helpers(tmp_path: Path) -> Path:
    """Two small tables and a document: a few helpers to start (file agents and a search agent), started fast."""
    lake = tmp_path / "small-lake"
    (lake / "transit").mkdir(parents=True)
    (lake / "docs").mkdir()
    (lake / "transit" / "boardings_2024.csv").write_text("day,route,boardings\n2024-01-01,R1,310\n2024-01-01,R2,95\n")
    (lake / "transit" / "routes.csv").write_text("route,name\nR1,Harbour line\nR2,Hill line\n")
    (lake / "docs" / "counting.md").write_text("Boardings are counted at the front door of each bus.\n")
    return lake


def test_ctrl_c_during_discover_prints_one_line_and_exits_130(tmp_path: Path) -> None:
    # Indexed in this process (workers=0): what is interrupted here is `discover`; `index` is interrupted above.
    lake = _lake_of_a_few_helpers(tmp_path)
    config_dir = index_lake(lake, name="demo", out=tmp_path / "configs", workers=0).config_dir
    servers = json.loads((config_dir / "servers.json").read_text())["mcpServers"]
    helper_modules = {"lakeboard.servers.file_agent", "lakeboard.servers.search_agent"}
    helpers = [name for name, entry in servers.items() if helper_modules & set(entry["args"])]
    assert len(helpers) >= 2, helpers  # the wait below counts two helper processes
    proc = _lakeboard("discover", str(config_dir), "daily bus boardings per route", cwd=tmp_path)
    deadline = time.monotonic() + 60  # interrupt once its helpers are starting
    while time.monotonic() < deadline and len(psutil.Process(proc.pid).children(recursive=True)) < 2:
        time.sleep(0.02)
    state = _sigint_state(proc.pid)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (err, state)
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "lakeboard discover: interrupted"
