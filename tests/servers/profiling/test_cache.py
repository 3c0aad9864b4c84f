"""The profile cache: keyed by (relpath, size, mtime_ns), atomic writes, damaged entries ignored."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from schemas.profiles import FileProfile, TableProfile
from servers.profiling import ProfileCache
from servers.profiling.cache import cache_key


def _profile(rel: str = "dir/a b.csv", size: int = 10, mtime: int = 123) -> FileProfile:
    return FileProfile(
        path=rel,
        format="csv",
        kind="table",
        size_bytes=size,
        mtime_ns=mtime,
        summary="CSV table",
        tables=[TableProfile(n_rows=3)],
    )


def test_put_get_load_remove(tmp_path: Path) -> None:
    cache = ProfileCache(tmp_path / "cache")
    assert cache.get("dir/a b.csv", 10, 123) is None and cache.load("dir/a b.csv") is None
    assert not (tmp_path / "cache").exists()  # reading creates nothing
    cache.put(_profile())
    assert cache.get("dir/a b.csv", 10, 123) == _profile()
    assert cache.get("dir/a b.csv", 11, 123) is None  # size changed
    assert cache.get("dir/a b.csv", 10, 124) is None  # mtime changed
    assert cache.load("dir/a b.csv") == _profile()  # no staleness check
    assert (tmp_path / "cache" / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert ProfileCache(tmp_path / "cache").load("dir/a b.csv") == _profile()  # another reader (a server)
    cache.remove("dir/a b.csv")
    cache.remove("dir/a b.csv")  # removing twice is fine
    assert cache.load("dir/a b.csv") is None


def test_writes_are_atomic_and_leave_no_temporary_files(tmp_path: Path) -> None:
    cache = ProfileCache(tmp_path)
    for i in range(20):
        cache.put(_profile(f"f{i}.csv"))
    cache.put(_profile("f0.csv", size=99))
    names = os.listdir(tmp_path)
    assert sorted(n for n in names if n.endswith(".json")) == sorted(
        f"{cache_key(f'f{i}.csv')}.json" for i in range(20)
    )
    assert not [n for n in names if n.endswith(".part")]
    assert cache.get("f0.csv", 99, 123) is not None


def test_damaged_entries_are_misses_not_errors(tmp_path: Path) -> None:
    cache = ProfileCache(tmp_path)
    cache.put(_profile("a.csv"))
    cache.file_for("a.csv").write_text("{not json")
    assert cache.get("a.csv", 10, 123) is None and cache.load("a.csv") is None
    cache.file_for("b.csv").write_text('{"version": 2, "path": "b.csv", "size": 10, "mtime_ns": 123}\n{"path": 5}')
    assert cache.get("b.csv", 10, 123) is None and cache.load("b.csv") is None
    assert [p.path for p in cache.profiles()] == []


def test_fresh_entries_prune_and_iterate(tmp_path: Path) -> None:
    cache = ProfileCache(tmp_path)
    for rel in ("a.csv", "b.csv", "c.csv"):
        cache.put(_profile(rel))
    assert list(cache.fresh({"a.csv": (10, 123), "b.csv": (10, 999)})) == ["a.csv"]
    assert cache.entries()["b.csv"][:2] == (10, 123)
    assert cache.prune({"a.csv", "c.csv"}) == 1
    assert [p.path for p in cache.profiles()] == ["a.csv", "c.csv"]


def test_threads_share_one_cache(tmp_path: Path) -> None:
    cache = ProfileCache(tmp_path)
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for i in range(30):
                cache.put(_profile(f"shared/{i}.csv", size=k))
                assert cache.load(f"shared/{i}.csv") is not None
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(cache.entries()) == 30
