"""The profile cache: keyed by (relpath, size, mtime_ns), one SQLite file, damaged entries ignored."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from lakeboard.schemas.profiles import FileProfile, TableProfile
from lakeboard.servers.profiling import ProfileCache
from lakeboard.servers.profiling.cache import DB_NAME, PROFILER_VERSION, CacheWriteError


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


def _load(cache: ProfileCache, rel: str) -> FileProfile | None:
    return cache.load_many([rel]).get(rel)


def test_put_fresh_load(tmp_path: Path) -> None:
    cache = ProfileCache(tmp_path / "cache")
    assert cache.fresh({"dir/a b.csv": (10, 123)}) == {} and _load(cache, "dir/a b.csv") is None
    assert not (tmp_path / "cache").exists()  # reading creates nothing
    cache.put(_profile())
    assert cache.fresh({"dir/a b.csv": (10, 123)}) == {"dir/a b.csv": _profile()}
    assert cache.fresh({"dir/a b.csv": (11, 123)}) == {}  # size changed
    assert cache.fresh({"dir/a b.csv": (10, 124)}) == {}  # mtime changed
    assert _load(cache, "dir/a b.csv") == _profile()  # no staleness check
    assert (tmp_path / "cache" / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    with ProfileCache(tmp_path / "cache") as reader:  # another reader (a server), while the writer is open
        assert reader.load_many(["dir/a b.csv", "nope.csv", "dir/a b.csv"]) == {"dir/a b.csv": _profile()}
    cache.close()


def test_one_database_file_whatever_the_number_of_profiles(tmp_path: Path) -> None:
    with ProfileCache(tmp_path) as cache:
        for i in range(600):  # more than one `in (...)` chunk
            cache.put(_profile(f"f{i}.csv"))
        cache.put(_profile("f0.csv", size=99))  # replaces its row
        assert len(cache.load_many(f"f{i}.csv" for i in range(600))) == 600
        assert list(cache.fresh({"f0.csv": (99, 123)})) == ["f0.csv"]
    assert sorted(os.listdir(tmp_path)) == ["CACHEDIR.TAG", DB_NAME]  # the WAL is merged on close


def test_damaged_entries_are_misses_not_errors(tmp_path: Path) -> None:
    with ProfileCache(tmp_path) as cache:
        cache.put(_profile("a.csv"))
        cache.put_json(_profile("b.csv"), '{"path": 5}')
        cache.put_json(_profile("c.csv"), _profile("other.csv").model_dump_json())  # not this file's profile
        assert cache.load_many(["a.csv", "b.csv", "c.csv"]) == {"a.csv": _profile("a.csv")}
        assert list(cache.fresh({r: (10, 123) for r in ("a.csv", "b.csv", "c.csv")})) == ["a.csv"]


def test_a_damaged_database_is_set_aside_and_rebuilt(tmp_path: Path) -> None:
    with ProfileCache(tmp_path) as cache:
        cache.put(_profile("a.csv"))
    (tmp_path / DB_NAME).write_bytes(b"this is not a database" * 100)
    with ProfileCache(tmp_path) as reader:  # a reader does not touch it: no profiles
        assert reader.load_many(["a.csv"]) == {}
    with ProfileCache(tmp_path) as cache:  # a writer keeps it aside and starts afresh
        cache.put(_profile("b.csv"))
        assert list(cache.load_many(["a.csv", "b.csv"])) == ["b.csv"]
    assert (tmp_path / f"{DB_NAME}.damaged").read_bytes().startswith(b"this is not a database")


def test_a_locked_database_is_an_error_not_a_damaged_one(tmp_path: Path, monkeypatch) -> None:
    import sqlite3

    import pytest

    import lakeboard.servers.profiling.cache as cache_module

    with ProfileCache(tmp_path) as cache:
        cache.put(_profile("a.csv"))
    monkeypatch.setattr(cache_module, "BUSY_TIMEOUT_S", 0.1)
    holder = sqlite3.connect(str(tmp_path / DB_NAME), isolation_level=None)
    holder.execute("pragma journal_mode=delete")  # out of WAL, an exclusive lock blocks every other opener
    holder.execute("begin exclusive")
    try:
        with pytest.raises(CacheWriteError, match="locked"):
            ProfileCache(tmp_path).put(_profile("b.csv"))
    finally:
        holder.execute("rollback")
        holder.close()
    assert not (tmp_path / f"{DB_NAME}.damaged").exists()
    with ProfileCache(tmp_path) as cache:  # still the same cache, usable again
        assert list(cache.load_many(["a.csv", "b.csv"])) == ["a.csv"]


def test_profiles_of_earlier_versions_are_re_profiled(tmp_path: Path) -> None:
    with ProfileCache(tmp_path) as cache:
        cache.put(_profile("a.csv"))
        cache._con.execute("update profile_rows set version = ?", (PROFILER_VERSION - 1,))
        assert cache.fresh({"a.csv": (10, 123)}) == {}
        assert _load(cache, "a.csv") == _profile("a.csv")  # a server still shows it until the next index


def test_a_batch_commits_on_leaving_even_after_an_error(tmp_path: Path) -> None:
    reader = ProfileCache(tmp_path)
    with ProfileCache(tmp_path) as cache:
        try:
            with cache.batch():
                cache.put(_profile("a.csv"))
                assert _load(reader, "a.csv") is None  # not committed yet: other connections do not see it
                raise KeyboardInterrupt
        except KeyboardInterrupt:
            pass
        assert _load(reader, "a.csv") == _profile("a.csv")  # the profile written before the error is kept
        cache.put(_profile("b.csv"))  # outside a batch: committed at once
        assert _load(reader, "b.csv") == _profile("b.csv")
    reader.close()


def test_fresh_entries_prune(tmp_path: Path) -> None:
    with ProfileCache(tmp_path) as cache:
        for rel in ("a.csv", "b.csv", "c.csv"):
            cache.put(_profile(rel))
        assert list(cache.fresh({"a.csv": (10, 123), "b.csv": (10, 999)})) == ["a.csv"]
        assert cache.prune({"a.csv", "c.csv"}) == 1
        assert sorted(cache.load_many(["a.csv", "b.csv", "c.csv"])) == ["a.csv", "c.csv"]
        assert cache.prune({"a.csv", "c.csv"}) == 0


def test_threads_share_one_cache(tmp_path: Path) -> None:
    cache = ProfileCache(tmp_path)
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for i in range(30):
                cache.put(_profile(f"shared/{i}.csv", size=k))
                assert _load(cache, f"shared/{i}.csv") is not None
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(cache.load_many(f"shared/{i}.csv" for i in range(30))) == 30


def test_profiles_are_stored_compressed_and_rows_of_text_still_read(tmp_path: Path) -> None:
    big = _profile("big.csv").model_copy(update={"summary": "CSV table of readings per station " * 40})
    with ProfileCache(tmp_path) as cache:
        cache.put(big)
        kind, length = cache._con.execute("select typeof(profile), length(profile) from profile_rows").fetchone()
        assert kind == "blob" and length < len(big.model_dump_json()) / 5
        # a row as the versions before compression wrote it: the JSON as text, read as it is (no re-profile)
        cache._con.execute("insert into profile_rows values (path_key(?), ?, ?, ?, ?, ?)",
                           ("old.csv", "old.csv", 10, 123, PROFILER_VERSION, _profile("old.csv").model_dump_json()))
        assert cache._con.execute("select typeof(profile) from profile_rows where path = 'old.csv'").fetchone() == ("text",)
        assert cache.load_many(["big.csv", "old.csv"]) == {"big.csv": big, "old.csv": _profile("old.csv")}
        assert cache.fresh({"big.csv": (10, 123), "old.csv": (10, 123)}) == {"big.csv": big, "old.csv": _profile("old.csv")}
        cache._con.execute("update profile_rows set profile = ? where path = 'big.csv'", (b"not zlib at all",))
        assert cache.load_many(["big.csv", "old.csv"]) == {"old.csv": _profile("old.csv")}  # a damaged blob is a miss


def _varied(i: int) -> FileProfile:
    """Profiles alike in layout and different in values, as a lake's are."""
    return _profile(f"site_{i}/readings.csv", size=100 + i).model_copy(
        update={"summary": f"CSV table of {i % 7} stations, readings {i * 37 % 1000} to {i * 91 % 5000} mm"})


