"""Writing a file inside the workdir on the server's side, never anywhere else.

The server may run as root, and the kernel's code can change the workdir while the server
writes, so a path is first checked as text (no '..' out of the workdir, nothing into the
lake), then walked one directory at a time without following symbolic links: a link
anywhere on the way, or at the target's name, is refused. The file is written beside its
target and renamed into place inside the directory already opened, so a link planted
after the checks cannot redirect the write.
"""

from __future__ import annotations

import errno
import os
import stat
import uuid
from pathlib import Path, PurePath

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class WorkdirPathError(ValueError):
    """A path the server will not write to; the message says why in one sentence."""


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def path_in_workdir(path: str, workdir: Path, lake: Path) -> PurePath:
    """`path` (relative to the workdir, or absolute) as a path relative to the workdir.

    Raises WorkdirPathError when it leads outside the workdir or into the lake.
    """
    if "\x00" in path:
        raise WorkdirPathError("The path contains a NUL character; give a plain file name.")
    root = Path(os.path.abspath(workdir))
    real_root = root.resolve()
    given = Path(path)
    target = Path(os.path.normpath(given if given.is_absolute() else root / given))
    lake_paths = (Path(os.path.abspath(lake)), lake.resolve())
    if any(_inside(target, folder) for folder in lake_paths):
        raise WorkdirPathError(f"Cannot write into the lake ({lake_paths[1]}): it is read-only. Save under the workdir instead.")
    base = next((folder for folder in (root, real_root) if _inside(target, folder) and target != folder), None)
    if base is None:
        raise WorkdirPathError(
            f"The path {path!r} is outside the workdir {root}; give a path inside it, such as 'session.ipynb'."
        )
    relative = target.relative_to(base)
    if _inside(real_root / relative, lake_paths[1]):  # the lake may be nested in the workdir
        raise WorkdirPathError(f"Cannot write into the lake ({lake_paths[1]}): it is read-only. Save under the workdir instead.")
    return relative


def write_text_in_workdir(workdir: Path, relative: PurePath, text: str) -> Path:
    """Write `text` atomically at `workdir / relative`, following no symbolic link.

    Returns the absolute path written. Raises WorkdirPathError for a link on the way or at
    the name, a missing directory, or a directory at the name.
    """
    root = Path(os.path.abspath(workdir)).resolve()
    dir_fd = os.open(root, DIR_FLAGS)
    try:
        walked = root
        for part in relative.parts[:-1]:
            walked = walked / part
            sub_fd = _open_subdirectory(dir_fd, part, walked)
            os.close(dir_fd)
            dir_fd = sub_fd
        name = relative.name
        _refuse_link_or_directory(dir_fd, name, walked / name)
        _write_and_rename(dir_fd, name, text)
    finally:
        os.close(dir_fd)
    return root / relative


def _open_subdirectory(dir_fd: int, part: str, shown: Path) -> int:
    """Open the directory `part` inside `dir_fd`, refusing links and other kinds of file."""
    try:
        return os.open(part, DIR_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        raise WorkdirPathError(f"The directory {shown} does not exist.") from None
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        if _is_link(dir_fd, part):
            raise WorkdirPathError(
                f"The path goes through the symbolic link {shown}; save to a real directory inside the workdir."
            ) from None
        raise WorkdirPathError(f"{shown} is not a directory.") from None


def _is_link(dir_fd: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _refuse_link_or_directory(dir_fd: int, name: str, shown: Path) -> None:
    try:
        mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISLNK(mode):
        raise WorkdirPathError(f"{shown} is a symbolic link; save under another name.")
    if stat.S_ISDIR(mode):
        raise WorkdirPathError(f"{shown} is a directory; give a file name.")


def _write_and_rename(dir_fd: int, name: str, text: str) -> None:
    """Write a temporary file beside `name`, sync it, then rename it over `name`.

    rename() replaces whatever is at `name` (even a link planted meanwhile) and never
    follows it.
    """
    temporary = f".lakeboard-{uuid.uuid4().hex[:12]}.tmp"  # short: `name` may be near the length limit
    fd = os.open(temporary, FILE_FLAGS, 0o644, dir_fd=dir_fd)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.rename(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(temporary, dir_fd=dir_fd)
        except OSError:
            pass
        raise
    os.fsync(dir_fd)

