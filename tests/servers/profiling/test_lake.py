"""Walking a lake and profiling it with the cache: re-indexing touches only changed files."""

from __future__ import annotations

import os
import sqlite3
import time
from contextlib import closing
from pathlib import Path

from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.profiling import ProfileCache, iter_lake_files, profile_lake
from lakeboard.servers.profiling.cache import DB_NAME


def _lake(root: Path) -> None:
    (root / "sub" / "deeper").mkdir(parents=True)
    (root / "a.csv").write_text("x,y\n1,2\n")
    (root / "sub" / "b.tsv").write_text("x\ty\n1\t2\n")
    (root / "sub" / "deeper" / "c.json").write_text('[{"k": 1}]')
    (root / "notes.md").write_text("# Notes\n")
    (root / ".hidden.csv").write_text("x\n1\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "m.pyc").write_bytes(b"\x00")
    (root / "~$book.xlsx").write_bytes(b"lock")


def test_iter_lake_files_skips_hidden_caches_and_outside_links(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    lake.mkdir()
    _lake(lake)
    outside = tmp_path / "outside.csv"
    outside.write_text("secret,1\n")
    os.symlink(outside, lake / "link_out.csv")
    os.symlink(lake / "a.csv", lake / "link_in.csv")
    os.symlink(tmp_path, lake / "dir_link")
    ProfileCache(lake / "profiles").put(FileProfile(path="a.csv", format="csv"))
    rels = [p.relative_to(lake).as_posix() for p in iter_lake_files(lake)]
    assert rels == ["a.csv", "link_in.csv", "notes.md", "sub/b.tsv", "sub/deeper/c.json"]


def test_profile_lake_reuses_the_cache_and_drops_removed_files(tmp_path: Path) -> None:
    lake, cache_dir = tmp_path / "lake", tmp_path / "cache"
    lake.mkdir()
    _lake(lake)
    seen: list[tuple[int, int, str]] = []
    first = profile_lake(lake, cache_dir, progress=lambda d, t, p: seen.append((d, t, p)))
    assert [p.path for p in first] == ["a.csv", "notes.md", "sub/b.tsv", "sub/deeper/c.json"]
    assert all(p.status == "ok" for p in first)
    assert seen[-1][:2] == (4, 4) and sorted(s[2] for s in seen) == sorted(p.path for p in first)
    assert first[0].loader and first[0].tables[0].n_rows == 1

    time.sleep(0.01)
    (lake / "a.csv").write_text("x,y\n1,2\n3,4\n")  # changed
    (lake / "notes.md").unlink()  # removed
    same_stat_other_text(lake / "sub" / "b.tsv", "q\ty\n1\t2\n")  # unchanged as far as the cache can tell
    second = profile_lake(lake, cache_dir, workers=0)
    assert [p.path for p in second] == ["a.csv", "sub/b.tsv", "sub/deeper/c.json"]
    assert second[0].tables[0].n_rows == 2
    assert [c.name for c in second[1].tables[0].columns] == ["x", "y"]  # not profiled again
    with ProfileCache(cache_dir) as cache:
        assert sorted(cache.load_many(["a.csv", "notes.md", "sub/b.tsv", "sub/deeper/c.json"])) == [
            "a.csv", "sub/b.tsv", "sub/deeper/c.json"]


def test_a_lake_with_enough_files_stores_its_profiles_with_a_dictionary_and_reads_them_back(
        tmp_path: Path, monkeypatch) -> None:
    from lakeboard.servers.profiling import cache as profile_cache

    monkeypatch.setattr(profile_cache, "TRAIN_MIN_ROWS", 20)  # a lake of 30 files stands for one of thousands
    lake, cache_dir = tmp_path / "lake", tmp_path / "cache"
    lake.mkdir()
    for i in range(30):
        (lake / f"station_{i}.csv").write_text("day,rain_mm\n" + "".join(f"{d},{(i * d) % 17}\n" for d in range(1, 9)))
    first = profile_lake(lake, cache_dir, workers=0)
    with closing(sqlite3.connect(cache_dir / DB_NAME)) as db:
        stored = [p for (p,) in db.execute("select profile from profile_rows")]
        assert len(stored) == 30 and all(p[:4] == b"\x28\xb5\x2f\xfd" for p in stored)  # zstd frames
        assert db.execute("select count(*) from dictionaries").fetchone() == (1,)
    text = (lake / "station_0.csv").read_text()
    same_stat_other_text(lake / "station_0.csv", text.replace("rain_mm", "snow_mm"))
    second = profile_lake(lake, cache_dir, workers=0)
    assert second == first  # every profile read back from the cache: station_0 still has rain_mm
    with ProfileCache(cache_dir) as cache:
        assert cache.compact() == 0  # a re-index rewrites nothing


def same_stat_other_text(path: Path, text: str) -> None:
    """New content of the same size, with the old modification time: only a fresh profile would see it."""
    st = path.stat()
    assert len(text.encode()) == st.st_size
    path.write_text(text)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_profiles_in_worker_processes_match_in_process_profiles(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    lake.mkdir()
    _lake(lake)
    a = profile_lake(lake, tmp_path / "c1", workers=2)
    b = profile_lake(lake, tmp_path / "c2", workers=0)
    def strip(ps: list[FileProfile]) -> list[FileProfile]:  # times differ from run to run
        return [p.model_copy(update={"profiled_in_s": None, "loader_check": p.loader_check and
                                     p.loader_check.model_copy(update={"seconds": None})}) for p in ps]

    assert strip(a) == strip(b)


def test_a_cache_inside_the_lake_is_not_part_of_it(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    lake.mkdir()
    (lake / "a.csv").write_text("x,y\n1,2\n")
    profiles = profile_lake(lake, lake / "cache", workers=0)
    assert [p.path for p in profiles] == ["a.csv"]
    assert [p.path for p in profile_lake(lake, lake / "cache", workers=0)] == ["a.csv"]
