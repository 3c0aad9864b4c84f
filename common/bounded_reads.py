"""Reading files that may be hostile: regular files only, opened without blocking, read up to a limit.

A named pipe blocks an `open` (and then a read) for as long as nobody writes to it, a device
such as /dev/zero never ends, and a file's size says nothing about how much a read returns
while the file grows. So a file is opened non-blocking, its kind is checked on the opened
descriptor, and reading stops one byte past the limit, whatever the size said.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1 << 20


class FileRefused(Exception):
    """A file that is not read, with the reason as a sentence fragment ("a named pipe (FIFO), ...")."""


def special_kind(mode: int) -> str | None:
    """What a non-regular entry is (a named pipe, a socket, a device, a folder), or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "something other than a regular file"


def open_regular(path: str | Path, *, dir_fd: int | None = None, follow_links: bool = True) -> int:
    """A descriptor of the regular file at `path` (relative to `dir_fd` when given).

    The entry is looked at before it is opened (opening a device can act on the device), and
    the opened descriptor is checked to be that same regular file. Raises FileRefused for
    anything else, and OSError when it cannot be opened.
    """
    before = os.stat(path, dir_fd=dir_fd, follow_symlinks=follow_links)
    if stat.S_ISLNK(before.st_mode):
        raise FileRefused("a symbolic link, which is not followed here")
    kind = special_kind(before.st_mode)
    if kind is not None:
        raise FileRefused(f"{kind}, not a regular file")
    flags = _READ_FLAGS | (0 if follow_links else os.O_NOFOLLOW)
    fd = os.open(path, flags, dir_fd=dir_fd)
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode) or (opened.st_dev, opened.st_ino) != (before.st_dev, before.st_ino):
            raise FileRefused("it was replaced while it was being opened")
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_at_most(fd: int, limit: int) -> bytes:
    """The whole content of `fd` from its current offset; FileRefused once more than `limit` bytes come."""
    chunks: list[bytes] = []
    total = 0
    while total <= limit:
        chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
    raise FileRefused(f"larger than the {limit:,} byte limit")


def read_regular_file(path: str | Path, limit: int, *, follow_links: bool = True) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them (FileRefused beyond, or for any other kind)."""
    fd = open_regular(path, follow_links=follow_links)
    try:
        if os.fstat(fd).st_size > limit:  # a cheap early no; the read still counts what actually comes
            raise FileRefused(f"larger than the {limit:,} byte limit")
        return read_at_most(fd, limit)
    finally:
        os.close(fd)
