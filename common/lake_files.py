"""A lake's files under one set of rules, for every reader of a lake (the indexer and the search agent).

- `walk_lake` says which entries are data and why the others are skipped: names that are not
  UTF-8, links to folders or out of the lake, pipes, sockets, devices, folders that cannot be
  listed. Hidden files, caches and lock files are left out without a word.
- `open_lake_file` opens one of them as those rules allow at the moment it is opened, not as
  they allowed when the walk saw it: every folder on the way is opened relative to the one
  before without following links, and a link is resolved step by step on those folders, so a
  file or folder replaced by a link out of the lake after the walk is refused, not read.
- `PinnedFiles` gives readers that open by name (pandas, openpyxl, GDAL...) a name that opens
  exactly the descriptor that was checked, so nothing can be swapped in between.
"""

from __future__ import annotations

import atexit
import errno
import os
import shutil
import stat
import tempfile
import threading
from collections import deque
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, NamedTuple

import psutil

from lakeboard.common.bounded_reads import FileRefused, special_kind
from lakeboard.common.file_names import is_utf8

# Tool and cache folders that are never part of the data.
_SKIP_DIRS = frozenset({"__pycache__", "node_modules", "__MACOSX", ".ipynb_checkpoints"})
_SKIP_FILES = frozenset({"CACHEDIR.TAG", "Thumbs.db", "desktop.ini", "Icon\r"})
_MAX_LINK_STEPS = 40  # as Linux allows: more is a loop
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | _CLOEXEC

OUTSIDE = "a link to a file outside the lake"
LINK_TO_FOLDER = "a link to a folder (links to folders are not followed: they can loop or leave the lake)"
LOOP = "a symbolic link loop"
LEAVES = "a symbolic link on its path leads out of the lake"


class LakeEntry(NamedTuple):
    path: str  # as the system names it
    rel: str  # lake-relative POSIX path, shown text
    skip_reason: str | None  # why it is not data, or None


def walk_lake(root: str | Path, under: str = "") -> Iterator[LakeEntry]:
    """The entries of the lake at `root` (only those below its folder `under`), sorted by name.

    Data files come with `skip_reason` None; entries that are not data come with the reason.
    A folder `under` that is reached through a link is one skipped entry, as the walk skips
    links to folders. Raises OSError when the lake (or `under`) itself cannot be listed.
    """
    root = os.fspath(root)
    names = [n for n in under.split("/") if n not in ("", ".")]
    folder = root
    for depth, name in enumerate(names):
        folder = os.path.join(folder, name)
        rel = "/".join(names[: depth + 1])
        if name == ".." or os.path.islink(folder):
            return iter([LakeEntry(folder, rel, LINK_TO_FOLDER if name != ".." else LEAVES)])
    return _walk(folder, os.path.realpath(root), "".join(n + "/" for n in names))


def iter_lake_files(root: str | Path) -> Iterator[Path]:
    """Data files under `root`, in a stable order (`walk_lake` without the skipped entries)."""
    for entry in walk_lake(root):
        if entry.skip_reason is None:
            yield Path(entry.path)


def shown_name(name: str) -> str:
    """A file name as UTF-8 text: bytes that are not UTF-8 become U+FFFD.

    Names come from the system surrogate-escaped; JSON, SQLite, pydantic and MCP refuse
    lone surrogates, so such a name is only ever shown, never stored or served.
    """
    return os.fsencode(name).decode("utf-8", "replace")


def _link_skip_reason(path: str, root_real: str) -> str | None:
    """Why a symbolic link is not followed, or None when it is a file inside the lake."""
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        if e.errno == errno.ELOOP:
            return LOOP
        if e.errno == errno.ENOENT:
            return "a broken symbolic link (its target does not exist)"
        return f"cannot follow the symbolic link: {e.strerror or e}"
    if stat.S_ISDIR(mode):
        return LINK_TO_FOLDER
    kind = special_kind(mode)
    if kind is not None:
        return f"a link to {kind}, not to a regular file"
    target = os.path.realpath(path)
    if target != root_real and not target.startswith(root_real + os.sep):
        return OUTSIDE
    return None


