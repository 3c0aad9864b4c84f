"""The server's watchdog over the sandbox's totals: memory, processes, CPU time, workdir size.

Per-process limits (servers/kernel/launcher.py) cannot bound the sum over a process tree,
and a cgroup (servers/kernel/cgroup.py) cannot always be created. The watchdog measures the
tree from the server, in a thread, and acts on each limit the enforcement plan gives it:
- memory (resident memory summed over the tree, shared pages split between their users)
  and processes (every thread of every process): the processes the cell started are
  stopped; if the kernel alone is still over, the whole sandbox is stopped;
- CPU time (summed over the tree, finished children included): the whole sandbox is
  stopped, and the kernel restarts;
- the writable directories' disk space and number of entries, at all times (a thread or
  a process a cell started may write long after the cell returned): past the limit, or
  past what they held when the session started if that is more, the whole sandbox is
  stopped (nothing less stops every writer), the newest entries are removed until they
  are back under it, and the kernel restarts. A statvfs of their file system, costing
  the same whatever they hold, tells between two walks whether they may have grown.
It also reports the processes a cgroup's memory limit killed. Each event is a `Breach`;
the session interrupts the cell and turns it into the cell's error.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import psutil

from lakeboard.servers.kernel.cgroup import SandboxCgroup
from lakeboard.servers.kernel.config import KernelConfig
from lakeboard.servers.kernel.limits import Enforcement
from lakeboard.servers.kernel.processes import process_tree, stop_sandbox, stop_strays
from lakeboard.servers.kernel.workdir_usage import DiskUse, FileSystemUse, measure, trim

log = logging.getLogger(__name__)

MB = 1024 * 1024
CELL_TICK_S = 0.1  # between measurements while a cell runs
IDLE_TICK_S = 0.5  # between cells only the kernel's own threads can run
DISK_TICK_S = 2.0  # between walks of the writable folders when nothing suggests they grew
COST_SHARE = 20  # walking the workdir takes at most 1/COST_SHARE of the time: a big one is walked less often
SUSPECT_SHARE = 2  # ... or 1/SUSPECT_SHARE when their file system grew past what they may hold

LimitName = Literal["memory", "processes", "cpu", "workdir"]


@dataclass(frozen=True)
class Breach:
    """A limit the sandbox passed, and what the watchdog did about it."""

    limit: LimitName
    reason: str  # a clause: "the sandbox's processes together used 412 MB, past the memory limit of 256 MB"
    stopped: int = 0  # processes stopped for it
    sandbox_stopped: bool = False  # the kernel too: it restarts, its variables are lost


@dataclass(frozen=True)
class TreeUsage:
    processes: list[psutil.Process]  # zombies left out: they hold nothing but their pid
    resident_bytes: int
    tasks: int  # threads of all processes
    cpu_s: float

    def strays(self, sandboxed: bool) -> int:
        """Processes besides the kernel (and, sandboxed, bwrap and the sandbox's init)."""
        return max(0, len(self.processes) - (3 if sandboxed else 1))


def tree_processes(launched_pid: int) -> list[psutil.Process] | None:
    """The launched process and its descendants, or None if it is gone."""
    try:
        return process_tree(psutil.Process(launched_pid)) or None
    except psutil.Error:
        return None


def measure_tree(everyone: list[psutil.Process]) -> TreeUsage:
    """What the processes use together."""
    live: list[psutil.Process] = []
    resident = tasks = 0
    cpu = 0.0
    for proc in everyone:
        try:
            with proc.oneshot():
                times = proc.cpu_times()  # children_*: children it has collected, whose rows are gone
                cpu += times.user + times.system + times.children_user + times.children_system
                if proc.status() == psutil.STATUS_ZOMBIE:
                    continue
                resident += proc.memory_info().rss
                tasks += proc.num_threads()
        except psutil.Error:
            continue
        live.append(proc)
    return TreeUsage(live, resident, tasks, cpu)


def proportional_bytes(processes: list[psutil.Process]) -> int:
    """Memory the processes hold, each shared page split between its users (forked children
    share most pages with the kernel; counting them in full would count them many times)."""
    total = 0
    for proc in processes:
        try:
            total += proc.memory_full_info().pss
        except psutil.AccessDenied:
            try:
                total += proc.memory_info().rss
            except psutil.Error:
                pass
        except psutil.Error:
            pass
    return total


class Watchdog:
    def __init__(
        self, config: KernelConfig, enforcement: Enforcement, cgroup: SandboxCgroup | None,
        sandboxed: bool, writable: list[Path], keep: tuple[Path, ...] = (),
    ) -> None:
        self.config = config
        self.enforcement = enforcement
        self.cgroup = cgroup
        self.sandboxed = sandboxed
        self.writable = writable  # directories the kernel can write on the host's disk
        self.keep = keep  # files in them the server needs (the connection file): never removed
        self._lock = threading.Lock()  # guards the fields the session reads
        self._checking = threading.Lock()  # held while measuring and acting
        self._wake = threading.Event()
        self._closing = False
        self._thread: threading.Thread | None = None
        self._pid: int | None = None
        self._kills_seen = 0
        self._stop_reason: str | None = None  # why the watchdog stopped the current sandbox
        self._breaches: list[Breach] = []
        self._in_cell = False
        limit = DiskUse(config.workdir_mb * MB, config.workdir_files)
        self._disk_limit = limit
        self._disk_allowed: DiskUse | None = None  # set by measure_baseline()
        self._disk_walked = DiskUse(0, 0)
        self._fs_at_walk = FileSystemUse({})
        self._walk_ended = 0.0
        self._walk_s = 0.0

    # -- the session's side ---------------------------------------------------------------
    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="kernel-watchdog", daemon=True)
            self._thread.start()

    def close(self) -> None:
        self._closing = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)

    def watch(self, launched_pid: int | None) -> None:
        """Watch a newly launched sandbox (None while it is being replaced)."""
        with self._lock:
            self._pid = launched_pid
            self._stop_reason = None
            self._kills_seen = self.cgroup.memory_kills() if self.cgroup is not None else 0
        self._wake.set()

    def measure_baseline(self) -> None:
        """Blocking: what the writable folders hold before the first kernel starts. They may
        keep that much if it is over the limit (the session's own files), never more."""
        with self._checking:
            if not self.enforcement.by_watchdog("workdir"):
                return
            use = self._walk()
            self._disk_allowed = DiskUse(max(self._disk_limit.bytes, use.bytes),
                                         max(self._disk_limit.entries, use.entries))

    def check_now(self) -> None:
        """Blocking: look at the sandbox now, before a cell (a limit passed since the last
        look, by a thread the last cell left, restarts the kernel before this cell runs)."""
        with self._checking:
            pid = self._pid
            if pid is not None:
                self._check(pid, disk=True)

    def begin_cell(self) -> None:
        self._in_cell = True
        self._wake.set()

    def end_cell(self) -> None:
        """Blocking: a last look at the sandbox for the cell that just ended (a limit it
        passed in its last moments belongs to its result), after any check under way."""
        with self._checking:
            self._in_cell = False
            pid = self._pid
            if pid is not None:
                self._check(pid, disk=True)

    def take(self) -> list[Breach]:
        """The breaches since the last call."""
        with self._lock:
            taken, self._breaches = self._breaches, []
        return taken

    def settle(self) -> None:
        """Blocking: return once a check under way (which may be cleaning up after a sandbox
        it stopped) is done."""
        with self._checking:
            pass

    def stop_reason(self) -> str | None:
        """Blocking: why the current sandbox died, if a limit killed it (the watchdog, or a
        cgroup's memory limit reached by the kernel itself). Waits for a check under way,
        which may be stopping it and cleaning up after it."""
        with self._checking, self._lock:
            if self._stop_reason is not None:
                return self._stop_reason
            kills_seen = self._kills_seen
        if self.cgroup is not None and self.cgroup.memory_kills() > kills_seen:
            return self._memory_reason(None)
        return None

    # -- the watchdog's thread ------------------------------------------------------------
    def _run(self) -> None:
        while not self._closing:
            tick = CELL_TICK_S if self._in_cell else IDLE_TICK_S
            self._wake.wait(tick)
            self._wake.clear()
            pid = self._pid
            if self._closing or pid is None:
                continue
            with self._checking:
                self._check(pid, disk=True)

    def _check(self, pid: int, disk: bool) -> None:
        """Measure and act; the caller holds `_checking`."""
        try:
            self._check_tree(pid)
            if disk:
                self._check_disk(pid)
        except Exception:  # noqa: BLE001 - the watchdog must outlive any one measurement
            log.exception("the watchdog could not measure the sandbox")

    def _check_tree(self, pid: int) -> None:
        everyone = tree_processes(pid)
        if everyone is None:
            return
        usage = measure_tree(everyone)
        if self.enforcement.by_watchdog("cpu") and usage.cpu_s > self.config.cpu_seconds:
            self._stop_sandbox(pid, Breach(
                "cpu", f"the sandbox's processes together used up their CPU-time budget of {self.config.cpu_seconds} s",
                sandbox_stopped=True,
            ))
            return
        over = self._over(usage)
        if over and not usage.strays(self.sandboxed):
            self._stop_sandbox(pid, self._kernel_alone(over))  # nothing else holds it
            return
        if self.cgroup is not None and self.cgroup.memory:
            kills = self.cgroup.memory_kills()
            if kills > self._kills_seen:
                over.setdefault("memory", self._memory_reason(kills - self._kills_seen))
                self._kills_seen = kills
        if not over:
            return
        # The cell's other processes go; a fork bomb's copies come back until the session's
        # interrupt lands, and are stopped again on the next tick.
        stopped = stop_strays(pid, self.sandboxed)
        for limit, reason in over.items():
            self._record(pid, Breach(limit, reason, stopped))
            stopped = 0  # counted once

    def _kernel_alone(self, over: dict[LimitName, str]) -> Breach:
        limit, reason = next(iter(over.items()))
        return Breach(limit, f"{reason}, in the kernel's own process", sandbox_stopped=True)

    def _over(self, usage: TreeUsage) -> dict[LimitName, str]:
        """The limits the watchdog enforces that `usage` passes, with the reason for each."""
        over: dict[LimitName, str] = {}
        limit_bytes = self.config.memory_mb * MB
        if self.enforcement.by_watchdog("memory") and usage.resident_bytes > limit_bytes:
            used = proportional_bytes(usage.processes)  # costlier, and never more than resident
            if used > limit_bytes:
                over["memory"] = (f"the sandbox's processes together used {used // MB} MB, past the memory limit "
                                  f"of {self.config.memory_mb} MB")
        if self.enforcement.by_watchdog("processes") and usage.tasks > self.config.max_procs:
            over["processes"] = (f"the sandbox held {usage.tasks} processes and threads, past its limit "
                                 f"of {self.config.max_procs}")
        return over

    def _memory_reason(self, killed: int | None) -> str:
        """A cgroup's memory limit was reached: the system stopped `killed` processes."""
        stopped = f" ({killed} stopped by the system)" if killed else ""
        return f"the sandbox's processes together reached the memory limit of {self.config.memory_mb} MB{stopped}"

    def _check_disk(self, pid: int) -> None:
        """Walk the writable folders when it is time, or when their file system grew past
        what they may hold; past it, stop the sandbox and remove the newest entries."""
        allowed = self._disk_allowed
        if allowed is None:
            return
        now = time.monotonic()
        probe = FileSystemUse.of(self.writable)
        estimate = self._disk_walked + probe.growth_since(self._fs_at_walk)
        due = now >= self._walk_ended + max(DISK_TICK_S, COST_SHARE * self._walk_s)
        suspect = not estimate.within(allowed) and now >= self._walk_ended + SUSPECT_SHARE * self._walk_s
        if not (due or suspect):
            return
        use = self._walk(probe)
        if use.within(allowed):
            # What the user deletes cannot be written again past the limit.
            self._disk_allowed = DiskUse(max(self._disk_limit.bytes, min(allowed.bytes, use.bytes)),
                                         max(self._disk_limit.entries, min(allowed.entries, use.entries)))
            return
        reason = self._disk_reason(use, allowed)
        self._stop_sandbox(pid, Breach("workdir", reason, sandbox_stopped=True))
        removed = trim(self.writable, allowed, exclude=(self.config.lake,), keep=self.keep)
        after = self._walk()
        if removed:
            with self._lock:
                if self._pid == pid:
                    self._stop_reason = (f"{reason}; the {removed} newest files and folders were removed "
                                         "to bring it back under")
        if not after.within(allowed):
            log.warning("the workdir is still over its limit after removing %d entries: %s", removed, after)

    def _walk(self, probe: FileSystemUse | None = None) -> DiskUse:
        started = time.monotonic()
        probe = probe if probe is not None else FileSystemUse.of(self.writable)
        use = measure(self.writable, exclude=(self.config.lake,))
        self._disk_walked, self._fs_at_walk = use, probe
        self._walk_ended = time.monotonic()
        self._walk_s = self._walk_ended - started
        return use

    def _disk_reason(self, use: DiskUse, allowed: DiskUse) -> str:
        over = []
        if use.bytes > allowed.bytes:
            over.append(f"{self.config.workdir_mb} MB (it reached {use.bytes / MB:.0f} MB)")
        if use.entries > allowed.entries:
            over.append(f"{self.config.workdir_files} files and folders (it held {use.entries})")
        return f"its workdir passed its limit of {' and '.join(over)}"

    def _stop_sandbox(self, pid: int, breach: Breach) -> None:
        # Recorded first: the session may see the kernel die before this thread returns.
        self._record(pid, breach)
        with self._lock:
            if self._pid == pid:
                self._stop_reason = breach.reason
        stop_sandbox(pid)

    def _record(self, pid: int, breach: Breach) -> None:
        with self._lock:
            if self._pid == pid:  # not a sandbox replaced meanwhile
                self._breaches.append(breach)
        log.warning("sandbox limit: %s", breach.reason)
