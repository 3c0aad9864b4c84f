"""The objects of a lake, listed page by page, each with what says it changed (its ETag or version).

A bucket's keys are untrusted text, as a folder's file names are. A key that cannot be a file
of the local sample replica (an empty, '.' or '..' part, a NUL, a part longer than a file name
may be) is listed with the reason it is skipped; one that is also a folder of other objects is
found when the replica is written.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from lakeboard.common.object_stores import ObjectLake, key_problem, object_version

class ObjectEntry(NamedTuple):
    rel: str  # the key below the lake's prefix: the file's path in the replica and in every config
    size: int
    version: str  # ETag, version or generation: equal for equal bytes
    skip_reason: str | None = None


def _pages(fs, lake: ObjectLake) -> Iterator[dict]:
    """Info dicts of every object under the prefix, as the store pages them: S3 through its
    paginated listing (s3fs), other stores folder by folder (fsspec's walk)."""
    bucket, _, prefix = lake.root.partition("/")
    if hasattr(fs, "_iterdir") and getattr(fs, "loop", None) is not None:
        from fsspec.asyn import sync

        pages = fs._iterdir(bucket, delimiter="", prefix=prefix + "/" if prefix else "")
        while True:
            try:
                yield sync(fs.loop, pages.__anext__)
            except StopAsyncIteration:
                return
    for _, _, files in fs.walk(lake.root, detail=True):
        yield from files.values()


def iter_objects(fs, lake: ObjectLake) -> Iterator[ObjectEntry]:
    """The lake's objects in listing order (not sorted: a listing is not held whole to sort it)."""
    base = lake.root.rstrip("/") + "/"
    for info in _pages(fs, lake):
        name = str(info.get("name") or info.get("Key") or "")
        if info.get("type", "file") != "file" or name.endswith("/") or not name.startswith(base):
            continue  # folder markers, and anything the store returns outside the prefix
        rel = name[len(base):]
        size = int(info.get("size", info.get("Size", 0)) or 0)
        yield ObjectEntry(rel, size, object_version(info), key_problem(rel))
