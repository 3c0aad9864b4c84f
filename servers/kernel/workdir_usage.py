"""What the kernel's writable folders hold (disk space and entries), and trimming them back.

A walk measures exactly but costs time in proportion to the folders' content, so the
watchdog walks them only now and then; `FileSystemUse` (one statvfs per file system, cost
independent of the content) tells in between whether they may have grown past the limit.

`trim` removes what was written last until the folders are back within their allowance.
It runs after the sandbox has been stopped, so nothing inside it can race the removal; it
still follows no symbolic link, opening each directory relative to its parent, since the
server may run as root.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True)
class DiskUse:
    bytes: int  # allocated blocks, each inode once
    entries: int  # files, folders, links and any other names

    def within(self, allowed: DiskUse) -> bool:
        return self.bytes <= allowed.bytes and self.entries <= allowed.entries

    def __add__(self, other: DiskUse) -> DiskUse:
        return DiskUse(self.bytes + other.bytes, self.entries + other.entries)


@dataclass(frozen=True)
class _Entry:
    parts: tuple[str, ...]  # relative to its top folder
    top: int  # index of the top folder
    info: os.stat_result


def _walk(folders: list[Path], exclude: Iterable[Path]) -> Iterator[_Entry]:
    """Every name under `folders` (not the folders themselves), following no link and
    leaving out the folders in `exclude` (the lake may be nested in the workdir)."""
    skipped: set[tuple[int, int]] = set()
    for path in exclude:
        try:
            info = os.stat(path)
            skipped.add((info.st_dev, info.st_ino))
        except OSError:
            pass
    for top, folder in enumerate(folders):
        root_fd = _open_directory(os.path.realpath(folder), None)  # a link given as the folder is its target
        if root_fd is None:
            continue
        pending: list[tuple[int, tuple[str, ...]]] = [(root_fd, ())]
        try:
            while pending:
                fd, parts = pending.pop()
                try:
                    with os.scandir(fd) as entries:
                        listed = list(entries)
                except OSError:  # removed meanwhile
                    listed = []
                for entry in listed:
                    try:
                        info = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if (info.st_dev, info.st_ino) in skipped:
                        continue
                    yield _Entry((*parts, entry.name), top, info)
                    if stat.S_ISDIR(info.st_mode):
                        inner = _open_directory(entry.name, fd)
                        if inner is not None:
                            pending.append((inner, (*parts, entry.name)))
                os.close(fd)
        finally:
            for fd, _ in pending:
                os.close(fd)


def _open_directory(name: str, parent_fd: int | None) -> int | None:
    """Open a directory without following a link, or None. The kernel may have taken its
    own permissions away (hiding what it holds, or keeping it from removal): they are given
    back to the owner, through the directory's own descriptor so no link can redirect it."""
    try:
        handle = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent_fd)
    except OSError:
        return None
    try:
        info = os.fstat(handle)
        if not stat.S_ISDIR(info.st_mode):
            return None
        itself = f"/proc/self/fd/{handle}"  # the very inode opened above
        if info.st_mode & stat.S_IRWXU != stat.S_IRWXU:
            os.chmod(itself, stat.S_IMODE(info.st_mode) | stat.S_IRWXU)
        return os.open(itself, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    finally:
        os.close(handle)


def measure(folders: list[Path], exclude: Iterable[Path] = ()) -> DiskUse:
    """What the folders hold together."""
    return _use(_walk(folders, exclude))


def _use(entries: Iterable[_Entry]) -> DiskUse:
    seen: set[tuple[int, int]] = set()
    size = count = 0
    for entry in entries:
        count += 1
        key = (entry.info.st_dev, entry.info.st_ino)
        if key not in seen:
            seen.add(key)
            size += entry.info.st_blocks * 512
    return DiskUse(size, count)


def trim(folders: list[Path], allowed: DiskUse, exclude: Iterable[Path] = (), keep: Iterable[Path] = ()) -> int:
    """Remove the newest names under `folders` until they hold no more than `allowed`;
    return how many were removed. Folders go last, and only once empty; `keep` is never removed."""
    listed = list(_walk(folders, exclude))
    kept = {os.path.abspath(p) for p in keep}
    names: dict[tuple[int, int], int] = {}
    for entry in listed:
        key = (entry.info.st_dev, entry.info.st_ino)
        names[key] = names.get(key, 0) + 1
    use = _use(listed)
    candidates = [e for e in listed if os.path.join(folders[e.top], *e.parts) not in kept]
    files = sorted((e for e in candidates if not stat.S_ISDIR(e.info.st_mode)),
                   key=lambda e: (e.info.st_mtime_ns, e.parts), reverse=True)
    # Deepest first, so a folder emptied of its subfolders can go too.
    directories = sorted((e for e in candidates if stat.S_ISDIR(e.info.st_mode)),
                         key=lambda e: (len(e.parts), e.info.st_mtime_ns), reverse=True)
    removed = 0
    for entry in [*files, *directories]:
        if use.within(allowed):
            break
        is_dir = stat.S_ISDIR(entry.info.st_mode)
        if not _remove(folders[entry.top], entry.parts, directory=is_dir):
            continue
        removed += 1
        key = (entry.info.st_dev, entry.info.st_ino)
        names[key] -= 1  # the space goes with an inode's last name
        freed = entry.info.st_blocks * 512 if names[key] == 0 else 0
        use = DiskUse(use.bytes - freed, use.entries - 1)
    return removed


def remove_folder(folder: Path) -> None:
    """Remove `folder` and all it holds, whatever permissions the kernel left on it."""
    trim([folder], DiskUse(0, 0))
    try:
        os.rmdir(folder)
    except FileNotFoundError:
        pass


def _remove(top: Path, parts: tuple[str, ...], directory: bool) -> bool:
    """Remove one name, reaching its directory without following any link on the way."""
    fd = _open_directory(os.path.realpath(top), None)
    if fd is None:
        return False
    try:
        for part in parts[:-1]:
            inner = _open_directory(part, fd)
            if inner is None:
                return False
            os.close(fd)
            fd = inner
        if directory:
            os.rmdir(parts[-1], dir_fd=fd)
        else:
            os.unlink(parts[-1], dir_fd=fd)
        return True
    except OSError:  # gone meanwhile, or a folder not empty
        return False
    finally:
        os.close(fd)


@dataclass(frozen=True)
class FileSystemUse:
    """Space and inodes in use on the file systems holding some folders (other writers included)."""

    used: dict[int, DiskUse]  # by device

    @classmethod
    def of(cls, folders: Iterable[Path]) -> FileSystemUse:
        used: dict[int, DiskUse] = {}
        for folder in folders:
            try:
                device = os.stat(folder).st_dev
                if device in used:
                    continue
                fs = os.statvfs(folder)
            except OSError:
                continue
            used[device] = DiskUse((fs.f_blocks - fs.f_bfree) * fs.f_frsize, max(0, fs.f_files - fs.f_ffree))
        return cls(used)

    def growth_since(self, earlier: FileSystemUse) -> DiskUse:
        """How much more is in use now than `earlier`, at most (never less than nothing)."""
        grown = DiskUse(0, 0)
        for device, now in self.used.items():
            before = earlier.used.get(device, now)
            grown = grown + DiskUse(max(0, now.bytes - before.bytes), max(0, now.entries - before.entries))
        return grown
