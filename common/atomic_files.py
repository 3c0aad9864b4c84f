"""Atomic file writes for the host and every server: a reader never sees half a file, a crash never leaves one."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_text_atomic(path: Path, text: str, *, durable: bool = True, mode: int | None = None) -> None:
    """`text` in UTF-8, written as `write_bytes_atomic` writes."""
    write_bytes_atomic(path, text.encode("utf-8"), durable=durable, mode=mode)


def write_bytes_atomic(path: Path, data: bytes, *, durable: bool = True, mode: int | None = None) -> None:
    """Write to a temporary file beside `path`, then rename it into place.

    The file is owner-only (0600, as mkstemp makes it) unless `mode` says otherwise (a file of
    the user's that we update keeps its own), and a folder made for it is 0700.
    `durable` syncs the data to disk before the rename, so a power cut leaves the old or
    the new file; caches that are rebuilt anyway skip it (one sync per entry is slow).
    """
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        if exc.filename is None:  # a failed write names no file: say which one (a full disk, say)
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        raise
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: Path, data: Any, *, mode: int | None = None) -> None:
    write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n", mode=mode)
