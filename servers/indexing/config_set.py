"""A lake's config files replaced as one set: a reader sees the old set or the new one, never a mix.

    configs/NAME/clusters.json   -> current/clusters.json     links made once, never changed
    configs/NAME/servers.json    -> current/servers.json
    configs/NAME/relevance       -> current/relevance         the search index (a folder)
    configs/NAME/lake_stamps.json.gz -> current/lake_stamps.json.gz  what the walk saw (common/lake_stamps.py)
    configs/NAME/current         -> sets/<id>                 the one link each index flips
    configs/NAME/sets/<id>/      the files of one index

Every file of a new set is written into a fresh folder first; renaming a new `current` link
over the old one then switches all of them at once. A kill at any step leaves the previous
set whole (or, on the first index, no set at all). The profile cache, servers.d/, workdir/,
runs/ and logs/ of the config folder are not touched. Servers are started with the stable
paths (configs/NAME/clusters.json), so an entry pasted into a client survives a new index.
A link to a file the new set no longer has (one an earlier version wrote) is removed.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from lakeboard.common.atomic_files import write_bytes_atomic

CURRENT = "current"
SETS = "sets"
_TEMPORARY_LINK = ".{name}.{pid}.link"  # made beside a link, then renamed over it


def publish(config_dir: Path, files: dict[str, str | bytes], folders: dict[str, Callable[[Path], None]] | None = None) -> Path:
    """Write `files` (name -> text, or bytes) as the config set of `config_dir`; returns the set's folder.

    `folders`: name -> a function that writes a folder of that name (given its path) into the set.
    """
    folders = folders or {}
    sets = config_dir / SETS
    sets.mkdir(parents=True, exist_ok=True)
    with _only_writer(sets / ".lock"):
        _drop_stale_links(config_dir, [CURRENT, *files, *folders])
        if not (config_dir / CURRENT).is_symlink():
            _adopt_loose_files(config_dir, list(files))
        new = _write_set(sets, files, folders)
        # A link to current/NAME dangles until `current` exists: invisible, never half a set.
        for name in [*files, *folders]:
            _point(config_dir / name, f"{CURRENT}/{name}")
        _point(config_dir / CURRENT, f"{SETS}/{new.name}")
        _drop_retired_links(config_dir, {*files, *folders})
        _sync_folder(config_dir)
        for old in sets.iterdir():
            if old.name != new.name and old.is_dir():
                shutil.rmtree(old, ignore_errors=True)  # earlier sets, and halves of killed runs
    return new


def _write_set(sets: Path, files: dict[str, str | bytes], folders: dict[str, Callable[[Path], None]] | None = None) -> Path:
    folder = Path(tempfile.mkdtemp(prefix=time.strftime("%Y%m%d-%H%M%S-"), dir=sets))
    for name, content in files.items():
        write_bytes_atomic(folder / name, content.encode("utf-8") if isinstance(content, str) else content)
    for name, write in (folders or {}).items():
        write(folder / name)
    _sync_folder(folder)
    return folder


def _adopt_loose_files(config_dir: Path, names: list[str]) -> None:
    """Config files written one by one (an older layout) become the current set, then links to it.

    Each link then shows the same content as the file it replaces, so a kill between two of
    them shows one consistent set.
    """
    loose = {n: config_dir / n for n in names if (config_dir / n).is_file() and not (config_dir / n).is_symlink()}
    if not loose:
        return
    adopted = _write_set(config_dir / SETS, {n: p.read_text(encoding="utf-8") for n, p in loose.items()})
    _point(config_dir / CURRENT, f"{SETS}/{adopted.name}")
    for name in loose:
        _point(config_dir / name, f"{CURRENT}/{name}")


def _point(link: Path, target: str) -> None:
    """Make `link` a symbolic link to `target`, replacing what was there in one rename."""
    if link.is_symlink() and os.readlink(link) == target:
        return
    tmp = link.with_name(_TEMPORARY_LINK.format(name=link.name, pid=os.getpid()))
    tmp.unlink(missing_ok=True)
    os.symlink(target, tmp)
    try:
        os.replace(tmp, link)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise


def _drop_stale_links(config_dir: Path, names: list[str]) -> None:
    """Remove the temporary links (of these links' names) of an index killed between making one and renaming it.

    Called under the writer's lock: no other index is between those two steps now, so every
    one left is stale, whether its process is dead or its pid has been given to another.
    """
    pattern = re.compile(rf"\.(?:{'|'.join(map(re.escape, names))})\.[0-9]+\.link")
    for entry in config_dir.iterdir():
        if pattern.fullmatch(entry.name) and entry.is_symlink():
            entry.unlink(missing_ok=True)


def _drop_retired_links(config_dir: Path, published: set[str]) -> None:
    """Links into `current/` of names the new set does not have: they would dangle."""
    for entry in config_dir.iterdir():
        if entry.is_symlink() and entry.name not in published and entry.name != CURRENT \
                and os.readlink(entry).startswith(f"{CURRENT}/"):
            entry.unlink(missing_ok=True)


def _sync_folder(folder: Path) -> None:
    """Make renames inside `folder` durable (a power cut keeps the old set or the new one)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def _only_writer(lock_path: Path) -> Iterator[None]:
    """One index of a config folder publishes at a time (it must not prune a set another one writes)."""
    with open(lock_path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