def test_compact_trains_a_dictionary_once_and_every_profile_reads_back(tmp_path: Path) -> None:
    profiles = [_varied(i) for i in range(300)]
    with ProfileCache(tmp_path) as cache:
        for prof in profiles:
            cache.put(prof)
        cache._con.execute("insert into profile_rows values (path_key(?), ?, ?, ?, ?, ?)",  # text, as old versions wrote
                           ("old.csv", "old.csv", 10, 123, PROFILER_VERSION, _profile("old.csv").model_dump_json()))
        assert cache.compact(min_rows=400) == 0  # too few profiles to be worth a dictionary
        before = cache._con.execute("select sum(length(profile)) from profile_rows where path != 'old.csv'").fetchone()[0]
        assert cache.compact(min_rows=100) == 301
        after = cache._con.execute("select sum(length(profile)) from profile_rows where path != 'old.csv'").fetchone()[0]
        assert after < before / 2
        assert cache._con.execute("select count(*) from dictionaries").fetchone() == (1,)
        assert cache.compact(min_rows=100) == 0  # once: a dictionary is there
        cache.put(_varied(1000))  # written with the dictionary from the start
        (stored,) = cache._con.execute("select profile from profile_rows where path = 'site_1000/readings.csv'").fetchone()
        assert stored[:4] == b"\x28\xb5\x2f\xfd"
    with ProfileCache(tmp_path) as reader:  # a server that opens the cache afresh reads the dictionary
        wanted = [p.path for p in profiles] + ["old.csv", "site_1000/readings.csv"]
        assert reader.load_many(wanted) == {p.path: p for p in [*profiles, _profile("old.csv"), _varied(1000)]}


