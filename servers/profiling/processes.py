"""What the profiling processes ask of Linux about themselves and their children, read from /proc
(no psutil import on a worker's start-up path)."""

from __future__ import annotations

import os


def max_fd() -> int:
    """One above the highest file descriptor a process may hold (for closing all the others)."""
    try:
        return os.sysconf("SC_OPEN_MAX")
    except (ValueError, OSError):
        return 1 << 16


def resident_bytes(pid: int | str = "self") -> int:
    """A process's resident memory in bytes; 0 where /proc does not say (not Linux, or it has exited)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0
