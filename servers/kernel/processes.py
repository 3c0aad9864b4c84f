"""Stopping processes in the sandbox: those a cell left behind, or the whole sandbox."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import psutil


class StreamTail:
    """Drains a pipe in a daemon thread, keeping only its last `keep` bytes."""

    def __init__(self, pipe: BinaryIO, keep: int = 4096) -> None:
        self._pipe = pipe
        self._keep = keep
        self._data = bytearray()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, name="kernel-stderr", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        try:
            while chunk := self._pipe.read1(65536):  # type: ignore[attr-defined]
                with self._lock:
                    self._data += chunk
                    del self._data[: -self._keep]
        except (OSError, ValueError):
            pass
        finally:
            self._pipe.close()

    def wait_closed(self, timeout: float) -> None:
        self._thread.join(timeout)

    def text(self) -> str:
        with self._lock:
            return self._data.decode("utf-8", "replace")


def orphaned(parent: Path, prefix: str) -> list[Path]:
    """Entries `<prefix><pid>-...` under `parent` whose owning process is gone."""
    try:
        entries = list(parent.glob(f"{prefix}*-*"))
    except OSError:
        return []
    owners = [e.name[len(prefix) :].split("-", 1)[0] for e in entries]
    return [e for e, owner in zip(entries, owners) if owner.isdigit() and not psutil.pid_exists(int(owner))]


def stop_strays(launched_pid: int | None, sandboxed: bool) -> int:
    """Kill every process under the kernel's tree except the kernel itself; return how many.

    `launched_pid` is the process jupyter_client started: bwrap when sandboxed (whose child
    is the sandbox's init, whose first child is the kernel), else the kernel.
    """
    root = _process(launched_pid)
    return _stop(root, lambda tree: _strays(root, tree, sandboxed)) if root is not None else 0


def stop_sandbox(launched_pid: int | None) -> int:
    """Kill the launched process and everything under it (the kernel included)."""
    root = _process(launched_pid)
    return _stop(root, lambda tree: tree) if root is not None else 0


def _process(pid: int | None) -> psutil.Process | None:
    if pid is None:
        return None
    try:
        return psutil.Process(pid)
    except psutil.Error:
        return None


# Each thread's children list in /proc (CONFIG_PROC_CHILDREN) lets a tree be read from its
# own entries alone.
CHILDREN_LISTS = os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children")


def process_tree(root: psutil.Process) -> list[psutil.Process]:
    """`root` and its descendants ([] once it is gone)."""
    if not CHILDREN_LISTS:  # psutil scans every process of the machine instead
        try:
            return [root, *root.children(recursive=True)]
        except psutil.Error:
            return []
    if not root.is_running():
        return []
    tree = [root]
    for pid in descendant_pids(root.pid):
        try:
            tree.append(psutil.Process(pid))
        except psutil.Error:
            pass
    return tree


def descendant_pids(pid: int) -> list[int]:
    """The descendants of `pid`, from its threads' children lists (where CHILDREN_LISTS)."""
    found: list[int] = []
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            threads = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue  # gone meanwhile
        for thread in threads:
            try:
                with open(f"/proc/{current}/task/{thread}/children") as listing:
                    children = [int(child) for child in listing.read().split()]
            except (OSError, ValueError):
                continue
            found += children
            pending += children
    return found


def _stop(root: psutil.Process, pick: Callable[[list[psutil.Process]], list[psutil.Process]]) -> int:
    """Freeze the tree under `root`, kill the processes `pick` chooses from it, and let the
    others run on; return how many were killed.

    The process groups in the tree are stopped first, each at once (a fork bomb's copies
    share the kernel's group), then every process that left them, so nothing can fork into
    a slot a kill frees, and the tree holds still while `pick` looks at it.
    """
    tree = process_tree(root)
    if not any(_still_running(p) for p in pick(tree)):
        return 0  # the usual case: nothing to stop, nothing to freeze
    groups = _groups(tree[1:])
    for group in groups:
        _signal_group(group, signal.SIGSTOP)
    frozen: dict[int, psutil.Process] = {}
    for _ in range(50):
        fresh = [p for p in process_tree(root) if p.pid not in frozen and _still_running(p)]
        if not fresh:
            break
        for proc in fresh:
            try:
                proc.suspend()
            except psutil.Error:
                pass
            frozen[proc.pid] = proc
    victims = [p for p in pick(list(frozen.values())) if _still_running(p)]
    for proc in victims:
        try:
            proc.kill()
        except psutil.Error:
            pass
    killed = {p.pid for p in victims}
    for proc in frozen.values():
        if proc.pid not in killed:
            try:
                proc.resume()
            except psutil.Error:
                pass
    for group in groups:  # members that left the tree (double-forked, unsandboxed) run on as before
        _signal_group(group, signal.SIGCONT)
    deadline = time.monotonic() + 2.0
    pending = victims
    while pending and time.monotonic() < deadline:
        pending = [p for p in pending if _still_running(p)]
        if pending:
            time.sleep(0.02)
    return len(victims)


def _groups(processes: list[psutil.Process]) -> set[int]:
    """The process groups of `processes`, except the server's own."""
    groups: set[int] = set()
    for proc in processes:
        try:
            groups.add(os.getpgid(proc.pid))
        except OSError:
            pass
    return groups - {os.getpgrp(), 0, 1}


def _signal_group(group: int, signum: int) -> None:
    try:
        os.killpg(group, signum)
    except OSError:
        pass


def _strays(root: psutil.Process, tree: list[psutil.Process], sandboxed: bool) -> list[psutil.Process]:
    children = [p for p in tree if p.pid != root.pid]
    keep: set[int] = set()
    if sandboxed:
        keep.update(p.pid for p in children if _ppid(p) == root.pid)  # the sandbox's init
        # Orphans are re-parented to init too: the kernel is init's oldest child.
        candidates = [p for p in children if _ppid(p) in keep]
        if candidates:
            keep.add(min(candidates, key=_age_key).pid)
    return [p for p in children if p.pid not in keep]


def _age_key(proc: psutil.Process) -> tuple[float, int]:
    try:
        return (proc.create_time(), proc.pid)
    except psutil.Error:
        return (float("inf"), proc.pid)


def _ppid(proc: psutil.Process) -> int | None:
    try:
        return proc.ppid()
    except psutil.Error:
        return None


def _still_running(proc: psutil.Process) -> bool:
    """Dead children stay zombies until the kernel reaps them: count those as stopped."""
    try:
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False
