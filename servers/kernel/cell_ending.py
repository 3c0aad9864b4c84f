"""How a cell ended, and which error its result reports for that ending."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from lakeboard.schemas.execution import ExecutionError
from lakeboard.servers.kernel.watchdog import Breach

# Why the server interrupted a running cell: its timeout, an output flood, or a limit of the
# sandbox's whole process tree (a `Breach`).
Interruption = Literal["timeout", "flood", "limit"]

BREACH_ERRORS = {
    "memory": "MemoryLimitExceeded",
    "processes": "ProcessLimitExceeded",
    "cpu": "CPUTimeLimitExceeded",
    "workdir": "WorkdirLimitExceeded",
}
BREACH_ADVICE = {
    "memory": "use less memory at once, or start fewer processes",
    "processes": "start fewer processes or threads",
    "cpu": "use less CPU time",
    "workdir": "delete files you no longer need from the workdir",
}


@dataclass(frozen=True)
class CellEnding:
    """How a cell ended, as the server saw it.

    Either the kernel went idle (the cell completed, raised, or took an interrupt the server
    sent), or the kernel has to be restarted under the cell: its process died, a restart was
    requested, or it ignored the interrupt.
    """

    finished: bool
    interrupted_for: Interruption | None = None
    died: str | None = None  # why the kernel process stopped
    restart_requested: bool = False

    @property
    def timed_out(self) -> bool:
        return self.interrupted_for == "timeout"

    def restart_reason(self) -> str:
        """Why the kernel is restarted under this cell (for the notebook's note)."""
        if self.died is not None:
            return f"it died: {self.died}"
        if self.restart_requested:
            return "restart requested during a cell"
        return "a cell ignored the interrupt"


def cell_error(
    ending: CellEnding, reported: ExecutionError | None, timeout: float, printed_chars: int,
    breaches: Sequence[Breach] = (),
) -> tuple[ExecutionError | None, list[str]]:
    """The error the cell's result reports, and notes for its warning.

    `reported` is the error the kernel published, if any; the server's own reasons for
    ending a cell (a restart, a limit of the sandbox, its timeout, an output flood) take its
    place. A restart's cause is in `ending.died` already, a limit's in `breaches`.
    """
    limits = _one_per_limit(b for b in breaches if not b.sandbox_stopped)
    traceback = reported.traceback if reported is not None else []
    if limits and ending.died is None and not ending.restart_requested:  # a limit ended the cell
        return _limit_error(limits[0], ending.finished, traceback), [f"Also, {_clause(b)}." for b in limits[1:]]
    if not ending.finished:
        if ending.died is not None and any(b.limit == "workdir" and b.sandbox_stopped for b in breaches):
            # Named for its cause: the next cell runs in a fresh kernel, and in a trimmed workdir.
            return ExecutionError(
                name=BREACH_ERRORS["workdir"],
                value=f"The kernel was restarted because {ending.died}; all variables are lost.",
            ), [f"Also, {_clause(b)}." for b in limits]
        return _restart_error(ending, timeout), [f"Also, {_clause(b)}." for b in limits]
    if ending.interrupted_for == "timeout":
        return ExecutionError(
            name="TimeoutError",
            value=f"The cell ran past its {timeout:g} s wall-clock limit and was interrupted (variables are kept).",
            traceback=traceback,
        ), []
    if ending.interrupted_for == "flood" and reported is not None and reported.name == "KeyboardInterrupt":
        note = (
            f"The cell was interrupted after printing more than {printed_chars:,} characters; "
            "print less, or write large results to a file in the workdir."
        )
        return ExecutionError(
            name="OutputLimitExceeded",
            value="The cell was interrupted because it printed far more than the output limit (variables are kept).",
            traceback=traceback,
        ), [note]
    return reported, []


def _limit_error(breach: Breach, finished: bool, traceback: list[str]) -> ExecutionError:
    if finished:
        value = f"{_clause(breach)}: {BREACH_ADVICE[breach.limit]} (variables are kept)."
    else:
        value = f"{_clause(breach)}, and the cell ignored the interrupt, so the kernel was restarted; all variables are lost."
    return ExecutionError(name=BREACH_ERRORS[breach.limit], value=value[:1].upper() + value[1:], traceback=traceback)


def _restart_error(ending: CellEnding, timeout: float) -> ExecutionError:
    if ending.died is not None:
        return ExecutionError(
            name="KernelDied",
            value=f"The kernel process stopped while running this cell ({ending.died}); it was restarted "
                  "and all variables are lost.",
        )
    if ending.restart_requested:
        return ExecutionError(
            name="KernelRestarted",
            value="The kernel was restarted on request while this cell ran; all variables are lost.",
        )
    return ExecutionError(
        name="TimeoutError",
        value=f"The cell ran past its {timeout:g} s limit and ignored the interrupt, so the kernel was restarted; "
              "all variables are lost.",
    )


def between_cells_notes(breaches: Sequence[Breach]) -> list[str]:
    """Sentences telling what the sandbox's limits did between two cells (to the kernel's
    own threads); a breach that stopped the whole sandbox is told as the kernel's restart."""
    return [f"Between cells, {_clause(b)}." for b in _one_per_limit(b for b in breaches if not b.sandbox_stopped)]


def _clause(breach: Breach) -> str:
    if breach.sandbox_stopped:
        return f"{breach.reason}, so the kernel was stopped and restarted"
    if breach.stopped:
        return f"{breach.reason}, and the server stopped {breach.stopped} of its processes"
    return breach.reason


def _one_per_limit(breaches: Iterable[Breach]) -> list[Breach]:
    seen: dict[str, Breach] = {}
    for breach in breaches:
        seen.setdefault(breach.limit, breach)
    return list(seen.values())
