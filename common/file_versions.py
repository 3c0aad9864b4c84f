"""A file read once per version: what several callers parse again and again (a lake's
clusters.json, its search index) is kept with the version of the file it came from.

A version is the file's inode, modification time and size: Lakeboard writes its configs by
renaming a new file over the old one, so a new index is always a new version.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")
Version = tuple[int, int, int]

_read: dict[tuple[str, Callable[..., Any]], tuple[Version, Any]] = {}
_lock = threading.Lock()


def file_version(path: Path) -> Version:
    st = os.stat(path)
    return st.st_ino, st.st_mtime_ns, st.st_size


def read_once(path: Path, parse: Callable[[Path], T]) -> T:
    """`parse(path)`, computed again only when the file has changed since this process last
    parsed it with `parse` (only the latest version of each file is kept). OSError and whatever
    `parse` raises reach the caller.

    What was read from files since deleted is let go at each new read: a re-index writes a new
    set folder and removes old ones, and a mapped array of a deleted file would keep its disk
    space in use for as long as a long-running gateway lives."""
    real = os.path.realpath(path)
    version = file_version(Path(real))
    key = (real, parse)
    with _lock:
        known = _read.get(key)
    if known is not None and known[0] == version:
        return known[1]
    value = parse(Path(real))
    with _lock:
        _read[key] = (version, value)
        for gone in [k for k in _read if k != key and not os.path.exists(k[0])]:
            del _read[gone]
    return value
