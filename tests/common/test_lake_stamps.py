"""A lake's stamps: what changed since it was indexed, from one stat per file."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

from lakeboard.common.lake_stamps import STAMPS_FILE, IndexedLake, LakeChanges, lake_changes, lake_stamps, read_indexed


def test_stamps_see_files_added_removed_and_changed(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("x\n1\n")
    (tmp_path / "b.csv").write_text("x\n1\n")
    (tmp_path / ".hidden").write_text("not data")
    before = lake_stamps(tmp_path)
    assert set(before) == {"a.csv", "b.csv"}
    assert lake_changes(before, lake_stamps(tmp_path)) == LakeChanges([], [], [])
    (tmp_path / "c.csv").write_text("x\n1\n")
    (tmp_path / "b.csv").unlink()
    (tmp_path / "a.csv").write_text("x\n1\n2\n")
    changes = lake_changes(before, lake_stamps(tmp_path))
    assert changes == LakeChanges(["c.csv"], ["b.csv"], ["a.csv"])
    assert changes.describe() == "1 file added, 1 removed, 1 changed"
    assert LakeChanges(["x", "y"], ["z"], []).describe() == "2 files added, 1 removed"
    assert not LakeChanges([], [], [])


def test_recorded_stamps_read_back_and_damaged_ones_are_none(tmp_path: Path) -> None:
    recorded = IndexedLake({"a.csv": (3, 7)}, ["--strategy", "directory"])
    (tmp_path / STAMPS_FILE).write_bytes(recorded.to_gzip())
    assert read_indexed(tmp_path) == recorded
    assert recorded.to_gzip() == IndexedLake({"a.csv": (3, 7)}, ["--strategy", "directory"]).to_gzip()  # no timestamp
    (tmp_path / STAMPS_FILE).write_bytes(gzip.compress(b'{"files": {"a.csv": 3}}'))
    assert read_indexed(tmp_path) is None
    (tmp_path / STAMPS_FILE).write_bytes(recorded.to_gzip()[:-9])  # cut short
    assert read_indexed(tmp_path) is None
    (tmp_path / STAMPS_FILE).write_text(recorded.to_json())  # not gzipped
    assert read_indexed(tmp_path) is None
    os.remove(tmp_path / STAMPS_FILE)
    assert read_indexed(tmp_path) is None


def test_stamps_an_earlier_index_wrote_as_plain_json_are_still_read(tmp_path: Path) -> None:
    recorded = IndexedLake({"a.csv": (3, 7)}, ["--strategy", "directory"], "v1")
    (tmp_path / "lake_stamps.json").write_text(recorded.to_json())
    assert read_indexed(tmp_path) == recorded
