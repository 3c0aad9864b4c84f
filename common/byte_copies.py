"""Files of a lake that hold the same bytes: a lake often keeps copies of one file under
several names or folders, and a request should get one of them, with the others named as the
same data rather than offered as rivals.

Only files of equal size are compared: their first block is hashed first, and only files whose
first blocks agree are hashed whole, so a lake of distinct files costs one stat each (the sizes
are the profiles') and hardly any reading.
"""

from __future__ import annotations

import hashlib
import os
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from lakeboard.common.bounded_reads import FileRefused
from lakeboard.common.lake_files import open_lake_file

_HEAD = 64 * 1024  # bytes hashed before a whole file is


def _digest(root: Path, rel: str, limit: int | None) -> bytes | None:
    """The blake2b digest of the file's first `limit` bytes (all of it when None); None when it
    cannot be read (it went away or was replaced since it was profiled)."""
    try:
        with open(open_lake_file(root, rel), "rb") as f:
            if limit is not None:
                return hashlib.blake2b(f.read(limit), digest_size=20).digest()
            return hashlib.file_digest(f, lambda: hashlib.blake2b(digest_size=20)).digest()
    except (OSError, FileRefused):
        return None


def _split(root: Path, group: list[str], limit: int | None) -> list[list[str]]:
    by: dict[bytes, list[str]] = defaultdict(list)
    for rel in group:
        d = _digest(root, rel, limit)
        if d is not None:
            by[d].append(rel)
    return [g for g in by.values() if len(g) > 1]


def byte_copies(root: Path, sizes: Iterable[tuple[str, int]]) -> list[list[str]]:
    """Groups of lake-relative paths whose files hold the same bytes, each group and the list
    sorted. `sizes`: each file's path and size in bytes (empty files are not copies of anything)."""
    by_size: dict[int, list[str]] = defaultdict(list)
    for rel, size in sizes:
        if size > 0:
            by_size[size].append(rel)
    out = []
    for size, group in by_size.items():
        if len(group) < 2:
            continue
        candidates = _split(root, group, _HEAD) if size > _HEAD else [group]
        for same_head in candidates:
            out += _split(root, same_head, None)
    return sorted(sorted(g) for g in out)


def copies_by_path(groups: Iterable[list[str]]) -> dict[str, list[str]]:
    """Each path of `groups` (as byte_copies gives them), with the others of its group."""
    return {p: [q for q in g if q != p] for g in groups for p in g}


def copies_by_file(root: Path, paths: Iterable[str]) -> dict[str, list[str]]:
    """Each of `paths` (lake-relative) that has copies among them, with the others of its group."""
    sizes = []
    for rel in paths:
        try:
            sizes.append((rel, os.stat(root / rel).st_size))
        except OSError:
            continue
    return copies_by_path(byte_copies(root, sizes))
