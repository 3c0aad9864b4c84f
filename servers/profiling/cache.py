"""Profiles on disk, keyed by (relpath, size, mtime_ns), in one SQLite database per cache folder.

Re-indexing a lake then re-profiles only files that changed, and rewrites only their rows.
Each write is a transaction of its own, so a crash never leaves half a profile, and readers
(the file-agent servers) may load profiles while the indexer writes others (WAL mode).
One database rather than one file per profile: creating thousands of small files costs
the file system more than profiling the files they describe. A damaged database is set
aside and rebuilt: it is only a cache. The folder carries a CACHEDIR.TAG, so lake walkers
and backup tools skip it.

Each profile's JSON is stored compressed, as a blob (servers/profiling/profile_codec.py): zlib
until the cache holds enough profiles to train a dictionary on, then zstd with that dictionary,
which `compact` trains once and keeps in the database (a seventh of the JSON's size where zlib
gave a third). A row written as text by an earlier version is still read as it is, so no lake is
re-profiled for the change.
"""

from __future__ import annotations

import errno
import hashlib
import logging
import os
import sqlite3
import threading
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Iterable, Iterator

from pydantic import ValidationError
import zstandard

from lakeboard.common.atomic_files import write_text_atomic
from lakeboard.schemas.profiles import FileProfile
from lakeboard.schemas.storage import STORED
from lakeboard.common.gc_pauses import collector_paused
from lakeboard.servers.profiling.profile_codec import ProfileCodec, UndecodableProfile, UnknownDictionary

log = logging.getLogger(__name__)

# Bump when readers change what they record: older cache entries are then re-profiled.
PROFILER_VERSION = 31
DB_NAME = "profiles.sqlite"
CACHEDIR_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# Lakeboard profile cache (safe to delete).\n"
# A row's rowid is a digest of its path (path_key), so no second b-tree lists the paths: with the
# path as primary key, its index took 2.1 of the 26 MB of the 50k generated lake's cache. (WITHOUT
# ROWID suits rows far smaller than a profile's: 27 MB, in overflow pages.) `profile` holds a blob
# (the JSON compressed) or, in rows of earlier versions, the JSON as text: SQLite keeps either.
_SCHEMA = """
create table if not exists profile_rows (
    key integer primary key, -- path_key(path)
    path text not null,
    size integer not null,
    mtime_ns integer not null,
    version integer not null,
    profile blob not null
)
"""
# A page holds 10 to 40 profiles: what is left over at each page's end was 1.7 MB in 4 KB pages at
# 50k files, 0.4 MB in 16 KB ones. Set when a database is made (SQLite keeps an existing one's).
_PAGE_SIZE = 16384
_DICTIONARIES = """
create table if not exists dictionaries (
    id integer primary key, -- the zstd dictionary's own id, which each frame made with it names
    data blob not null
)
"""
# The profiles of the files the lake's documents declare something for (lake.apply_declarations),
# as they were profiled with it: what a file agent serves. profile_rows keeps what each file alone
# shows, so a declaration gone from the documents is gone at the next index; every index replaces these.
_DECLARED = """
create table if not exists declared_rows (
    key integer primary key, -- path_key(path)
    path text not null,
    profile blob not null
)
"""
BUSY_TIMEOUT_S = 30.0  # how long a write waits for another process's lock
_DAMAGED = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}  # errors of the file itself
_ROWS = "select path, size, mtime_ns, version, profile from profile_rows"
_BATCH_S = 1.0  # longest a batch's transaction stays open
_IN_CHUNK = 500  # paths per `in (...)` query, well below SQLite's parameter limit
_BULK = 200  # paths read at once beyond which the collector is paused
# Profiles before a dictionary is trained. Its 32 KB pay for themselves after about 60 profiles (955 -> ~400
# bytes each, 10k generated lake); 50 samples train one within 5% of what 1,000 give.
TRAIN_MIN_ROWS = 200
_TRAIN_SAMPLES = 2000  # profiles a dictionary is trained on (0.5 s)


class CacheWriteError(OSError):
    """The profile cache cannot be written (a full disk, a read-only folder); the message says what to do."""

    def __str__(self) -> str:
        return self.strerror or super().__str__()


