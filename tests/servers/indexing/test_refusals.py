"""The indexer refuses a lake that is not a folder before it imports profiling and relevance."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.import_times import imported, said


def test_a_missing_lake_is_refused_in_one_sentence_before_the_heavy_imports(tmp_path: Path) -> None:
    missing = tmp_path / "no such lake"
    done = subprocess.run(
        [sys.executable, "-P", "-X", "importtime", "-m", "lakeboard.servers.indexing", str(missing),
         "--out", str(tmp_path / "configs")],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    # The sentence index_lake raises for the same lake (tests/servers/indexing/test_index.py checks its own).
    assert said(done.stderr) == [f"lakeboard index: the lake {str(missing.resolve())!r} is not a folder"]
    assert not (tmp_path / "configs").exists()
    loaded = imported(done.stderr)
    assert "lakeboard.servers.indexing.build" in loaded  # the measure works
    heavy = loaded & {"lakeboard.servers.relevance", "lakeboard.common.minilm", "scipy", "numpy"}
    assert not heavy, heavy
