"""`lakeboard index` on a lake with a folder it cannot list: recorded with a reason in clusters.json."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


def _as_one_without_read_rights() -> list[str]:
    """A command prefix under which folder permissions hold (root reads through them otherwise)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: a folder with mode 000 can still be listed")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search"]


def test_a_folder_that_cannot_be_listed_is_recorded_and_the_rest_is_indexed(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    (lake / "locked").mkdir(parents=True)
    (lake / "locked" / "hidden_from_us.csv").write_text("a,b\n1,2\n")
    (lake / "open.csv").write_text("a,b\n1,2\n")
    (lake / "locked").chmod(0)
    try:
        done = subprocess.run(
            [*_as_one_without_read_rights(), sys.executable, "-m", "lakeboard.servers.indexing", str(lake),
             "--out", str(tmp_path / "configs"), "--quiet"],
            cwd=REPO, capture_output=True, text=True, timeout=120,
        )
    finally:
        (lake / "locked").chmod(0o755)
    assert done.returncode == 0, done.stderr
    assert "locked/: skipped: cannot list the folder: Permission denied" in done.stdout
    config = json.loads((tmp_path / "configs" / "lake" / "clusters.json").read_text())
    assert config["errors"] == {"locked/": "skipped: cannot list the folder: Permission denied"}
    assert "open.csv" in [f for c in config["clusters"] for f in c["files"]]
