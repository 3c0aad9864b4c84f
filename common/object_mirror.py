"""A bucket lake's whole files on local disk, fetched when a helper names them, for code with no network.

The kernel runs without network, so the code it runs reads a bucket lake's files from this
mirror, which the sandbox mounts read-only where the loaders expect them. The host fills it
with the files the helpers' responses name, just before the main agent (or the MCP client)
gets them. It holds at most `LAKEBOARD_MIRROR_GB` (default 10) gigabytes; past that, the files
used least recently go first. A file is fetched again only when its object changed (its ETag
or version); every write is atomic, so a reader never sees half a file.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel

from lakeboard.common.atomic_files import write_text_atomic
from lakeboard.common.private_files import private_folders
from lakeboard.common.object_stores import ObjectLake, filesystem, key_problem, object_version

log = logging.getLogger(__name__)
SIZE_VARIABLE = "LAKEBOARD_MIRROR_GB"
DEFAULT_GB = 10.0
_locks: dict[Path, threading.Lock] = {}


def mirror_bytes(environ: dict[str, str] | None = None) -> int:
    """The most the mirror may hold, from LAKEBOARD_MIRROR_GB (default 10 GB)."""
    text = (os.environ if environ is None else environ).get(SIZE_VARIABLE, "").strip()
    try:
        gb = float(text) if text else DEFAULT_GB
    except ValueError:
        gb = DEFAULT_GB
    return int(max(gb, 0.0) * (1 << 30))


class _Manifest(BaseModel):
    versions: dict[str, str] = {}  # file -> the version of the object it holds


@dataclass
class MirrorReport:
    fetched: dict[str, int] = field(default_factory=dict)  # file -> bytes
    kept: list[str] = field(default_factory=list)  # already there, unchanged
    failed: dict[str, str] = field(default_factory=dict)  # file -> why it is not in the mirror
    evicted: list[str] = field(default_factory=list)


class ObjectMirror:
    """The mirror of `lake` in `folder` (the config's data root); its manifest sits beside the folder."""

    def __init__(self, lake: ObjectLake, folder: Path, options: dict[str, object], max_bytes: int | None = None) -> None:
        self.lake, self.folder, self.options = lake, Path(folder), options
        self.max_bytes = mirror_bytes() if max_bytes is None else max_bytes
        self.manifest_path = self.folder.parent / "manifest.json"
        self._lock = _locks.setdefault(self.folder, threading.Lock())
        self._fs = None  # the store's filesystem, made at the first fill (a new client per fill costs ~0.6 s)

    def _manifest(self) -> _Manifest:
        try:
            return _Manifest.model_validate_json(self.manifest_path.read_text())
        except (OSError, ValueError):
            return _Manifest()

    def fill(self, files: Iterable[str]) -> MirrorReport:
        """Bring `files` (lake-relative) into the mirror; never raises for one file's failure."""
        wanted = list(dict.fromkeys(files))
        report = MirrorReport()
        if not wanted:
            return report
        with self._lock:
            for folder in (self.folder.parent, self.folder):  # made at index time; owner-only if made here
                folder.mkdir(mode=0o700, exist_ok=True)
            manifest = self._manifest()
            try:
                self._fs = self._fs or filesystem(self.lake, self.options)
            except ValueError as exc:
                report.failed = {f: str(exc) for f in wanted}
                return report
            for rel in wanted:
                why = key_problem(rel)
                if why is None:
                    why = self._fetch(self._fs, rel, manifest, report)
                if why is not None:
                    report.failed[rel] = why
            if report.fetched:  # only a new file can take the mirror past its bound
                report.evicted = self._evict(manifest, keep=set(wanted))
            # not synced to disk: a lost manifest only costs fetching its files again
            write_text_atomic(self.manifest_path, manifest.model_dump_json(), durable=False, mode=0o600)
        return report

    def _fetch(self, fs, rel: str, manifest: _Manifest, report: MirrorReport) -> str | None:
        path, dest = f"{self.lake.root}/{rel}", self.folder / rel
        try:
            info = fs.info(path)
            size, version = int(info.get("size") or 0), object_version(info)
            if size > self.max_bytes:
                return (f"the object is {size:,} bytes, more than the mirror may hold ({self.max_bytes:,}; "
                        f"set {SIZE_VARIABLE})")
            if dest.is_file() and version and manifest.versions.get(rel) == version:
                os.utime(dest)  # used now: the last to be evicted
                report.kept.append(rel)
                return None
            fd, tmp = tempfile.mkstemp(prefix=".part-", dir=private_folders(self.folder, rel))
            os.close(fd)
            try:
                fs.get_file(path, tmp)
                os.replace(tmp, dest)
            finally:
                Path(tmp).unlink(missing_ok=True)
        except Exception as exc:  # noqa: BLE001 - each store raises its own errors
            return f"it could not be fetched: {type(exc).__name__}: {str(exc)[:200]}"
        manifest.versions[rel] = version
        report.fetched[rel] = dest.stat().st_size
        return None

    def _evict(self, manifest: _Manifest, keep: set[str]) -> list[str]:
        """Files used least recently, until the mirror holds at most `max_bytes` (never those in `keep`)."""
        files = [(p.stat().st_mtime_ns, p.stat().st_size, p) for p in self.folder.rglob("*") if p.is_file()]
        total = sum(size for _, size, _ in files)
        evicted = []
        for _, size, path in sorted(files, key=lambda f: f[0]):
            if total <= self.max_bytes:
                break
            rel = path.relative_to(self.folder).as_posix()
            if rel in keep:
                continue
            path.unlink(missing_ok=True)
            manifest.versions.pop(rel, None)
            total -= size
            evicted.append(rel)
        return evicted
