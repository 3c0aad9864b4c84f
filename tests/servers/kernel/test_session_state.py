"""A kernel server's state directory is removed only when no server holds it."""

from __future__ import annotations

import os
import time

from lakeboard.servers.kernel.session import _OWNER_LOCK, STATE_PREFIX, _hold_lock, _remove_stale_state

NO_SUCH_PID = 2**22 + 12345  # above the default pid_max: never a live process here


def test_only_abandoned_state_directories_are_removed(tmp_path):
    held = tmp_path / f"{STATE_PREFIX}{NO_SUCH_PID}-held"  # a live server in another PID namespace
    released = tmp_path / f"{STATE_PREFIX}{NO_SUCH_PID}-released"
    old_unlocked = tmp_path / f"{STATE_PREFIX}{NO_SUCH_PID}-old"
    new_unlocked = tmp_path / f"{STATE_PREFIX}{NO_SUCH_PID}-new"  # being made: not locked yet
    mine = tmp_path / f"{STATE_PREFIX}{os.getpid()}-mine"
    for d in (held, released, old_unlocked, new_unlocked, mine):
        (d / "ipc").mkdir(parents=True)
    lock = _hold_lock(held / _OWNER_LOCK)
    os.close(_hold_lock(released / _OWNER_LOCK))
    an_hour_ago = time.time() - 3600
    os.utime(old_unlocked, (an_hour_ago, an_hour_ago))
    try:
        _remove_stale_state(tmp_path)
    finally:
        os.close(lock)
    assert held.is_dir() and new_unlocked.is_dir() and mine.is_dir()
    assert not released.exists() and not old_unlocked.exists()
