"""The profile cache: keyed by (relpath, size, mtime_ns), atomic writes, damage tolerated."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from schemas.profiles import FileProfile, TableProfile
from servers.profiling import ProfileCache
from servers.profiling.cache import DB_NAME


def _profile(rel: str = "dir/a b.csv", size: int = 10, mtime: int = 123) -> FileProfile:
    return FileProfile(
        path=rel, format="csv", kind="table", size_bytes=size, mtime_ns=mtime, summary="CSV table", tables=[TableProfile(n_rows=3)]
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
    other = ProfileCache(tmp_path / "cache")  # another reader (a server) sees it
    assert other.load("dir/a b.csv") == _profile()
    cache.remove("dir/a b.csv")
    cache.remove("dir/a b.csv")  # removing twice is fine
    assert cache.load("dir/a b.csv") is None and other.load("dir/a b.csv") is None


def test_batches_are_atomic(tmp_path: Path) -> None:
    cache = ProfileCache(tmp_path)
    cache.put(_profile("kept.csv"))
    with pytest.raises(RuntimeError):
        with cache.batch():
            cache.put(_profile("a.csv"))
            cache.put(_profile("b.csv"))
            raise RuntimeError("crash while indexing")
    assert cache.load("a.csv") is None and cache.load("kept.csv") is not None
    with cache.batch():
        cache.put(_profile("a.csv"))
        cache.checkpoint()
        cache.put(_profile("b.csv", size=99))
    assert cache.get("b.csv", 99, 123) is not None
    assert sorted(cache.entries()) == ["a.csv", "b.csv", "kept.csv"]


def test_fresh_prune_and_iterate(tmp_path: Path) -> None:
    cache = ProfileCache(tmp_path)
    for rel in ("a.csv", "b.csv", "c.csv"):
        cache.put(_profile(rel))
    fresh = cache.fresh({"a.csv": (10, 123), "b.csv": (10, 999)})
    assert list(fresh) == ["a.csv"]
    assert cache.prune({"a.csv", "c.csv"}) == 1
    assert [p.path for p in cache.profiles()] == ["a.csv", "c.csv"]


def test_damaged_entries_and_database(tmp_path: Path) -> None:
    cache = ProfileCache(tmp_path)
    cache.put(_profile("a.csv"))
    con = sqlite3.connect(tmp_path / DB_NAME)
    con.execute("update profiles set profile = '{not json' where relpath = 'a.csv'")
    con.commit()
    con.close()
    assert cache.get("a.csv", 10, 123) is None and cache.load("a.csv") is None
    cache.close()

    (tmp_path / DB_NAME).write_bytes(b"this is not a database" * 100)
    for leftover in tmp_path.glob(f"{DB_NAME}-*"):
        leftover.unlink()
    broken = ProfileCache(tmp_path)
    assert broken.load("a.csv") is None  # a reader never fails on a damaged cache
    broken.put(_profile("b.csv"))  # a writer sets the damaged file aside and starts afresh
    assert broken.load("b.csv") is not None
    assert list(tmp_path.glob(f"{DB_NAME}.damaged-*"))


def test_threads_share_one_cache(tmp_path: Path) -> None:
    cache = ProfileCache(tmp_path)
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for i in range(30):
                cache.put(_profile(f"t{k}/{i}.csv"))
                assert cache.load(f"t{k}/{i}.csv") is not None
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(cache.entries()) == 120