def test_a_reader_open_before_the_dictionary_was_trained_reads_rows_made_with_it(tmp_path: Path) -> None:
    with ProfileCache(tmp_path) as writer, ProfileCache(tmp_path) as reader:
        for i in range(200):
            writer.put(_varied(i))
        assert reader.load_many(["site_0/readings.csv"]) == {"site_0/readings.csv": _varied(0)}  # opened, no dictionary
        assert writer.compact(min_rows=100) == 200
        assert reader.load_many(["site_5/readings.csv"]) == {"site_5/readings.csv": _varied(5)}


def test_a_damaged_dictionary_makes_its_rows_misses(tmp_path: Path) -> None:
    with ProfileCache(tmp_path) as cache:
        for i in range(200):
            cache.put(_varied(i))
        cache.compact(min_rows=100)
        cache._con.execute("update dictionaries set data = ?", (b"\x37\xa4\x30\xec" + b"\0" * 20,))
    with ProfileCache(tmp_path) as reader:
        assert reader.load_many(["site_0/readings.csv"]) == {}  # profiled again by the next index, not an error
        reader.put(_varied(0))  # and written again without it
        assert reader.load_many(["site_0/readings.csv"]) == {"site_0/readings.csv": _varied(0)}


def test_compacting_shrinks_the_database_file(tmp_path: Path) -> None:
    with ProfileCache(tmp_path) as cache:
        for i in range(400):
            cache.put(_varied(i).model_copy(update={"summary": f"readings of station {i} " * 30}))
    before = (tmp_path / DB_NAME).stat().st_size
    with ProfileCache(tmp_path) as cache:
        cache.compact(min_rows=100)
    assert (tmp_path / DB_NAME).stat().st_size < before * 0.7


