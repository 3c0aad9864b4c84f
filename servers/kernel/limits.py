"""Which mechanism enforces each of the sandbox's limits over its whole process tree.

- memory: a cgroup's memory limit, else the server's watchdog;
- processes: a cgroup's pids limit, else RLIMIT_NPROC (it binds a server that is not root),
  else the watchdog;
- CPU time and the workdir's size: the watchdog.
The watchdog needs to read the sandbox's processes in /proc (with psutil). Where it cannot
and no cgroup helps either, a limit is not enforced: the server refuses to start unless
--unsafe-no-limits is given, and then every result says so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from typing import Literal

import psutil

from lakeboard.servers.kernel.cgroup import SandboxCgroup
from lakeboard.servers.kernel.config import KernelConfig

Mechanism = Literal["cgroup", "rlimit", "watchdog", "none"]
LIMIT_NAMES = {"memory": "memory", "processes": "process-count", "cpu": "CPU-time", "workdir": "workdir-size"}


@dataclass(frozen=True)
class Enforcement:
    memory: Mechanism
    processes: Mechanism
    cpu: Mechanism
    workdir: Mechanism

    def by_watchdog(self, limit: str) -> bool:
        return getattr(self, limit) == "watchdog"

    def unenforced(self) -> list[str]:
        """Names of the limits nothing enforces, e.g. ['CPU-time', 'workdir-size']."""
        return [LIMIT_NAMES[f.name] for f in fields(self) if getattr(self, f.name) == "none"]


def plan(cgroup: SandboxCgroup | None, watchdog_works: bool, sandboxed: bool) -> Enforcement:
    fallback: Mechanism = "watchdog" if watchdog_works else "none"
    # RLIMIT_NPROC never binds root; unsafe mode does not set it (no user namespace).
    rlimit = sandboxed and os.geteuid() != 0
    return Enforcement(
        memory="cgroup" if cgroup is not None and cgroup.memory else fallback,
        processes="cgroup" if cgroup is not None and cgroup.pids else "rlimit" if rlimit else fallback,
        cpu=fallback,
        workdir=fallback,
    )


def watchdog_problem() -> str | None:
    """Why the server cannot measure processes with psutil here, or None if it can."""
    try:
        me = psutil.Process()
        with me.oneshot():
            me.memory_info()
            me.cpu_times()
            me.num_threads()
        me.children(recursive=True)
    except (psutil.Error, OSError) as exc:
        return f"the server cannot read processes' memory and CPU use in /proc ({exc or type(exc).__name__})"
    return None


def unenforced_sentence(enforcement: Enforcement, problem: str | None) -> str | None:
    """One sentence naming the limits nothing enforces, and why; None when all are enforced."""
    missing = enforcement.unenforced()
    if not missing:
        return None
    names = missing[0] if len(missing) == 1 else ", ".join(missing[:-1]) + " and " + missing[-1]
    plural = "limits" if len(missing) > 1 else "limit"
    reason = f": no cgroup could be created, and {problem}" if problem else ""
    return f"The sandbox's {names} {plural} cannot be enforced for its whole process tree here{reason}."


def limits_problem(config: KernelConfig) -> str | None:
    """Checked before the server starts: a sentence naming the limits that cannot be
    enforced, or None when every one can."""
    problem = watchdog_problem()
    if problem is None:
        return None
    cgroup = SandboxCgroup.create(config.memory_mb, config.max_procs, config.cgroup_parent) if config.cgroups else None
    try:
        return unenforced_sentence(plan(cgroup, False, not config.unsafe_no_sandbox), problem)
    finally:
        if cgroup is not None:
            cgroup.remove()
