"""A cgroup that bounds the sandbox's whole process tree: its memory and its process count.

Per-process limits cannot bound a tree (eight children under a 2 GB address-space limit
each may hold 2 GB), and RLIMIT_NPROC does not bind a server running as root. A cgroup does:
- cgroup v2: one child cgroup with memory.max and pids.max, under a parent where those
  controllers are delegated (listed in its cgroup.controllers, and enabled in its
  cgroup.subtree_control or enableable there);
- cgroup v1: a child in the hierarchy holding 'memory' and one in the hierarchy holding 'pids'.
The parent is the server's own cgroup, or the directory given with --cgroup-parent (a
subtree delegated to the server, e.g. by systemd's Delegate=yes). `SandboxCgroup.create`
returns None when it can set neither limit; the server's watchdog then enforces the totals.
"""

from __future__ import annotations

import logging
import os
import re
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from lakeboard.servers.kernel.processes import orphaned

log = logging.getLogger(__name__)

PREFIX = "lakeboard-kernel-"
CONTROLLERS = ("memory", "pids")
MB = 1024 * 1024


@dataclass(frozen=True)
class Hierarchy:
    """Where a controller can be used: a parent directory, and the cgroup version there."""

    parent: Path
    version: int


@dataclass(frozen=True)
class _Mount:
    root: str
    point: Path
    fstype: str
    options: frozenset[str]


def _unescape(field: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), field)


def _cgroup_mounts() -> list[_Mount]:
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return []
    mounts = []
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        mounts.append(_Mount(_unescape(fields[3]), Path(_unescape(fields[4])), tail[0], frozenset(tail[2].split(","))))
    return mounts


def _directory(mount: _Mount, path: str) -> Path | None:
    """The directory of cgroup `path` (as /proc/self/cgroup shows it) under `mount`."""
    root = mount.root.rstrip("/")
    if path != root and not path.startswith(root + "/"):
        return None
    return mount.point / path[len(root):].lstrip("/")


def _v2_controllers(directory: Path) -> set[str]:
    try:
        return set((directory / "cgroup.controllers").read_text().split())
    except OSError:
        return set()


def own_hierarchies() -> dict[str, Hierarchy]:
    """For each controller this process can hand down: its own cgroup directory there."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return {}
    mounts = _cgroup_mounts()
    found: dict[str, Hierarchy] = {}
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, listed, path = parts
        if listed:  # a v1 hierarchy: the controllers it holds are listed
            names = set(listed.split(","))
            for mount in mounts:
                directory = _directory(mount, path)
                if mount.fstype == "cgroup" and names <= mount.options and directory is not None:
                    for name in names.intersection(CONTROLLERS):
                        found.setdefault(name, Hierarchy(directory, 1))
        else:  # the v2 hierarchy
            for mount in mounts:
                directory = _directory(mount, path)
                if mount.fstype == "cgroup2" and directory is not None:
                    for name in _v2_controllers(directory).intersection(CONTROLLERS):
                        found.setdefault(name, Hierarchy(directory, 2))
    return found


def given_hierarchies(parent: Path) -> dict[str, Hierarchy]:
    """The controllers usable under a cgroup directory named by the user."""
    if (parent / "cgroup.controllers").exists():
        return {name: Hierarchy(parent, 2) for name in _v2_controllers(parent).intersection(CONTROLLERS)}
    resolved = parent.resolve()
    for mount in _cgroup_mounts():
        if mount.fstype == "cgroup" and (resolved == mount.point or mount.point in resolved.parents):
            return {name: Hierarchy(parent, 1) for name in mount.options.intersection(CONTROLLERS)}
    return {}


class SandboxCgroup:
    """The sandbox's cgroups (one per hierarchy) and the limits that took in them."""

    def __init__(self, directories: dict[str, Path], versions: dict[Path, int]) -> None:
        self.directories = directories  # controller -> the child cgroup holding its limit
        self._versions = versions

    @property
    def memory(self) -> bool:
        return "memory" in self.directories

    @property
    def pids(self) -> bool:
        return "pids" in self.directories

    @property
    def procs_files(self) -> list[Path]:
        """The files the sandbox's first process writes its pid to (once per hierarchy)."""
        return [path / "cgroup.procs" for path in self._versions]

    @classmethod
    def create(cls, memory_mb: int, max_pids: int, parent: Path | None = None) -> SandboxCgroup | None:
        hierarchies = given_hierarchies(parent) if parent is not None else own_hierarchies()
        wanted: dict[Hierarchy, list[str]] = {}
        for name, hierarchy in hierarchies.items():
            wanted.setdefault(hierarchy, []).append(name)
        limits = {"memory": memory_mb * MB, "pids": max_pids}
        directories: dict[str, Path] = {}
        versions: dict[Path, int] = {}
        for hierarchy, names in wanted.items():
            made = _make_child(hierarchy, {name: limits[name] for name in names})
            if made is not None:
                path, took = made
                versions[path] = hierarchy.version
                directories.update({name: path for name in took})
        if not directories:
            return None
        return cls(directories, versions)

    def memory_kills(self) -> int:
        """How many of the sandbox's processes the system stopped at the memory limit."""
        path = self.directories.get("memory")
        if path is None:
            return 0
        name = "memory.events" if self._versions[path] == 2 else "memory.oom_control"
        return _counter(path / name, "oom_kill")

    def limit_hits(self) -> int:
        """How many times a fork or thread creation was refused (pids.events 'max')."""
        path = self.directories.get("pids")
        return _counter(path / "pids.events", "max") if path is not None else 0

    def remove(self, wait_s: float = 1.0) -> None:
        """Remove the cgroups once the sandbox's last processes are gone (they die just
        after bwrap, through their parent-death signal)."""
        deadline = time.monotonic() + wait_s
        for path in self._versions:
            while True:
                try:
                    path.rmdir()
                    break
                except OSError as exc:
                    if time.monotonic() > deadline or not path.exists():
                        log.debug("cannot remove cgroup %s: %s", path, exc)
                        break
                    time.sleep(0.02)


