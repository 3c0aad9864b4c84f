"""A partition's profiles, read from the profile cache when they are asked for.

A file agent of a large lake holds thousands of files, and a request reads the profiles
of a handful (the files it returns). Validating every profile at start-up was three fifths
of a file agent's start and most of its memory (benchmarks/bench_scale.py), so profiles are
read on demand and only the most recently used are kept.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from pathlib import Path

from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.profiling.cache import ProfileCache

KEPT = 256  # profiles kept in memory: a response reads tens
_CHUNK = 500  # profiles read per query when every one is wanted


class PartitionProfiles(Mapping[str, FileProfile]):
    """path -> profile for the partition's files, in their order; a file the last index could
    not profile maps to a skipped profile that says why (`errors`) or says to index again."""

    def __init__(self, profile_dir: Path, paths: list[str], errors: Mapping[str, str], keep: int = KEPT) -> None:
        self._paths = list(dict.fromkeys(paths))
        self._known = frozenset(self._paths)
        self._errors = dict(errors)
        self._cache = ProfileCache(profile_dir)
        self._keep = keep
        self._kept: OrderedDict[str, FileProfile] = OrderedDict()
        self._lock = threading.Lock()  # tools run in worker threads

    def __len__(self) -> int:
        return len(self._paths)

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __contains__(self, path: object) -> bool:
        return path in self._known

    def __getitem__(self, path: str) -> FileProfile:
        if path not in self._known:
            raise KeyError(path)
        with self._lock:
            if path in self._kept:
                self._kept.move_to_end(path)
                return self._kept[path]
        return self._read([path])[path]

    def values(self) -> Iterator[FileProfile]:  # type: ignore[override]
        """Every profile in order, read a chunk at a time (not one query per file)."""
        for i in range(0, len(self._paths), _CHUNK):
            chunk = self._read(self._paths[i:i + _CHUNK])
            yield from chunk.values()

    def items(self) -> Iterator[tuple[str, FileProfile]]:  # type: ignore[override]
        for profile in self.values():
            yield profile.path, profile

    def _read(self, paths: list[str]) -> dict[str, FileProfile]:
        found = self._cache.load_many(paths)
        out = {p: found.get(p) or self._missing(p) for p in paths}
        with self._lock:
            for p, profile in out.items():
                self._kept[p] = profile
                self._kept.move_to_end(p)
            while len(self._kept) > self._keep:
                self._kept.popitem(last=False)
        return out

    def _missing(self, path: str) -> FileProfile:
        return FileProfile(path=path, format="unknown", status="skipped",
                           reason=self._errors.get(path, "not profiled yet: run `lakeboard index` again"))
