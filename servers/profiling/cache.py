"""Profiles on disk, one JSON file per lake file, keyed by (relpath, size, mtime_ns).

Re-indexing a lake then reads only files that changed. Writes are atomic (temp file +
os.replace), so a crash never leaves a half-written profile. The folder carries a
CACHEDIR.TAG, so lake walkers and backup tools skip it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Iterator

from pydantic import ValidationError

from schemas.profiles import FileProfile

log = logging.getLogger(__name__)

# Bump when readers change what they record: older cache entries are then re-profiled.
PROFILER_VERSION = 1
CACHEDIR_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# Lakeboard profile cache (safe to delete).\n"


def cache_key(relpath: str) -> str:
    return hashlib.sha1(relpath.encode("utf-8")).hexdigest()


class ProfileCache:
    """A folder of profiles. Safe to share between processes: every write is a rename."""

    def __init__(self, cache_dir: Path) -> None:
        self.dir = Path(cache_dir)
        self._ready = False

    def _ensure(self) -> None:
        if self._ready:
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        tag = self.dir / "CACHEDIR.TAG"
        if not tag.exists():
            _atomic_write(tag, CACHEDIR_TAG)
        self._ready = True

    def file_for(self, relpath: str) -> Path:
        return self.dir / f"{cache_key(relpath)}.json"

    # Entry layout: one line of JSON metadata (version, size, mtime_ns), then the profile's JSON.
    # Staleness is decided from the first line; pydantic parses the profile straight from bytes.
    def _read(self, relpath: str) -> tuple[dict, bytes] | None:
        try:
            raw = self.file_for(relpath).read_bytes()
        except OSError:
            return None
        head, sep, body = raw.partition(b"\n")
        try:
            meta = json.loads(head) if sep else None
        except ValueError:
            meta = None
        if not isinstance(meta, dict):
            log.warning("ignoring a damaged cache entry for %s", relpath)
            return None
        return meta, body

    def _profile(self, body: bytes, relpath: str) -> FileProfile | None:
        try:
            prof = FileProfile.model_validate_json(body)
        except ValidationError:
            log.warning("ignoring a damaged cache entry for %s", relpath)
            return None
        return prof if prof.path == relpath else None  # a hash collision is not our file

    def get(self, relpath: str, size: int, mtime_ns: int) -> FileProfile | None:
        """The cached profile if it was made from this very version of the file (and this profiler)."""
        entry = self._read(relpath)
        if entry is None:
            return None
        meta, body = entry
        if meta.get("version") != PROFILER_VERSION or meta.get("size") != size or meta.get("mtime_ns") != mtime_ns:
            return None
        return self._profile(body, relpath)

    def load(self, relpath: str) -> FileProfile | None:
        """The cached profile, without checking that the file is unchanged (fast start for servers)."""
        entry = self._read(relpath)
        return self._profile(entry[1], relpath) if entry else None

    def put(self, profile: FileProfile) -> None:
        self.put_json(profile, profile.model_dump_json())

    def put_json(self, profile: FileProfile, profile_json: str) -> None:
        """put(), reusing JSON already serialised (by a worker process)."""
        self._ensure()
        meta = json.dumps(
            {"version": PROFILER_VERSION, "path": profile.path, "size": profile.size_bytes, "mtime_ns": profile.mtime_ns}
        )
        _atomic_write(self.file_for(profile.path), meta + "\n" + profile_json)

    def remove(self, relpath: str) -> None:
        try:
            self.file_for(relpath).unlink()
        except FileNotFoundError:
            pass

    def keys(self) -> Iterator[str]:
        """Cache file stems present on disk (sha1 of relpaths)."""
        if not self.dir.is_dir():
            return iter(())
        return (p.stem for p in self.dir.glob("*.json"))

    def prune(self, keep_relpaths: set[str]) -> int:
        """Drop entries for files not in `keep_relpaths`; returns how many were dropped."""
        keep = {cache_key(r) for r in keep_relpaths}
        dropped = 0
        for stem in list(self.keys()):
            if stem not in keep:
                try:
                    (self.dir / f"{stem}.json").unlink()
                    dropped += 1
                except FileNotFoundError:
                    pass
        return dropped

    def profiles(self) -> Iterator[FileProfile]:
        """Every cached profile (no staleness check)."""
        for stem in list(self.keys()):
            try:
                raw = (self.dir / f"{stem}.json").read_bytes()
                yield FileProfile.model_validate_json(raw.partition(b"\n")[2])
            except (OSError, ValueError, ValidationError):
                continue


def _atomic_write(target: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
