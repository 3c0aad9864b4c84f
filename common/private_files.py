"""Everything Lakeboard writes is its owner's alone.

Profiles hold samples of every lake file, traces hold questions and answers, servers files
may hold tokens. Each entry point (the CLI, the indexer, the gateway, the servers) narrows
the file mode creation mask, so every file and folder it or any process it starts creates
(SQLite's -wal and -shm files, logs, traces, caches) is owner-only: files 0600, folders 0700.
"""

from __future__ import annotations

import os
from pathlib import Path

OWNER_ONLY_MASK = 0o077


def keep_new_files_private() -> None:
    """From now on, this process and its children create files 0600 and folders 0700 (a stricter mask stays)."""
    os.umask(os.umask(OWNER_ONLY_MASK) | OWNER_ONLY_MASK)


def private_folders(root: Path, rel: str) -> Path:
    """The folders of `root` on the way to the file `rel` (a lake-relative path), each made owner-only
    whatever the process's mask (`mkdir(parents=True)` gives the mask's mode to all but the last);
    returns the file's folder."""
    folder = root
    for part in rel.split("/")[:-1]:
        folder = folder / part
        folder.mkdir(mode=0o700, exist_ok=True)
    return folder
