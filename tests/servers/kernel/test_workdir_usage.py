"""Measuring and trimming a workdir the kernel's code filled: hostile names, links out of it,
FIFOs, hard links, folders without permissions. Nothing outside is read, counted or removed."""

from __future__ import annotations

import os
import random
from pathlib import Path

from lakeboard.servers.kernel.workdir_usage import DiskUse, FileSystemUse, measure, remove_folder, trim
from tests.support.hostile_names import file_name, hostile_names

KB = 1024


def fill(workdir: Path, outside: Path) -> list[Path]:
    """Files with hostile names and increasing times, a link out, a FIFO, a hard link and a
    folder without permissions; returns the regular files, oldest first."""
    rng = random.Random(5)
    files = []
    for i, name in enumerate(hostile_names(30, seed=9)):
        folder = workdir / "deep" / "er" if i % 3 == 0 else workdir
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / file_name(f"{i:02d}{name}", ".bin")
        path.write_bytes(os.urandom(rng.randint(8, 64) * KB))
        os.utime(path, ns=(i * 10**9, (1_000_000 + i) * 10**9))
        files.append(path)
    (workdir / "link-out").symlink_to(outside)
    (workdir / "deep" / "link-up").symlink_to(workdir.parent)
    os.mkfifo(workdir / "fifo")
    os.link(files[0], workdir / "hard-link")
    locked = workdir / "locked"
    locked.mkdir()
    (locked / "inside").write_bytes(b"0" * 16 * KB)
    locked.chmod(0)
    return files


def test_trim_removes_the_newest_until_within_and_nothing_outside(tmp_path: Path) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "big").write_bytes(b"0" * 512 * KB)
    files = fill(workdir, outside)
    before = measure([workdir])
    assert before.entries == 30 + 2 + 2 + 1 + 1 + 2  # files, folders, links, fifo, hard link, locked + inside
    assert before.bytes < 512 * KB + sum(f.stat().st_blocks * 512 for f in files)  # the link's target is not counted

    allowed = DiskUse(before.bytes // 2, before.entries - 5)
    removed = trim([workdir], allowed)
    after = measure([workdir])
    assert after.within(allowed) and removed >= 5
    assert files[0].exists() and (outside / "big").stat().st_size == 512 * KB
    assert not files[-1].exists()  # the newest went first
    kept = [f for f in files if f.exists()]
    assert kept == files[: len(kept)]  # ... and only newer ones than any kept

    remove_folder(workdir)
    assert not workdir.exists() and (outside / "big").exists() and outside.exists()


def test_a_link_given_as_the_folder_is_measured_as_its_target(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "data").write_bytes(b"1" * 64 * KB)
    link = tmp_path / "link"
    link.symlink_to(real)
    assert measure([link]) == measure([real]) and measure([real]).entries == 1
    grown = FileSystemUse.of([real])
    assert grown.growth_since(grown) == DiskUse(0, 0)
