"""Profiles on disk, one JSON file per lake file, keyed on (relpath, size, mtime_ns).

Re-indexing a lake then re-profiles only files that changed, & rewrites only their
entries. Each entry is written to a temporary file & renamed into place, so a crash
never leaves a half-written profile, & readers (the file-agent servers) may load
entries while the indexer writes others. Entries are written from the profiling worker
processes themselves, in parallel. The folder carries a CACHEDIR.TAG, so lake walkers
& backup tools skip it.

Entry layout: one line of JSON metadata (version, path, size, mtime_ns), then the
profile's JSON, so staleness is decided without parsing the profile.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Iterator

from pydantic import ValidationError

from schemas.profiles import FileProfile
from servers.atomic_files import write_text_atomic

log = logging.getLogger(__name__)

# Bump when readers change what they record: older cache entries are then re-profiled.
PROFILER_VERSION = 2
CACHEDIR_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# Lakeboard profile cache (safe to delete).\n"


def cache_key(relpath: str) -> str:
    return hashlib.sha1(relpath.encode("utf-8")).hexdigest()


class ProfileCache:
    """A folder of cached profiles. Safe to share between threads & processes."""

    def __init__(self, cache_dir: Path) -> None:
        self.dir = Path(cache_dir)
        self._ready = False

    def ensure(self) -> None:
        """Create the folder & its CACHEDIR.TAG if they are missing."""
        if self._ready:
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        tag = self.dir / "CACHEDIR.TAG"
        if not tag.exists():
            write_text_atomic(tag, CACHEDIR_TAG, durable=False)
        self._ready = True

    def file_for(self, relpath: str) -> Path:
        return self.dir / f"{cache_key(relpath)}.json"

    # -- reading ------------------------------------------------------------------------
    def _read(self, relpath: str) -> tuple[dict, bytes] | None:
        try:
            raw = self.file_for(relpath).read_bytes()
        except OSError:
            return None
        return _split(raw, relpath)

    @staticmethod
    def _parse(relpath: str, body: bytes) -> FileProfile | None:
        try:
            prof = FileProfile.model_validate_json(body)
        except ValidationError:
            log.warning("ignoring a damaged cache entry for %s", relpath)
            return None
        return prof if prof.path == relpath else None  # a hash collision is not our file

    def get(self, relpath: str, size: int, mtime_ns: int) -> FileProfile | None:
        """The cached profile if it was made from this very version of the file (& this profiler)."""
        entry = self._read(relpath)
        if entry is None:
            return None
        meta, body = entry
        if meta.get("version") != PROFILER_VERSION or meta.get("size") != size or meta.get("mtime_ns") != mtime_ns:
            return None
        return self._parse(relpath, body)

    def load(self, relpath: str) -> FileProfile | None:
        """The cached profile, without checking that the file is unchanged (fast start for servers)."""
        entry = self._read(relpath)
        return self._parse(relpath, entry[1]) if entry else None

    def fresh(self, stats: dict[str, tuple[int, int]]) -> dict[str, FileProfile]:
        """The cached profiles still valid for files with these (size, mtime_ns)."""
        out: dict[str, FileProfile] = {}
        if not self.dir.is_dir():
            return out
        for relpath, (size, mtime_ns) in stats.items():
            prof = self.get(relpath, size, mtime_ns)
            if prof is not None:
                out[relpath] = prof
        return out

    def entries(self) -> dict[str, tuple[int, int, int]]:
        """relpath -> (size, mtime_ns, version) of every entry (reads only metadata lines)."""
        out: dict[str, tuple[int, int, int]] = {}
        for f in self._files():
            try:
                with open(f, "rb") as fh:
                    meta = json.loads(fh.readline())
                out[str(meta["path"])] = (meta["size"], meta["mtime_ns"], meta["version"])
            except (OSError, ValueError, KeyError, TypeError):
                continue
        return out

    def profiles(self) -> Iterator[FileProfile]:
        """Every cached profile (no staleness check), in path order."""
        found = []
        for f in self._files():
            try:
                entry = _split(f.read_bytes(), f.name)
            except OSError:
                continue
            if entry:
                prof = self._parse(str(entry[0].get("path")), entry[1])
                if prof is not None:
                    found.append(prof)
        yield from sorted(found, key=lambda p: p.path)

    def _files(self) -> list[Path]:
        if not self.dir.is_dir():
            return []
        return [self.dir / n for n in os.listdir(self.dir) if not (not n.endswith(".json") or n.startswith("."))]

    # -- writing ------------------------------------------------------------------------
    def put(self, profile: FileProfile) -> None:
        self.put_json(profile, profile.model_dump_json())

    def put_json(self, profile: FileProfile, profile_json: str) -> None:
        """put(), reusing JSON already serialised."""
        self.ensure()
        meta = json.dumps(
            {
                "version": PROFILER_VERSION,
                "path": profile.path,
                "size": profile.size_bytes,
                "mtime_ns": profile.mtime_ns,
            }
        )
        write_text_atomic(self.file_for(profile.path), meta + "\n" + profile_json, durable=False)

    def remove(self, relpath: str) -> None:
        try:
            self.file_for(relpath).unlink()
        except FileNotFoundError:
            pass

    def prune(self, keep_relpaths: set[str]) -> int:
        """Drop entries for files not in `keep_relpaths`; returns how many were dropped."""
        keep = {f"{cache_key(r)}.json" for r in keep_relpaths}
        dropped = 0
        for f in self._files():
            if f.name not in keep:
                try:
                    f.unlink()
                    dropped += 1
                except FileNotFoundError:
                    pass
        return dropped


def _split(raw: bytes, label: str) -> tuple[dict, bytes] | None:
    head, sep, body = raw.partition(b"\n")
    try:
        meta = json.loads(head) if sep else None
    except ValueError:
        meta = None
    if not isinstance(meta, dict):
        log.warning("ignoring a damaged cache entry for %s", label)
        return None
    return meta, body
