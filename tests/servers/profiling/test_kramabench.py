"""Acceptance: every file of the KramaBench lakes is profiled, and its generated loader,
run in a fresh Python process, yields non-empty data (or the profile says why the file
is not data); every data file's loader was checked when profiled (verified, or unverified
with the reasons, which are printed)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.profiling import iter_lake_files, profile_file

KRAMABENCH = Path(__file__).resolve().parents[3] / ".." / "shared" / "kramabench"
LAKES = ["archeology", "legal", "wildfire"]

# Runs every snippet in its own namespace; one failing snippet does not stop the others.
RUNNER = r"""
import json, signal, sys, traceback

def size_of(v):
    if v is None:
        return 0
    if hasattr(v, "shape") and hasattr(v, "size"):
        return int(v.size) if not hasattr(v, "columns") else int(v.shape[0] * max(1, v.shape[1]) if v.shape[1] else 0)
    if isinstance(v, dict):
        sizes = [size_of(x) for x in v.values()]
        return min(sizes) if sizes else 0  # every table of a file must load
    if isinstance(v, (str, bytes, list, tuple)):
        return len(v.strip()) if isinstance(v, str) else len(v)
    return 1

def on_alarm(signum, frame):
    raise TimeoutError("loader took longer than 120 s")

signal.signal(signal.SIGALRM, on_alarm)
results = {}
for item in json.load(sys.stdin):
    ns = {}
    signal.alarm(120)
    try:
        exec(compile(item["loader"], item["path"], "exec"), ns)
        results[item["path"]] = {"error": None, "size": size_of(ns.get("data")), "has_data": "data" in ns}
    except BaseException as e:
        results[item["path"]] = {"error": f"{type(e).__name__}: {e}"[:300], "size": 0, "has_data": False}
    finally:
        signal.alarm(0)
json.dump(results, sys.stdout)
"""


@pytest.fixture(scope="module")
def loaded() -> dict[str, tuple[list[FileProfile], dict[str, dict]]]:
    """Every lake found: its files' profiles, and what their loaders gave when run in a fresh Python process.
    One process runs the loaders of all the lakes (each snippet in its own namespace): one Python start."""
    profiles = {}
    for lake in LAKES:
        root = (KRAMABENCH / lake / "input").resolve()
        if root.is_dir():
            profiles[lake] = [profile_file(p, root) for p in iter_lake_files(root)]
    items = [{"path": f"{lake}/{p.path}", "loader": p.loader} for lake, found in profiles.items() for p in found]
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER], input=json.dumps(items), capture_output=True, text=True, timeout=850
    )
    assert proc.returncode == 0, f"loader runner died: {proc.stderr[-2000:]}"
    results = json.loads(proc.stdout)
    return {lake: (found, {p.path: results[f"{lake}/{p.path}"] for p in found}) for lake, found in profiles.items()}


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("lake", LAKES)
def test_every_kramabench_file_loads(lake: str, loaded: dict[str, tuple[list[FileProfile], dict[str, dict]]]) -> None:
    root = (KRAMABENCH / lake / "input").resolve()
    if lake not in loaded:
        pytest.skip(f"KramaBench lake {lake} not found at {root}")
    profiles, results = loaded[lake]
    assert profiles, f"no files found in {root}"

    rows, failures = [], []
    for p in profiles:
        r = results[p.path]
        if p.status == "ok":
            good = r["error"] is None and r["size"] > 0
            outcome = "ok" if good else f"FAIL {r['error'] or 'empty data'}"
        else:
            good = bool(p.reason) and r["error"] is None
            outcome = f"not data: {p.reason}" if good else f"FAIL no reason / loader error {r['error']}"
        rows.append(f"{outcome[:90]:90} {p.status:10} {p.format:6} {p.path}")
        if not good:
            failures.append(p.path)
    table = "\n".join(rows)
    print(f"\n{lake}: {len(profiles) - len(failures)}/{len(profiles)} files load\n{table}")
    assert not failures, f"{len(failures)} files of {lake} do not load:\n{table}"

    # Each data file's loader was run on it when profiled, and checked against its profile.
    data = [p for p in profiles if p.ok]
    unchecked = [p.path for p in data if p.loader_check is None]
    assert not unchecked, f"files of {lake} profiled without a loader check: {unchecked}"
    unverified = [f"  {p.path}: {'; '.join(p.loader_check.reasons)}" for p in data if not p.loader_check.verified]
    assert all(p.loader_check.verified or p.loader_check.reasons for p in data), "an unverified loader without a reason"
    print(f"{lake}: {len(data) - len(unverified)}/{len(data)} loaders verified" + "".join(f"\n{u}" for u in unverified))