def _walk(folder: str, root_real: str, prefix: str) -> Iterator[LakeEntry]:
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as e:
        if not prefix:
            raise  # the lake itself: the caller says it cannot be read
        yield LakeEntry(folder, prefix, f"cannot list the folder: {e.strerror or e}")
        return
    subdirs = []
    names = {e.name for e in entries}
    for e in entries:
        name = e.name
        if name.startswith((".", "~$")) or name in _SKIP_FILES:
            continue
        rel = prefix + name
        try:
            if not is_utf8(name):
                shown = shown_name(name)
                if shown in names:  # another name shows the same: the escaped bytes tell them apart
                    shown = os.fsencode(name).decode("utf-8", "backslashreplace")
                names.add(shown)
                what = "folder" if e.is_dir(follow_symlinks=False) else "file"
                yield LakeEntry(e.path, prefix + shown, (
                    f"the {what} name is not UTF-8 ({ascii(os.fsencode(name))}), so it cannot be served; "
                    f"rename it in UTF-8 to index it"
                ))
            elif e.is_symlink():
                yield LakeEntry(e.path, rel, _link_skip_reason(e.path, root_real))
            elif e.is_dir(follow_symlinks=False):
                if name in _SKIP_DIRS or os.path.exists(os.path.join(e.path, "CACHEDIR.TAG")):
                    continue
                subdirs.append(e)
            elif e.is_file(follow_symlinks=False):
                yield LakeEntry(e.path, rel, None)
            else:
                kind = special_kind(e.stat(follow_symlinks=False).st_mode)
                yield LakeEntry(e.path, rel, f"{kind}, not a regular file")
        except OSError as err:
            yield LakeEntry(e.path, shown_name(rel), f"cannot tell what it is: {err.strerror or err}")
    for d in subdirs:
        yield from _walk(d.path, root_real, prefix + d.name + "/")


# -- opening -----------------------------------------------------------------------------------


def open_lake_file(root: str | Path, rel: str) -> int:
    """A descriptor of the regular file at the lake-relative path `rel`, opened non-blocking.

    Each name is looked up in the folder opened before it, never following a link by the
    system: a link is read and its target resolved the same way, from the link's folder, and
    must stay in the lake (`..` never climbs above `root`). Raises FileRefused with the walk's
    words for a link that leaves the lake, a loop, a folder or a special file, and OSError
    when a name does not exist or cannot be opened.
    """
    root = os.fspath(root)
    tops = {os.path.realpath(root), os.path.abspath(root)}
    root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    folders = [root_fd]  # the open folders from the root down to where the next name is looked up
    try:
        parts = deque(rel.split("/"))
        steps = 0
        while parts:
            name = parts.popleft()
            if name in ("", "."):
                continue
            if name == "..":
                if len(folders) == 1:
                    raise FileRefused(LEAVES)
                os.close(folders.pop())
                continue
            st = os.stat(name, dir_fd=folders[-1], follow_symlinks=False)
            if stat.S_ISLNK(st.st_mode):
                steps += 1
                if steps > _MAX_LINK_STEPS:
                    raise FileRefused(LOOP)
                target = os.readlink(name, dir_fd=folders[-1])
                if os.path.isabs(target):
                    inside = _inside(os.path.normpath(target), tops)
                    if inside is None:
                        raise FileRefused(LEAVES)
                    while len(folders) > 1:
                        os.close(folders.pop())
                    target = inside
                parts.extendleft(reversed(target.split("/")))
                continue
            if parts:  # a folder on the way
                if not stat.S_ISDIR(st.st_mode):
                    raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), name)
                folders.append(_open_same(name, folders[-1], st, _FOLDER_FLAGS))
                continue
            kind = special_kind(st.st_mode)
            if kind is not None:
                raise FileRefused(f"a link to {kind}, not to a regular file" if steps else f"{kind}, not a regular file")
            return _open_same(name, folders[-1], st, _FILE_FLAGS)
        raise FileRefused("a folder, not a regular file")
    finally:
        for fd in folders:
            os.close(fd)


def _inside(target: str, tops: set[str]) -> str | None:
    """`target` relative to the lake root (under any of its names), or None when it is outside."""
    for top in tops:
        if target == top:
            return "."
        if target.startswith(top.rstrip(os.sep) + os.sep):
            return target[len(top.rstrip(os.sep)) + 1:]
    return None


def _open_same(name: str, dir_fd: int, seen: os.stat_result, flags: int) -> int:
    """Open `name` in `dir_fd` and check it is the entry just looked at (not a link swapped in since)."""
    try:
        fd = os.open(name, flags, dir_fd=dir_fd)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENOTDIR, errno.ENXIO):
            raise FileRefused("it was replaced while it was being opened") from e
        raise
    opened = os.fstat(fd)
    if (opened.st_dev, opened.st_ino) != (seen.st_dev, seen.st_ino):
        os.close(fd)
        raise FileRefused("it was replaced while it was being opened")
    return fd