def test_a_compaction_that_cannot_write_leaves_the_profiles_as_they_were(tmp_path: Path, monkeypatch) -> None:
    import sqlite3

    from lakeboard.servers.profiling import cache as profile_cache

    monkeypatch.setattr(profile_cache, "BUSY_TIMEOUT_S", 0.2)
    with ProfileCache(tmp_path) as cache:
        for i in range(200):
            cache.put(_varied(i))
    other = sqlite3.connect(tmp_path / DB_NAME, isolation_level=None)
    other.execute("begin immediate")  # another writer holds the database
    with ProfileCache(tmp_path) as cache:
        assert cache.compact(min_rows=100) == 0
        assert cache.load_many(["site_3/readings.csv"]) == {"site_3/readings.csv": _varied(3)}
        other.execute("rollback")
        other.close()
        cache.put(_varied(300))  # written without the dictionary that was not stored
        assert cache.load_many(["site_300/readings.csv"]) == {"site_300/readings.csv": _varied(300)}
    with ProfileCache(tmp_path) as cache:
        assert cache.compact(min_rows=100) == 201  # the next index compacts
        cache.put(_varied(500))
        assert len(cache.load_many([_varied(i).path for i in [*range(200), 300, 500]])) == 202


def test_two_indexes_compacting_at_once_train_one_dictionary(tmp_path: Path, monkeypatch) -> None:
    from lakeboard.servers.profiling.profile_codec import ProfileCodec

    train = ProfileCodec.train
    with ProfileCache(tmp_path) as first, ProfileCache(tmp_path) as second:
        for i in range(200):
            first.put(_varied(i))

        def first_compacts_meanwhile(samples: list[bytes]) -> bytes:
            monkeypatch.setattr(ProfileCodec, "train", staticmethod(train))
            assert first.compact(min_rows=100) == 200  # while the second trains its own
            return train(samples)

        monkeypatch.setattr(ProfileCodec, "train", staticmethod(first_compacts_meanwhile))
        assert second.compact(min_rows=100) == 0  # finds the first one's dictionary, and takes it
        assert second._con.execute("select count(*) from dictionaries").fetchone() == (1,)
        second.put(_varied(999))
        assert first.load_many(["site_999/readings.csv"]) == {"site_999/readings.csv": _varied(999)}
        assert len(first.load_many(_varied(i).path for i in range(200))) == 200
        assert first.compact(min_rows=100) == second.compact(min_rows=100) == 0  # and later, without a race


def test_sample_rows_are_stored_by_column_and_read_back_as_records(tmp_path: Path) -> None:
    rows = [{"date": f"2024-01-{d:02d}", "rain mm": d * 1.5, "note": None if d % 2 else "wet"} for d in range(1, 21)]
    ragged = [{"a": 1}, {"b": 2}]  # rows with different keys stay records
    prof = _profile("rain.csv").model_copy(update={"tables": [TableProfile(sample_rows=rows),
                                                              TableProfile(sample_rows=ragged)]})
    with ProfileCache(tmp_path) as cache:
        cache.put(prof)
        text = cache._codec.decode(cache._con.execute("select profile from profile_rows").fetchone()[0]).decode()
        assert '"sample_rows":{"date":["2024-01-01","2024-01-02"' in text and '"sample_rows":[{"a":1},{"b":2}]' in text
        back = cache.load_many(["rain.csv"])["rain.csv"]
        assert back == prof and list(back.tables[0].sample_rows[0]) == ["date", "rain mm", "note"]
        assert '"sample_rows":[{"date":"2024-01-01"' in back.model_dump_json()  # outside the cache: records
        # columns of unequal length are no rows: the entry is damaged, so a miss
        broken = text.replace('"note":[null,"wet"', '"note":["wet"')
        cache._con.execute("update profile_rows set profile = ?", (cache._codec.encode(broken.encode()),))
        assert cache.load_many(["rain.csv"]) == {}