class ProfileCache:
    """A folder holding cached profiles. Safe to share between threads and processes."""

    def __init__(self, cache_dir: Path) -> None:
        self.dir = Path(cache_dir)
        self.db = self.dir / DB_NAME
        self._lock = threading.Lock()
        self._con: sqlite3.Connection | None = None
        self._batching = False
        self._open_since: float | None = None  # start of the batch's open transaction
        self._codec = ProfileCodec()
        self._declared_table = False

    # -- connection ---------------------------------------------------------------------
    def _connection(self, create: bool) -> sqlite3.Connection | None:
        """The open database (the caller holds the lock); None if there is none to read."""
        if self._con is not None:
            return self._con
        if not create:
            if not self.db.exists():
                return None
            try:
                self._con = _open(self.db)
                self._read_dictionaries()
            except sqlite3.DatabaseError as e:
                log.warning("profile cache %s cannot be read (%s); treating it as empty", self.db, e)
            return self._con
        self._make_folder()
        try:
            self._con = _open(self.db)
        except sqlite3.DatabaseError as e:
            if getattr(e, "sqlite_errorcode", None) not in _DAMAGED:
                raise self._write_failed(e) from e  # locked, unreadable, disk full: not a reason to drop the cache
            aside = self.db.with_name(f"{DB_NAME}.damaged")
            log.warning("profile cache %s is damaged (%s); moved to %s, starting afresh", self.db, e, aside.name)
            os.replace(self.db, aside)
            for suffix in ("-wal", "-shm"):
                Path(f"{self.db}{suffix}").unlink(missing_ok=True)
            self._con = _open(self.db)
        try:
            self._read_dictionaries()
        except sqlite3.DatabaseError as e:
            raise self._write_failed(e) from e
        return self._con

    def _read_dictionaries(self) -> None:
        """Give the codec the database's dictionaries (the caller holds the lock, and a connection)."""
        try:
            rows = self._con.execute("select id, data from dictionaries order by rowid").fetchall()
        except sqlite3.OperationalError:  # no such table (see _open), or locked: a row that needs a
            return  # dictionary reads them again (_parse), and a writer meanwhile writes zlib
        for _id, data in rows:
            try:
                self._codec.add_dictionary(data)
            except zstandard.ZstdError as e:
                log.warning("profile cache %s: a damaged dictionary is ignored (%s)", self.db, e)

    def _make_folder(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        tag = self.dir / "CACHEDIR.TAG"
        if not tag.exists():
            write_text_atomic(tag, CACHEDIR_TAG, durable=False)

    def ensure(self) -> None:
        """Create the folder, its CACHEDIR.TAG and the database if they are missing."""
        with self._lock:
            self._connection(create=True)

    def close(self) -> None:
        with self._lock:
            if self._con is not None:
                self._con.close()
                self._con = None

    def __enter__(self) -> ProfileCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _query(self, sql: str, params: tuple = ()) -> list[tuple]:
        """Rows of a read; none when there is no readable database."""
        with self._lock:
            con = self._connection(create=False)
            if con is None:
                return []
            try:
                return con.execute(sql, params).fetchall()
            except sqlite3.DatabaseError as e:
                log.warning("profile cache %s read failed: %s", self.db, e)
                return []

    # -- reading ------------------------------------------------------------------------
    def _parse(self, relpath: str, stored: bytes | str) -> FileProfile | None:
        try:
            try:
                text = self._codec.decode(stored)
            except UnknownDictionary:  # trained by the indexer since this reader opened the database
                with self._lock:
                    if self._con is not None:
                        self._read_dictionaries()
                text = self._codec.decode(stored)
            prof = FileProfile.model_validate_json(text)
        except (ValidationError, UndecodableProfile, sqlite3.DatabaseError):
            log.warning("ignoring a damaged cache entry for %s", relpath)
            return None
        return prof if prof.path == relpath else None

    def load_many(self, relpaths: Iterable[str]) -> dict[str, FileProfile]:
        """The cached profiles of these paths, without checking that the files are unchanged
        (a server's fast start), a few queries in all; paths without a profile are left out."""
        wanted = list(dict.fromkeys(relpaths))
        out: dict[str, FileProfile] = {}
        # A bulk read (a server's start) pauses the collector, as fresh() does: at 10k profiles 1.2 s of CPU
        # against 0.55 s. Not a request's few: with a pause at every read a file agent answered in 130 ms
        # against 78-85 ms without (warm p50, bench_scale.py at 1k files; a loop of small paused reads on a
        # large heap alone shows no such cost, so the cause is not pinned down).
        declared = self._has_declared()
        with collector_paused() if len(wanted) >= _BULK else nullcontext():
            for i in range(0, len(wanted), _IN_CHUNK):
                chunk = tuple(wanted[i : i + _IN_CHUNK])
                marks = ", ".join("?" * len(chunk))
                keys = tuple(path_key(p) for p in chunk)
                asked = set(chunk)
                # as the lake's documents declare it, else as the file alone shows it
                rows = self._query(f"select path, profile from declared_rows where key in ({marks})", keys) if declared else []
                rows += self._query(f"select path, profile from profile_rows where key in ({marks})", keys)
                for relpath, stored in rows:
                    if relpath in out or relpath not in asked:  # declared first; not another path's key
                        continue
                    prof = self._parse(relpath, stored)
                    if prof is not None:
                        out[relpath] = prof
        return out

    def _has_declared(self) -> bool:
        """Whether the database has declared_rows (a read-only cache of an earlier version has not)."""
        if not self._declared_table:
            self._declared_table = bool(self._query("select 1 from sqlite_master where name = 'declared_rows'"))
        return self._declared_table

    def fresh(self, stats: dict[str, tuple[int, int]]) -> dict[str, FileProfile]:
        """The cached profiles made by this profiler from files with these (size, mtime_ns), in one query."""
        out: dict[str, FileProfile] = {}
        with collector_paused():  # thousands of profiles parsed, no reference cycle among them
            for relpath, size, mtime_ns, version, stored in self._query(_ROWS):
                if version != PROFILER_VERSION or stats.get(relpath) != (size, mtime_ns):
                    continue
                prof = self._parse(relpath, stored)
                if prof is not None:
                    out[relpath] = prof
        return out

    # -- writing ------------------------------------------------------------------------
    def put(self, profile: FileProfile, stat: tuple[int, int] | None = None) -> None:
        self.put_json(profile, profile.model_dump_json(context=STORED), stat)

    def put_json(self, profile: FileProfile, profile_json: str, stat: tuple[int, int] | None = None) -> None:
        """put(), reusing JSON already serialised (in a worker process, with context=STORED). `stat`: the
        (size, mtime_ns) the file had when profiled, where the profile says other (the object a replica
        file samples)."""
        size, mtime_ns = stat if stat is not None else (profile.size_bytes, profile.mtime_ns)
        with self._lock:
            self._connection(create=True)  # its dictionaries, before the first profile is encoded
        stored = self._codec.encode(profile_json.encode())  # outside the lock: threads compress at once
        row = (path_key(profile.path), profile.path, size, mtime_ns, PROFILER_VERSION, stored)
        with self._lock:
            con = self._connection(create=True)
            assert con is not None
            try:
                if self._batching and self._open_since is None:
                    con.execute("begin")
                    self._open_since = time.monotonic()
                con.execute("insert or replace into profile_rows values (?, ?, ?, ?, ?, ?)", row)
            except sqlite3.Error as e:
                raise self._write_failed(e) from e
            if self._open_since is not None and time.monotonic() - self._open_since >= _BATCH_S:
                self._commit()

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Writes inside share transactions, committed every _BATCH_S seconds and on leaving.

        Half the cost of a commit per profile; a crash loses at most the last second's
        profiles, which the next index makes again. An error inside still commits what
        was written: every row is a whole profile.
        """
        self._batching = True
        try:
            yield
        except BaseException:
            with self._lock:
                self._batching = False
                try:
                    self._commit()
                except OSError as e:  # the error on its way out says what went wrong first
                    log.warning("%s", e)
            raise
        with self._lock:
            self._batching = False
            self._commit()

    def compact(self, min_rows: int | None = None) -> int:
        """Train a dictionary on the cached profiles, if the cache has none and holds at least `min_rows`
        (default TRAIN_MIN_ROWS), and store every profile again with it; returns how many rows were rewritten.
        Only space is at stake: a failure is logged, and the profiles stay as they were.

        Once per cache: profiles written after use the dictionary from the start, so a re-index
        rewrites nothing. The file shrinks (VACUUM) when no reader holds it open.
        """
        with self._lock:
            con = self._connection(create=False)
            if con is None:
                return 0
            self._read_dictionaries()  # another index's, trained since this one opened the database
            if self._codec.dictionary is not None:
                return 0
            try:
                (count,) = con.execute("select count(*) from profile_rows").fetchone()
                if count < (TRAIN_MIN_ROWS if min_rows is None else min_rows):
                    return 0
                sample = con.execute("select path, profile from profile_rows order by random() limit ?",
                                     (_TRAIN_SAMPLES,)).fetchall()
            except sqlite3.DatabaseError as e:
                log.warning("profile cache %s not compacted: %s", self.db, e)
                return 0
        texts = []
        for _path, stored in sample:
            try:
                texts.append(self._codec.decode(stored))
            except UndecodableProfile:
                continue
        try:
            dictionary = ProfileCodec.train(texts)
        except zstandard.ZstdError as e:  # too few or too alike to learn from: zlib stays
            log.info("profile cache %s: no dictionary trained (%s)", self.db, e)
            return 0
        rewritten = 0
        with self._lock, collector_paused():
            con = self._connection(create=True)
            assert con is not None
            try:
                with con:  # one transaction: every row in its new form, or none
                    con.execute("begin immediate")
                    if con.execute("select 1 from dictionaries limit 1").fetchone():  # another index's, since
                        self._read_dictionaries()
                        return 0
                    dict_id = self._codec.add_dictionary(dictionary)
                    con.execute("insert or replace into dictionaries values (?, ?)", (dict_id, dictionary))
                    old = con.execute("select key, profile from profile_rows").fetchall()
                    for key, stored in old:
                        try:
                            text = self._codec.decode(stored)
                        except UndecodableProfile:
                            continue  # damaged: left as it is, read as a miss and profiled again
                        con.execute("update profile_rows set profile = ? where key = ?",
                                    (self._codec.encode(text), key))
                        rewritten += 1
            except sqlite3.Error as e:  # a full disk, a lock held too long: the profiles stay as they were
                log.warning("profile cache %s not compacted: %s", self.db, self._write_failed(e))
                self._codec = ProfileCodec()  # the dictionary was not stored: encode without it
                self._read_dictionaries()
                return 0
            try:
                con.execute("vacuum")
            except sqlite3.OperationalError as e:  # a reader holds it: the space is reused by later writes
                log.info("profile cache %s not vacuumed: %s", self.db, e)
        return rewritten

    def _commit(self) -> None:
        """Commit the batch's open transaction, if SQLite still has one (a failed write may have rolled it back)."""
        con, self._open_since = self._con, None
        if con is None or not con.in_transaction:
            return
        try:
            con.execute("commit")
        except sqlite3.Error as e:
            try:
                con.execute("rollback")  # a commit that failed leaves its transaction open
            except sqlite3.Error:
                pass
            raise self._write_failed(e) from e

    def _write_failed(self, e: sqlite3.Error) -> CacheWriteError:
        """A write that failed, as one sentence a user can act on (not SQLite's own words alone)."""
        # SQLite says "disk I/O error" for some writes that found the disk full (mapping its -shm file).
        if getattr(e, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or _no_room(self.dir):
            return CacheWriteError(errno.ENOSPC, f"the disk is full: cannot write the profile cache {self.db} "
                                   f"({e}); free some space there, or index into a folder on another disk")
        return CacheWriteError(errno.EIO, f"cannot write the profile cache {self.db} ({e}); check that its "
                               "folder is writable and its disk has room, or delete the folder (it is rebuilt)")

    def put_declared(self, profiles: list[FileProfile]) -> None:
        """Replace the declared profiles (see _DECLARED) with these, in one transaction."""
        with self._lock:
            con = self._connection(create=True)
            assert con is not None
        rows = [(path_key(p.path), p.path, self._codec.encode(p.model_dump_json(context=STORED).encode()))
                for p in profiles]
        with self._lock:
            try:
                with con:
                    con.execute("begin")
                    con.execute("delete from declared_rows")
                    con.executemany("insert or replace into declared_rows values (?, ?, ?)", rows)
            except sqlite3.Error as e:
                raise self._write_failed(e) from e

    def prune(self, keep_relpaths: set[str]) -> int:
        """Drop entries for files not in `keep_relpaths`; returns how many were dropped."""
        gone = [(key,) for key, path in self._query("select key, path from profile_rows") if path not in keep_relpaths]
        if gone:
            with self._lock:
                con = self._connection(create=True)
                assert con is not None
                try:
                    with con:  # one transaction: committed, or rolled back on an error
                        con.execute("begin")
                        con.executemany("delete from profile_rows where key = ?", gone)
                except sqlite3.Error as e:
                    raise self._write_failed(e) from e
        return len(gone)


def _no_room(folder: Path) -> bool:
    """Whether the file system of `folder` has no block or no inode left for new data."""
    try:
        fs = os.statvfs(folder)
    except OSError:
        return False
    return fs.f_bavail == 0 or (fs.f_files > 0 and fs.f_favail == 0)


def _open(db: Path) -> sqlite3.Connection:
    # Autocommit: each write is its own transaction. WAL: readers never wait for the
    # indexer; synchronous=normal skips a disk sync per commit (a power cut may lose the
    # last profiles written, never corrupt the database).
    con = sqlite3.connect(str(db), timeout=BUSY_TIMEOUT_S, check_same_thread=False, isolation_level=None)
    try:
        con.execute(f"pragma page_size={_PAGE_SIZE}")  # before the first write: a new database's only
        con.execute("pragma journal_mode=wal")
        con.execute("pragma synchronous=normal")
        con.create_function("path_key", 1, path_key, deterministic=True)
        try:
            con.execute(_SCHEMA)
        except sqlite3.OperationalError:
            if not _keyed_by_path(con):
                raise
            # a read-only cache written before path keys: read through a view of it, by keys computed
            # at each read (a scan of the table: slower, and nothing is profiled again)
            con.execute("create temp view profile_rows as "
                        "select path_key(path) as key, path, size, mtime_ns, version, profile from profiles")
            return con
        try:
            con.execute(_DICTIONARIES)
            con.execute(_DECLARED)
        except sqlite3.OperationalError:  # a read-only cache of an earlier version: read without them
            pass
        _move_rows_keyed_by_path(con)
    except sqlite3.DatabaseError:
        con.close()
        raise
    return con


def path_key(path: str) -> int:
    """A path's row: 64 bits of its digest. Two paths of a 50k-file lake share one about once in 10^10
    lakes; they would then take turns in the row, each read as a miss (load_many checks the path)."""
    return int.from_bytes(hashlib.blake2b(path.encode(), digest_size=8).digest(), "little", signed=True)


def _keyed_by_path(con: sqlite3.Connection) -> bool:
    """Whether the database holds the table of caches written before path keys (`profiles`, keyed by path)."""
    found = con.execute("select 1 from main.sqlite_master where type = 'table' and name = 'profiles'").fetchone()
    return found is not None


def _move_rows_keyed_by_path(con: sqlite3.Connection) -> None:
    """Move the rows of a cache written before path keys into `profile_rows`, once, so that no lake is
    profiled again for the change."""
    if not _keyed_by_path(con):
        return
    with con:  # one transaction: every row moved, or none
        con.execute("begin immediate")
        if _keyed_by_path(con):  # not moved by another process meanwhile
            con.execute("insert or replace into profile_rows "
                        "select path_key(path), path, size, mtime_ns, version, profile from profiles")
            con.execute("drop table profiles")
    try:
        con.execute("vacuum")
    except sqlite3.OperationalError as e:  # a reader holds it: the space is reused by later writes
        log.info("profile cache not vacuumed after moving its rows: %s", e)