def _make_child(hierarchy: Hierarchy, limits: dict[str, int]) -> tuple[Path, list[str]] | None:
    """Create a child cgroup under `hierarchy` and set `limits` in it; return it and the
    controllers whose limit took, or None if none did."""
    parent = hierarchy.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK):
        return None
    _remove_stale(parent)
    if hierarchy.version == 2:
        limits = {name: value for name, value in limits.items() if _enable_in_subtree(parent, name)}
        if not limits:
            return None
    path = parent / f"{PREFIX}{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        path.mkdir()
    except OSError as exc:
        log.debug("cannot create a cgroup under %s: %s", parent, exc)
        return None
    took = [name for name, value in limits.items() if _set_limit(path, hierarchy.version, name, value)]
    if not took:
        _rmdir(path)
        return None
    return path, took


def _enable_in_subtree(parent: Path, name: str) -> bool:
    """Whether children of a v2 cgroup get controller `name` (enabling it if allowed)."""
    control = parent / "cgroup.subtree_control"
    try:
        if name in control.read_text().split():
            return True
        control.write_text(f"+{name}\n")
        return True
    except OSError as exc:  # not delegated, or the parent holds processes itself
        log.debug("cannot enable the %s controller under %s: %s", name, parent, exc)
        return False


def _set_limit(path: Path, version: int, name: str, value: int) -> bool:
    if name == "memory":
        files = ("memory.max", "memory.swap.max") if version == 2 else ("memory.limit_in_bytes", "memory.memsw.limit_in_bytes")
        values = (value, 0 if version == 2 else value)
    else:
        files, values = ("pids.max",), (value,)
    try:
        (path / files[0]).write_text(f"{values[0]}\n")
    except OSError as exc:
        log.debug("cannot set %s in %s: %s", files[0], path, exc)
        return False
    for file, extra in zip(files[1:], values[1:]):  # no swap beyond the limit, where the system has swap
        if (path / file).exists():
            try:
                (path / file).write_text(f"{extra}\n")
            except OSError as exc:
                log.debug("cannot set %s in %s: %s", file, path, exc)
    return True


def _counter(path: Path, key: str) -> int:
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


def _rmdir(path: Path) -> None:
    try:
        path.rmdir()
    except OSError as exc:
        log.debug("cannot remove cgroup %s: %s", path, exc)


def _remove_stale(parent: Path) -> None:
    """Remove cgroups left over from servers that died (rmdir fails anyway if one is still in use)."""
    for child in orphaned(parent, PREFIX):
        _rmdir(child)
