"""Profiles on disk, keyed by (relpath, size, mtime_ns), in one SQLite file per cache folder.

Re-indexing a lake then re-profiles only files that changed. Each profile is one row
written in a transaction, so a crash never leaves a half-written profile; readers (the
file-agent servers) and the indexer may use the cache at the same time (WAL mode). One
database file instead of one file per profile: creating thousands of small files costs
more than profiling them. The folder carries a CACHEDIR.TAG, so lake walkers and backup
tools skip it; a damaged database is set aside and rebuilt, since it is only a cache.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from pydantic import ValidationError

from schemas.profiles import FileProfile

log = logging.getLogger(__name__)

# Bump when readers change what they record: older cache entries are then re-profiled.
PROFILER_VERSION = 2
DB_NAME = "profiles.sqlite"
CACHEDIR_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# Lakeboard profile cache (safe to delete).\n"
_SCHEMA = """
create table if not exists profiles (
    relpath text primary key,
    size integer not null,
    mtime_ns integer not null,
    version integer not null,
    profile text not null
)
"""


class ProfileCache:
    """A folder holding cached profiles. Safe to share between threads and processes."""

    def __init__(self, cache_dir: Path) -> None:
        self.dir = Path(cache_dir)
        self.path = self.dir / DB_NAME
        self._lock = threading.RLock()
        self._con: sqlite3.Connection | None = None
        self._in_batch = False

    # -- connection ---------------------------------------------------------------------
    def _connect(self, create: bool) -> sqlite3.Connection | None:
        if self._con is not None:
            return self._con
        if not create and not self.path.exists():
            return None
        if create:
            self.dir.mkdir(parents=True, exist_ok=True)
            tag = self.dir / "CACHEDIR.TAG"
            if not tag.exists():
                tag.write_text(CACHEDIR_TAG)
        try:
            con = self._open()
        except sqlite3.DatabaseError as e:
            if not create:
                log.warning("profile cache %s cannot be read (%s)", self.path, e)
                return None
            aside = self.path.with_name(f"{DB_NAME}.damaged-{int(time.time())}")
            log.warning("profile cache %s is damaged (%s); moved to %s, starting afresh", self.path, e, aside.name)
            self.path.replace(aside)
            con = self._open()
        self._con = con
        return con

    def _open(self) -> sqlite3.Connection:
        con = sqlite3.connect(str(self.path), timeout=30, check_same_thread=False, isolation_level=None)
        try:
            con.execute("pragma journal_mode=wal")
            con.execute("pragma synchronous=normal")
            con.execute(_SCHEMA)
            con.execute("select count(*) from profiles limit 1").fetchone()
        except sqlite3.DatabaseError:
            con.close()
            raise
        return con

    def ensure(self) -> None:
        """Create the folder, its CACHEDIR.TAG and the database if they are missing."""
        with self._lock:
            self._connect(create=True)

    def close(self) -> None:
        with self._lock:
            if self._con is not None:
                self._con.close()
                self._con = None

    def __enter__(self) -> ProfileCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading ------------------------------------------------------------------------
    def _row(self, relpath: str) -> tuple[int, int, int, str] | None:
        with self._lock:
            con = self._connect(create=False)
            if con is None:
                return None
            try:
                return con.execute(
                    "select size, mtime_ns, version, profile from profiles where relpath = ?", (relpath,)
                ).fetchone()
            except sqlite3.DatabaseError as e:
                log.warning("profile cache read failed for %s: %s", relpath, e)
                return None

    @staticmethod
    def _parse(relpath: str, text: str) -> FileProfile | None:
        try:
            prof = FileProfile.model_validate_json(text)
        except ValidationError:
            log.warning("ignoring a damaged cache entry for %s", relpath)
            return None
        return prof if prof.path == relpath else None

    def get(self, relpath: str, size: int, mtime_ns: int) -> FileProfile | None:
        """The cached profile if it was made from this very version of the file (and this profiler)."""
        row = self._row(relpath)
        if row is None or row[0] != size or row[1] != mtime_ns or row[2] != PROFILER_VERSION:
            return None
        return self._parse(relpath, row[3])

    def load(self, relpath: str) -> FileProfile | None:
        """The cached profile, without checking that the file is unchanged (fast start for servers)."""
        row = self._row(relpath)
        return self._parse(relpath, row[3]) if row else None

    def entries(self) -> dict[str, tuple[int, int, int]]:
        """relpath -> (size, mtime_ns, version) of every entry, in one query."""
        with self._lock:
            con = self._connect(create=False)
            if con is None:
                return {}
            try:
                return {r[0]: (r[1], r[2], r[3]) for r in con.execute("select relpath, size, mtime_ns, version from profiles")}
            except sqlite3.DatabaseError:
                return {}

    def fresh(self, stats: dict[str, tuple[int, int]]) -> dict[str, FileProfile]:
        """The cached profiles still valid for files with these (size, mtime_ns), in one query."""
        with self._lock:
            con = self._connect(create=False)
            if con is None:
                return {}
            try:
                rows = con.execute("select relpath, size, mtime_ns, version, profile from profiles").fetchall()
            except sqlite3.DatabaseError:
                return {}
        out: dict[str, FileProfile] = {}
        for relpath, size, mtime_ns, version, text in rows:
            if version == PROFILER_VERSION and stats.get(relpath) == (size, mtime_ns):
                prof = self._parse(relpath, text)
                if prof is not None:
                    out[relpath] = prof
        return out

    def profiles(self) -> Iterator[FileProfile]:
        """Every cached profile (no staleness check)."""
        with self._lock:
            con = self._connect(create=False)
            rows = con.execute("select relpath, profile from profiles order by relpath").fetchall() if con else []
        for relpath, text in rows:
            prof = self._parse(relpath, text)
            if prof is not None:
                yield prof

    # -- writing ------------------------------------------------------------------------
    def put(self, profile: FileProfile) -> None:
        self.put_json(profile, profile.model_dump_json())

    def put_json(self, profile: FileProfile, profile_json: str) -> None:
        """put(), reusing JSON already serialised (by a worker process)."""
        with self._lock:
            con = self._connect(create=True)
            assert con is not None
            con.execute(
                "insert or replace into profiles (relpath, size, mtime_ns, version, profile) values (?, ?, ?, ?, ?)",
                (profile.path, profile.size_bytes, profile.mtime_ns, PROFILER_VERSION, profile_json),
            )

    def remove(self, relpath: str) -> None:
        with self._lock:
            con = self._connect(create=False)
            if con is not None:
                con.execute("delete from profiles where relpath = ?", (relpath,))

    def prune(self, keep_relpaths: set[str]) -> int:
        """Drop entries for files not in `keep_relpaths`; returns how many were dropped."""
        gone = [r for r in self.entries() if r not in keep_relpaths]
        if gone:
            with self.batch():
                con = self._connect(create=True)
                assert con is not None
                con.executemany("delete from profiles where relpath = ?", [(r,) for r in gone])
        return len(gone)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Group writes into one transaction (much faster for many profiles); each stays atomic."""
        with self._lock:
            con = self._connect(create=True)
            assert con is not None
            if self._in_batch:
                yield
                return
            con.execute("begin")
            self._in_batch = True
            try:
                yield
            except BaseException:
                con.execute("rollback")
                raise
            else:
                con.execute("commit")
            finally:
                self._in_batch = False

    def checkpoint(self) -> None:
        """Inside batch(): commit what was written so far, so a crash loses nothing before it."""
        with self._lock:
            if self._in_batch and self._con is not None:
                self._con.execute("commit")
                self._con.execute("begin")
