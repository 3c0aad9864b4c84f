"""The lake's rules for opening a file, and bounded reads: links resolved inside the lake only, no special file opened."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from lakeboard.common.bounded_reads import FileRefused, read_at_most, read_regular_file
from lakeboard.common.lake_files import PinnedFiles, open_lake_file, scratch_folder, walk_lake


def _read(root: Path, rel: str) -> bytes:
    fd = open_lake_file(root, rel)
    try:
        return read_at_most(fd, 1 << 20)
    finally:
        os.close(fd)


@pytest.fixture
def lake(tmp_path: Path) -> Path:
    root = tmp_path / "lake"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "data.csv").write_text("inside")
    (tmp_path / "secret.txt").write_text("outside")
    return root


def test_links_inside_the_lake_are_followed_step_by_step(lake: Path) -> None:
    os.symlink("b/data.csv", lake / "a" / "rel.csv")
    os.symlink(lake / "a" / "b" / "data.csv", lake / "abs.csv")
    os.symlink("a", lake / "alias")  # a folder link used on the way
    os.symlink("../../alias/b/../b/data.csv", lake / "a" / "b" / "round.csv")
    for rel in ("a/rel.csv", "abs.csv", "alias/b/data.csv", "a/b/round.csv"):
        assert _read(lake, rel) == b"inside", rel


@pytest.mark.parametrize("seed", range(4))
def test_no_path_leads_out_of_the_lake(lake: Path, seed: int) -> None:
    rng = random.Random(seed)
    depth_up = "/".join([".."] * rng.randint(3, 6))
    cases = {
        "abs_out.csv": str(lake.parent / "secret.txt"),
        "rel_out.csv": f"{depth_up}/secret.txt",
        "passwd.csv": "/etc/passwd",
        "environ.csv": "/proc/self/environ",
    }
    for name, target in cases.items():
        os.symlink(target, lake / "a" / name)
        with pytest.raises(FileRefused, match="out of the lake"):
            open_lake_file(lake, f"a/{name}")
    os.symlink(lake.parent, lake / "a" / "up")
    with pytest.raises(FileRefused, match="out of the lake"):
        open_lake_file(lake, "a/up/secret.txt")
    with pytest.raises(FileRefused, match="out of the lake"):
        open_lake_file(lake, "a/../../secret.txt")


def test_loops_folders_and_special_files_are_refused(lake: Path) -> None:
    os.symlink("loop2", lake / "loop1")
    os.symlink("loop1", lake / "loop2")
    with pytest.raises(FileRefused, match="loop"):
        open_lake_file(lake, "loop1")
    with pytest.raises(FileRefused, match="folder"):
        open_lake_file(lake, "a/b")
    os.mkfifo(lake / "pipe.csv")
    with pytest.raises(FileRefused, match="named pipe"):
        open_lake_file(lake, "pipe.csv")
    os.symlink("pipe.csv", lake / "to_pipe.csv")
    with pytest.raises(FileRefused, match="a link to a named pipe"):
        open_lake_file(lake, "to_pipe.csv")
    with pytest.raises(FileNotFoundError):
        open_lake_file(lake, "a/missing.csv")


def test_bounded_reads_refuse_pipes_devices_and_what_is_over_the_limit(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(FileRefused, match="named pipe"):
        read_regular_file(tmp_path / "pipe", 100)
    with pytest.raises(FileRefused, match="device"):
        read_regular_file("/dev/zero", 100)
    os.symlink(tmp_path / "pipe", tmp_path / "link")
    with pytest.raises(FileRefused, match="link"):
        read_regular_file(tmp_path / "link", 100, follow_links=False)
    (tmp_path / "big").write_bytes(b"x" * 101)
    with pytest.raises(FileRefused, match="larger than the 100 byte limit"):
        read_regular_file(tmp_path / "big", 100)
    fd = os.open(tmp_path / "big", os.O_RDONLY)
    try:  # counted as read, whatever the size said
        with pytest.raises(FileRefused):
            read_at_most(fd, 100)
    finally:
        os.close(fd)
    assert read_regular_file(tmp_path / "big", 101) == b"x" * 101


def test_a_pinned_name_opens_the_checked_file_even_after_a_swap(lake: Path) -> None:
    with PinnedFiles() as pinned:
        path = pinned.add("data.csv", open_lake_file(lake, "a/b/data.csv"))
        assert path is not None and path.name == "data.csv"
        os.remove(lake / "a" / "b" / "data.csv")
        os.symlink(lake.parent / "secret.txt", lake / "a" / "b" / "data.csv")
        assert path.read_text() == "inside"
    assert not os.path.lexists(path) and os.listdir(pinned.folder) == []  # the folder is reused, empty


def test_a_walk_below_a_folder_that_is_a_link_is_one_skipped_entry(lake: Path) -> None:
    os.symlink(lake.parent, lake / "docs")
    assert [(e.rel, e.skip_reason is not None) for e in walk_lake(lake, "docs")] == [("docs", True)]
    assert [e.rel for e in walk_lake(lake, "a")] == ["a/b/data.csv"]


def test_a_scratch_folder_is_emptied_and_one_a_killed_process_left_is_removed_by_the_next() -> None:
    with scratch_folder() as d:
        (d / "warm.csv").write_text("a,b\n1,2\n")
        (d / "sub").mkdir()
    assert d.is_dir() and not any(d.iterdir())

    hold = "from lakeboard.common.lake_files import scratch_folder\nimport sys, time\n" \
           "with scratch_folder() as d:\n    (d / 'x.csv').write_text('1')\n    print(d, flush=True)\n    time.sleep(60)\n"
    child = subprocess.Popen([sys.executable, "-P", "-c", hold], stdout=subprocess.PIPE, text=True)
    left = Path(child.stdout.readline().strip())
    child.kill()
    child.wait()
    assert (left / "x.csv").exists(), "a process killed in the block leaves its folder"
    subprocess.run([sys.executable, "-P", "-c", "from lakeboard.common.lake_files import scratch_folder\n"
                    "with scratch_folder(): pass"], check=True, timeout=60)
    assert not left.parent.exists(), "the next process's first folder removes the folders of processes gone"