class PinnedFiles:
    """A private folder of names, each opening one descriptor that was already opened and checked.

    Readers get `folder/<the file's own name>` (extension and stem intact, sidecar files beside
    it), and the name is a link to /proc/<pid>/fd/<n>, which the system resolves to the open
    file itself, not to whatever its lake path names by then. Where the system has no such
    links `add` returns None, and the caller reads the lake path it checked just before.
    The descriptors added are owned here: closed when the block ends.
    """

    _FD_LINKS = Path("/proc/self/fd")

    def __init__(self) -> None:
        self.folder: str | None = None
        self._fds: list[int] = []
        self._links: list[str] = []

    def __enter__(self) -> PinnedFiles:
        return self

    def add(self, name: str, fd: int) -> Path | None:
        self._fds.append(fd)
        if not self._FD_LINKS.is_dir():
            return None
        if self.folder is None:
            self.folder = _FOLDERS.take()
        link = os.path.join(self.folder, name)
        try:
            os.symlink(f"/proc/{os.getpid()}/fd/{fd}", link)
        except FileNotFoundError:
            if self._links:  # the folder went away under links already handed out
                raise
            self.folder = _FOLDERS.take(fresh=True)  # removed meanwhile (a /tmp cleaner): make another
            link = os.path.join(self.folder, name)
            os.symlink(f"/proc/{os.getpid()}/fd/{fd}", link)
        self._links.append(link)
        return Path(link)

    def __exit__(self, *exc: object) -> None:
        for link in self._links:
            try:
                os.unlink(link)
            except OSError:
                pass
        if self.folder is not None:
            _FOLDERS.give_back(self.folder)
        for fd in self._fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self._links.clear()
        self._fds.clear()


class _PinFolders:
    """This process's empty pin folders, reused: making and removing a folder costs milliseconds on
    some disks (3 ms on a journaled /tmp), a link and its removal tens of microseconds."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owner = 0  # the process the folders belong to (a forked child makes its own)
        self._root: str | None = None
        self._free: list[str] = []
        self._made = 0

    def take(self, *, fresh: bool = False) -> str:
        with self._lock:
            if self._owner != os.getpid() or fresh:
                self._owner, self._root, self._free, self._made = os.getpid(), None, [], 0
            if self._free:
                return self._free.pop()
            if self._root is None:
                self._root = tempfile.mkdtemp(prefix=f"{_PIN_PREFIX}{os.getpid()}-")  # owner-only
                atexit.register(self.remove, os.getpid())
                _remove_stale_pin_folders(os.path.dirname(self._root))
            self._made += 1
            folder = os.path.join(self._root, str(self._made))
            os.mkdir(folder, 0o700)
            return folder

    def give_back(self, folder: str) -> None:
        with self._lock:
            if self._owner == os.getpid():
                self._free.append(folder)

    def remove(self, owner: int | None = None) -> None:
        """Remove this process's pin folders (a process that ends with os._exit calls it itself)."""
        with self._lock:
            if self._root is not None and (owner or os.getpid()) == self._owner == os.getpid():
                shutil.rmtree(self._root, ignore_errors=True)
                self._root, self._free, self._made = None, [], 0


_FOLDERS = _PinFolders()
_PIN_PREFIX = "lakeboard-pinned-"


def _remove_stale_pin_folders(parent: str) -> None:
    """Remove this user's pin folders of processes that are gone (a worker killed mid-file leaves one)."""
    try:
        names = [n for n in os.listdir(parent) if n.startswith(_PIN_PREFIX)]
    except OSError:
        return
    for name in names:
        pid = name[len(_PIN_PREFIX):].partition("-")[0]
        path = os.path.join(parent, name)
        try:
            st = os.lstat(path)
            if not pid.isdigit() or st.st_uid != os.geteuid() or not stat.S_ISDIR(st.st_mode):
                continue
        except OSError:
            continue
        if not psutil.pid_exists(int(pid)):
            shutil.rmtree(path, ignore_errors=True)


@contextmanager
def scratch_folder() -> Iterator[Path]:
    """An empty folder of this process's own, emptied when the block ends. A process killed inside
    the block leaves it to the next process's clean-up of the folders of processes that are gone,
    where a folder of its own in /tmp would stay."""
    folder = _FOLDERS.take()
    try:
        yield Path(folder)
    finally:
        try:
            empty_folder(Path(folder))
        except FileNotFoundError:  # removed meanwhile (a /tmp cleaner): not given back
            pass
        else:
            _FOLDERS.give_back(folder)


def empty_folder(folder: Path) -> None:
    """Remove what `folder` holds, keeping the folder (a link in it is removed, never what it points to)."""
    for child in folder.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink()


def remove_pin_folders() -> None:
    """Remove the folders `PinnedFiles` made in this process; for processes that leave with os._exit."""
    _FOLDERS.remove()