def test_a_cache_keyed_by_path_is_moved_to_path_keys_once_and_nothing_is_profiled_again(tmp_path: Path) -> None:
    import sqlite3
    import zlib

    tmp_path.mkdir(exist_ok=True)
    with sqlite3.connect(tmp_path / DB_NAME) as con:  # the layout before path keys, one row compressed, one text
        con.execute("create table profiles (path text primary key, size integer not null, mtime_ns integer not null, "
                    "version integer not null, stored_ns integer not null, profile text not null)")
        con.execute("insert into profiles values (?, 10, 123, ?, 0, ?)",
                    ("a.csv", PROFILER_VERSION, zlib.compress(_profile("a.csv").model_dump_json().encode())))
        con.execute("insert into profiles values (?, 10, 123, ?, 0, ?)",
                    ("b c.csv", PROFILER_VERSION, _profile("b c.csv").model_dump_json()))
    with ProfileCache(tmp_path) as cache:
        assert cache.fresh({"a.csv": (10, 123), "b c.csv": (10, 123)}) == {
            "a.csv": _profile("a.csv"), "b c.csv": _profile("b c.csv")}
    with sqlite3.connect(tmp_path / DB_NAME) as con:
        tables = {name for (name,) in con.execute("select name from sqlite_master")}
    assert "profiles" not in tables and not any(t.startswith("sqlite_autoindex") for t in tables)


def _old_layout(folder: Path, *profiles: FileProfile) -> None:
    """A cache as Lakeboard wrote it before path keys: the path its primary key, rows of JSON text."""
    import sqlite3

    folder.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(folder / DB_NAME) as con:
        con.execute("pragma journal_mode=wal")
        con.execute("create table profiles (path text primary key, size integer not null, mtime_ns integer not null, "
                    "version integer not null, stored_ns integer not null, profile text not null)")
        con.executemany("insert into profiles values (?, ?, ?, ?, 0, ?)",
                        [(p.path, p.size_bytes, p.mtime_ns, PROFILER_VERSION, p.model_dump_json()) for p in profiles])


def test_a_read_only_cache_of_the_layout_before_path_keys_is_still_read(tmp_path: Path) -> None:
    import subprocess

    _old_layout(tmp_path, _profile("a.csv"), _profile("b c.csv"))
    if subprocess.run(["chattr", "+i", str(tmp_path / DB_NAME)], capture_output=True).returncode:
        pytest.skip("chattr cannot make a file immutable here (the only way to deny root a write)")
    try:
        with ProfileCache(tmp_path) as cache:
            assert cache.load_many(["a.csv", "b c.csv", "none.csv"]) == {"a.csv": _profile("a.csv"),
                                                                          "b c.csv": _profile("b c.csv")}
            assert cache.fresh({"a.csv": (10, 123)}) == {"a.csv": _profile("a.csv")}
    finally:
        subprocess.run(["chattr", "-i", str(tmp_path / DB_NAME)], check=True)


def test_a_new_cache_has_large_pages_and_a_row_under_another_path_s_key_is_no_hit(tmp_path: Path) -> None:
    with ProfileCache(tmp_path) as cache:
        cache.put(_profile("a.csv"))
        assert cache._con.execute("pragma page_size").fetchone() == (16384,)
        # two paths with one key (a chance of 1 in 10^10 at 50k files): the row is the other path's
        cache._con.execute("update profile_rows set key = path_key('b.csv')")
        assert cache.load_many(["b.csv"]) == {} and cache.load_many(["a.csv"]) == {}


def test_a_headerless_table_s_per_column_markers_survive_the_cache(tmp_path: Path) -> None:
    """Columns read without a header are 0, 1, 2 …; JSON keys are text. A loader made from the
    cached profile must still drop the marker of column 2, or the column loads as text."""
    from lakeboard.servers.profiling import profile_file
    from lakeboard.servers.profiling.loader_code import loader_code

    lake = tmp_path / "lake"
    lake.mkdir()
    rows = [f"{i},{i / 7:.3f},{'M' if i % 7 == 0 else round(i / 3, 2)},site{i % 3}" for i in range(40)]
    (lake / "readings.csv").write_text("\n".join(rows) + "\n")
    cache = ProfileCache(tmp_path / "cache")
    cache.put(profile_file(lake / "readings.csv", lake))
    cached = _load(cache, "readings.csv")
    assert cached is not None and cached.tables[0].options["na_values"] == {2: ["M"]}
    ns: dict = {}
    exec(loader_code(cached, lake), ns)
    assert str(ns["data"][2].dtype) == "float64" and ns["data"][2].isna().sum() == 6
