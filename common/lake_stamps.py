"""What a lake looked like when it was indexed, to tell cheaply whether the index is stale.

The indexer records each entry of the walk with its size and modification time (one stat per
file, no read) in `lake_stamps.json.gz` of the config set, with the indexer options it ran with
(gzipped: at 50k files the JSON was 3.3 MB, a nineteenth of the config folder).
Opening a lake walks it again and compares: a file added, removed or changed since means the
index answers from a lake that is gone, so the host re-indexes (only changed files are
profiled again) before answering.
"""

from __future__ import annotations

import gzip
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from lakeboard.common.lake_files import walk_lake

STAMPS_FILE = "lake_stamps.json.gz"
_EARLIER_STAMPS_FILE = "lake_stamps.json"  # as indexes before the gzipped one wrote them: still read
_NOT_DATA = (-1, -1)  # an entry the walk skips (a pipe, a link out of the lake...): only its presence counts


def lake_stamps(root: Path) -> dict[str, tuple[int, int]]:
    """Every entry of the lake's walk, lake-relative, with its (size, mtime_ns). Raises OSError if the lake cannot be listed."""
    stamps: dict[str, tuple[int, int]] = {}
    for path, rel, skip_reason in walk_lake(root):
        if skip_reason is not None:
            stamps[rel] = _NOT_DATA
            continue
        try:
            st = os.stat(path)
            stamps[rel] = (st.st_size, st.st_mtime_ns)
        except OSError:
            stamps[rel] = _NOT_DATA  # vanished or unreadable: the index says why
    return stamps


@dataclass(frozen=True)
class IndexedLake:
    """What `lake_stamps.json.gz` holds: the stamps the index saw and the indexer options that made it."""

    files: dict[str, tuple[int, int]]
    index_args: list[str] = field(default_factory=list)
    written_by: str = ""  # a digest of the code that wrote the index (servers/indexing/up_to_date.py)

    def to_json(self) -> str:
        return json.dumps({"index_args": self.index_args, "written_by": self.written_by,
                           "files": {r: list(s) for r, s in self.files.items()}}, ensure_ascii=False) + "\n"

    def to_gzip(self) -> bytes:
        """The JSON, gzipped as the config set stores it (no timestamp: the same stamps, the same bytes)."""
        return gzip.compress(self.to_json().encode("utf-8"), compresslevel=6, mtime=0)


def read_indexed(config_dir: Path) -> IndexedLake | None:
    """The stamps recorded in a config folder, or None (an index older than stamps, or a hand-written config)."""
    try:
        if (config_dir / STAMPS_FILE).exists():
            data = json.loads(gzip.decompress((config_dir / STAMPS_FILE).read_bytes()))
        else:
            data = json.loads((config_dir / _EARLIER_STAMPS_FILE).read_text(encoding="utf-8"))
        files = {str(r): (int(s[0]), int(s[1])) for r, s in data["files"].items()}
        args = [str(a) for a in data.get("index_args", [])]
        written_by = str(data.get("written_by", ""))
    except (OSError, EOFError, ValueError, KeyError, TypeError, IndexError, AttributeError):  # gzip.BadGzipFile is an OSError
        return None
    return IndexedLake(files, args, written_by)


@dataclass(frozen=True)
class LakeChanges:
    added: list[str]
    removed: list[str]
    changed: list[str]

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def describe(self) -> str:
        """E.g. "2 files added, 1 removed"."""
        parts = [f"{len(names)} {kind}" for kind, names in
                 (("added", self.added), ("removed", self.removed), ("changed", self.changed)) if names]
        if parts:
            total = len(self.added) if self.added else len(self.removed) if self.removed else len(self.changed)
            parts[0] = parts[0].replace(" ", " file " if total == 1 else " files ", 1)
        return ", ".join(parts)


def lake_changes(recorded: dict[str, tuple[int, int]], now: dict[str, tuple[int, int]]) -> LakeChanges:
    """The entries added, removed and changed (size or mtime) between two stamp sets."""
    return LakeChanges(
        added=sorted(r for r in now if r not in recorded),
        removed=sorted(r for r in recorded if r not in now),
        changed=sorted(r for r in now if r in recorded and now[r] != recorded[r]),
    )
