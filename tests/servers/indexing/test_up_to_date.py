"""lakeboard index on a lake its config already indexes as it is: one line, nothing rebuilt."""

from __future__ import annotations

import gzip
import json
import os

from lakeboard.common.lake_stamps import STAMPS_FILE
from lakeboard.servers.indexing import index_lake
from lakeboard.servers.indexing.__main__ import main as index_main


ARGS = ["--strategy", "directory"]  # the options the command records when none is given
# One profiling process for the two files (the default forks two): which process profiles is not what is tested.
WORKERS = 1


def _lake(root):
    (root / "a").mkdir(parents=True)
    (root / "a" / "rain.csv").write_text("day,mm\n2023-01-01,1.5\n2023-01-02,0.0\n")
    (root / "a" / "wind.csv").write_text("day,kmh\n2023-01-01,12\n2023-01-02,30\n")
    return root


def test_an_unchanged_lake_is_not_indexed_again_and_any_change_is(tmp_path, capsys):
    lake, out = _lake(tmp_path / "lake"), tmp_path / "configs"
    first = index_lake(lake, name="t", out=out, index_args=ARGS, workers=WORKERS)
    assert not first.up_to_date
    stamps = first.config_dir / STAMPS_FILE
    written = stamps.stat().st_mtime_ns
    assert json.loads(gzip.decompress(stamps.read_bytes()))["written_by"]

    again = index_lake(lake, name="t", out=out, index_args=ARGS)
    assert again.up_to_date and again.n_files == 2 and stamps.stat().st_mtime_ns == written
    assert index_main([str(lake), "--out", str(out), "--name", "t"]) == 0
    assert "already indexes the lake as it is (2 files" in capsys.readouterr().out

    assert not index_lake(lake, name="t", out=out, index_args=ARGS, force=True).up_to_date  # --force
    assert not index_lake(lake, name="t", out=out, index_args=["--clusters", "1"]).up_to_date  # other options
    (lake / "a" / "wind.csv").write_text("day,kmh\n2023-01-01,12\n2023-01-02,31\n2023-01-03,5\n")
    assert not index_lake(lake, name="t", out=out, index_args=["--clusters", "1"]).up_to_date  # a changed file
    (lake / "a" / "new.csv").write_text("x\n1\n")
    changed = index_lake(lake, name="t", out=out, index_args=["--clusters", "1"])
    assert not changed.up_to_date and changed.n_files == 3  # a new file
    os.remove(first.config_dir / "servers.json")
    assert not index_lake(lake, name="t", out=out, index_args=["--clusters", "1"]).up_to_date  # a config not whole


def test_an_index_from_other_code_or_one_the_time_budget_cut_is_not_current(tmp_path):
    # With the options given, as the command gives them: without them an index is never current.
    lake, out = _lake(tmp_path / "lake"), tmp_path / "configs"
    config_dir = index_lake(lake, name="t", out=out, index_args=ARGS, workers=WORKERS).config_dir
    assert index_lake(lake, name="t", out=out, index_args=ARGS).up_to_date  # current until the stamps change
    stamps = config_dir / STAMPS_FILE
    data = json.loads(gzip.decompress(stamps.read_bytes()))
    stamps.write_bytes(gzip.compress(json.dumps({**data, "written_by": "another version"}).encode()))
    assert not index_lake(lake, name="t", out=out, index_args=ARGS).up_to_date
    other = _lake(tmp_path / "other")
    # no file profiled in time
    cut = index_lake(other, name="cut", out=out, workers=0, time_budget_s=1e-9, index_args=ARGS)
    assert cut.errors and all("time budget" in why for why in cut.errors.values())
    assert not index_lake(other, name="cut", out=out, workers=0, time_budget_s=1e-9, index_args=ARGS).up_to_date
