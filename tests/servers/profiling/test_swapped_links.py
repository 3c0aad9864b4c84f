"""A file or folder replaced by a link out of the lake after the walk is refused when profiled, never read.

The swap happens at a fixed point between the walk and the profiling of the swapped entries (in
the progress callback after the first file, or between a walk and a worker pool run), so each
test is deterministic. The outside files hold a marker that must appear in no profile and no
stored sample.
"""

from __future__ import annotations

import os
import random
import secrets
import sqlite3
import zlib
from pathlib import Path

import pytest

from lakeboard.common.lake_files import walk_lake
from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.profiling import ProfileCache, profile_file, profile_lake
from lakeboard.servers.profiling.worker_pool import WorkerPool

_HOSTILE = ["\n", "\r", "\t", "\x1b[31m", "'", '"', "\\", "#", " ", "é", "\u2028", "data"]


def _hostile_name(rng: random.Random) -> str:
    return "z" + "".join(rng.choice(_HOSTILE) for _ in range(rng.randint(2, 6)))


class SwapLake:
    """A lake whose file `swapped_file` and folder `swapped_folder` can be replaced by outside links."""

    def __init__(self, tmp_path: Path, seed: int) -> None:
        rng = random.Random(seed)
        self.marker = f"OUTSIDE-{secrets.token_hex(8)}"
        self.root = tmp_path / "lake"
        self.outside = tmp_path / "outside"
        self.root.mkdir()
        self.outside.mkdir()
        (self.root / "0_first.csv").write_text("station,value\nA,1\nB,2\n")  # profiled before any swap
        self.swapped_file = f"{_hostile_name(rng)}.csv"
        self.swapped_folder = _hostile_name(rng)
        (self.root / self.swapped_file).write_text("station,value\nC,3\n")
        (self.root / self.swapped_folder).mkdir()
        (self.root / self.swapped_folder / "inner.csv").write_text("station,value\nD,4\n")
        secret = f"name,code\n{self.marker},1\n{self.marker},2\n"
        (self.outside / "secret.csv").write_text(secret)
        (self.outside / "inner.csv").write_text(secret)
        self.swapped = [self.swapped_file, f"{self.swapped_folder}/inner.csv"]

    def swap(self) -> None:
        os.remove(self.root / self.swapped_file)
        os.symlink(self.outside / "secret.csv", self.root / self.swapped_file)
        os.rename(self.root / self.swapped_folder, self.outside / "moved-away")
        os.symlink(self.outside, self.root / self.swapped_folder)  # the folder now leads out of the lake

    def assert_refused(self, profiles: dict[str, FileProfile]) -> None:
        for rel in self.swapped:
            prof = profiles[rel]
            assert self.marker not in prof.model_dump_json()
            assert prof.status == "skipped" and "out of the lake" in prof.reason, (rel, prof.status, prof.reason)
        assert profiles["0_first.csv"].status == "ok"


@pytest.mark.parametrize("seed", [3, 11])
def test_entries_swapped_for_links_during_profile_lake_are_skipped(tmp_path: Path, seed: int) -> None:
    lake = SwapLake(tmp_path, seed)
    seen: list[str] = []

    def after_each_file(done: int, total: int, rel: str) -> None:
        seen.append(rel)
        if done == 1:  # the walk is done and the first file profiled; the swapped ones are next
            lake.swap()

    cache_dir = tmp_path / "cache"
    profiles = profile_lake(lake.root, cache_dir, workers=0, progress=after_each_file)
    assert seen[0] == "0_first.csv" and set(lake.swapped) <= set(seen)
    lake.assert_refused({p.path: p for p in profiles})

    with ProfileCache(cache_dir) as cache:  # nothing of the outside files was stored
        stored = cache.load_many([p.path for p in profiles])
    assert stored and all(lake.marker not in p.model_dump_json() for p in stored.values())
    for db in cache_dir.rglob("*.sqlite*"):  # pages and journal: paths and any text stored outside a profile
        assert lake.marker.encode() not in db.read_bytes()
    with sqlite3.connect(next(cache_dir.rglob("*.sqlite"))) as con:  # profiles are stored compressed
        rows = [[zlib.decompress(v).decode() if isinstance(v, bytes) else str(v) for v in row]
                for row in con.execute("select * from profile_rows")]
    assert rows and all(lake.marker not in " ".join(row) for row in rows)


def test_entries_swapped_between_the_walk_and_the_worker_pool_are_skipped(tmp_path: Path) -> None:
    lake = SwapLake(tmp_path, 5)
    rels = [e.rel for e in walk_lake(lake.root) if e.skip_reason is None]
    assert set(lake.swapped) <= set(rels)
    lake.swap()
    pool = WorkerPool(lake.root, 1, timeout_s=60)
    profiles = {out.relpath: FileProfile.model_validate_json(out.profile_json) for out in pool.run(rels)}
    lake.assert_refused(profiles)


def test_a_swapped_in_fifo_or_device_is_never_opened_for_reading(tmp_path: Path) -> None:
    lake = SwapLake(tmp_path, 7)
    os.remove(lake.root / lake.swapped_file)
    os.mkfifo(lake.root / lake.swapped_file)  # opening it for reading would wait for a writer
    prof = profile_file(lake.root / lake.swapped_file, lake.root)
    assert prof.status == "skipped" and "named pipe" in prof.reason
    os.remove(lake.root / lake.swapped_file)
    os.symlink("/dev/zero", lake.root / lake.swapped_file)
    prof = profile_file(lake.root / lake.swapped_file, lake.root)
    assert prof.status == "skipped" and "out of the lake" in prof.reason


def test_links_that_stay_in_the_lake_are_still_read(tmp_path: Path) -> None:
    lake = SwapLake(tmp_path, 9)
    (lake.root / "real").mkdir()
    (lake.root / "real" / "kept.csv").write_text("station,value\nE,5\n")
    os.symlink("real", lake.root / "alias")  # a folder link inside the lake, on the way to a file
    os.symlink("../alias/kept.csv", lake.root / lake.swapped_folder / "to_kept.csv")
    os.symlink(lake.root / "real" / "kept.csv", lake.root / "absolute.csv")
    for rel in (f"{lake.swapped_folder}/to_kept.csv", "absolute.csv"):
        prof = profile_file(lake.root / rel, lake.root)
        assert prof.status == "ok" and prof.tables[0].n_rows == 1, (rel, prof.reason)
    os.symlink("../../outside/secret.csv", lake.root / lake.swapped_folder / "climbs.csv")
    prof = profile_file(lake.root / lake.swapped_folder / "climbs.csv", lake.root)
    assert prof.status == "skipped" and lake.marker not in prof.model_dump_json()
