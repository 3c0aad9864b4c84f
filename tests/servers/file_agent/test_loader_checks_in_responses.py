"""A loader's check at index time travels with it: on the typed loader, beside it in the
response's explanation, and in what `lakeboard index` prints."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from lakeboard.common.loader_programs import loading_code
from lakeboard.servers.file_agent.response_writing import explanation, loaders
from lakeboard.servers.profiling import profile_file


def _lake(root: Path) -> Path:
    root.mkdir()
    (root / "readings.csv").write_text("day,site,pm25\n1,S1,3.5\n2,S2,4.0\n3,S1,2.5\n")
    # object arrays are pickled: their loader is never run at index time, so it stays unverified
    np.save(root / "objects.npy", np.array([{"site": "S1"}, None], dtype=object), allow_pickle=True)
    return root


def test_loaders_carry_their_check_and_what_they_should_load(tmp_path: Path) -> None:
    lake = _lake(tmp_path / "lake")
    readings, objects = (profile_file(lake / name, lake) for name in ("readings.csv", "objects.npy"))

    good, bad = loaders([readings, objects], {}, {})

    assert good.check is not None and good.check.verified
    [expects] = good.expects
    assert (expects.columns, expects.numeric, expects.rows) == (["day", "site", "pm25"], ["day", "pm25"], 3)
    assert bad.check is not None and not bad.check.verified and bad.expects == []
    assert "loader is" not in explanation(readings)
    assert "  Its loader is unverified: not run: it unpickles objects from the file" in explanation(objects)
    program = loading_code([good, bad], lake)  # the code a person reads says it too, beside the function
    assert program.count("# unverified: not run") == 1
    assert program.index("# unverified: not run") < program.index(f"def {bad.function}(path):")


def test_index_prints_the_share_of_verified_loaders(tmp_path: Path) -> None:
    lake = _lake(tmp_path / "lake")
    run = subprocess.run(
        [sys.executable, "-P", "-m", "lakeboard.servers.indexing", str(lake), "--out", str(tmp_path / "configs"),
         "--quiet", "--workers", "1"],
        capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    lines = run.stdout.splitlines()
    assert "1 of 2 loaders verified (50%): each run on its file and compared with the profile" in lines
    assert any(line.startswith("  unverified objects.npy: not run: it unpickles objects") for line in lines), lines
