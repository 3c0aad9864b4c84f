"""Run a file's generated loader on the file and compare what it returns with the profile.

The profiler calls `check_loader` right after profiling, in its worker, on the very file it
profiled (the pinned copy's name). The loader runs in a checker: a child forked from the worker
once (so it starts with the readers imported), which takes one request at a time and answers
with a `LoaderCheck`. The worker stops the checker when a loader runs too long or adds too much
resident memory, or crashes it, and forks another for the next file. A child rather than an
alarm in the worker: an exception raised into a running reader can leave it broken (pandas'
parallel CSV reader then crashes the process), and a profile must never be lost to its check.
Tables are compared by `lakeboard.common.loaded_tables`; documents, arrays and images are
verified when the loader returns non-empty data of the kind the profile expects.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import time
from pathlib import Path
from typing import Any

from lakeboard.common.code_text import comment_text
from lakeboard.common.loaded_tables import expected_shapes, problems, shapes_of
from lakeboard.schemas.profiles import FileProfile, LoaderCheck
from lakeboard.servers.profiling.cdf import FrameColumn, time_frames
from lakeboard.servers.profiling.loader_code import make_loader, readable_arrays
from lakeboard.servers.profiling.processes import max_fd, resident_bytes

LOADER_CHECK_S = 15.0  # most a loader runs at index time
LOADER_MEMORY = 1 << 30  # resident memory a loader may add, below the pool's 1.5 GB per worker
# Bigger files are not run: profiling reads them in part, and loading them whole would cost far
# more than profiling did (and most of them more time or memory than the bounds allow).
LOADER_CHECK_BYTES = 256 << 20
# Seconds into a file's profiling by which its check must end: the worker pool's per-file bound
# (worker_pool.DEFAULT_TIMEOUT_S, 60 s, which imports this module's importer) less a margin, so a
# worker is never stopped (and its profile lost) because of the check.
CHECK_ENDS_BY_S = 45.0
_POLL_S = 0.02  # how often the child's memory is looked at
_MAX_REASONS = 12
_TEXT_FORMATS = frozenset({"pdf", "docx", "text", "markdown", "html"})
_ARRAY_FORMATS = frozenset({"npy", "npz", "mat", "cdf", "hdf5", "netcdf", "fits"})


def check_budget(profiled_s: float) -> float:
    """Seconds the check may take after profiling took `profiled_s`: at most `LOADER_CHECK_S`,
    and no more than what is left of the pool's per-file bound (with a margin)."""
    return max(0.0, min(LOADER_CHECK_S, CHECK_ENDS_BY_S - profiled_s))


def check_loader(profile: FileProfile, source_path: Path, budget_s: float = LOADER_CHECK_S) -> LoaderCheck:
    """Run `profile`'s generated loader on `source_path` (the file profiled) for at most `budget_s`
    seconds and `LOADER_MEMORY` bytes more memory, and compare what it returns with the profile.
    Never raises."""
    if not profile.ok:
        return LoaderCheck(verified=False, reasons=[f"not data ({profile.status}): {profile.reason}"])
    if budget_s < 1.0:
        return LoaderCheck(verified=False, reasons=["not run: profiling used the time this file may take"])
    if profile.size_bytes > LOADER_CHECK_BYTES:
        return LoaderCheck(verified=False, reasons=[
            f"not run: the file is {profile.size_bytes / 2**20:,.0f} MB, and loaders are run at index time "
            f"on files up to {LOADER_CHECK_BYTES >> 20} MB"])
    if "allow_pickle=True" in make_loader(profile).source:
        return LoaderCheck(verified=False, reasons=[
            "not run: it unpickles objects from the file, which runs code from the file; run it only on a file you trust"])
    if not hasattr(os, "fork"):
        return LoaderCheck(verified=False, reasons=["not run: this system cannot run it in a process of its own"])
    t0 = time.perf_counter()
    try:
        check = _checker().check(profile, Path(source_path), budget_s)
    except OSError as exc:  # no process could be started
        check = _unverified(f"not run: no process to run it in ({exc.strerror or exc})")
    check.seconds = round(time.perf_counter() - t0, 4)
    return check


def run_loader(profile: FileProfile, source_path: Path) -> LoaderCheck:
    """Run `profile`'s loader on `source_path` in this process, unbounded, and compare its data with `profile`."""
    loader = make_loader(profile)
    try:
        namespace: dict[str, Any] = {}
        exec(compile("\n".join(loader.imports) + "\n" + loader.source, profile.path, "exec"), namespace)
        data = namespace[loader.function](source_path)
    except MemoryError:
        return _unverified("it ran out of memory on this file")
    except Exception as exc:  # noqa: BLE001 - a loader that fails is what the check is for
        return _unverified(f"it failed: {type(exc).__name__}: {comment_text(exc, 300)}")
    try:
        loaded = shapes_of(data)
        reasons = problems(loaded, expected_shapes(profile)) if profile.tables else _kind_problems(profile, data)
    except Exception as exc:  # noqa: BLE001 - data of a shape nothing here expected
        return _unverified(f"its data could not be compared with the profile: {type(exc).__name__}: {comment_text(exc, 300)}")
    if len(reasons) > _MAX_REASONS:
        reasons = reasons[:_MAX_REASONS] + [f"... and {len(reasons) - _MAX_REASONS} more disagreements"]
    largest = max(loaded, key=lambda s: s.rows, default=None)
    return LoaderCheck(verified=not reasons, reasons=reasons, tables=len(loaded),
                       rows=largest.rows if largest else None, columns=len(largest.columns) if largest else None)


def _unverified(reason: str) -> LoaderCheck:
    return LoaderCheck(verified=False, reasons=[reason])


def _kind_problems(profile: FileProfile, data: Any) -> list[str]:
    """For a file without tables: non-empty data of the kind its profile says it is."""
    if data is None:
        return ["it returned nothing"]
    if profile.format == "cdf" and (frames := time_frames(profile.arrays)):
        return _frame_problems(frames, profile, data)
    if profile.arrays or profile.format in _ARRAY_FORMATS:
        arrays = list(data.values()) if isinstance(data, dict) else [data]
        if not any(hasattr(a, "shape") for a in arrays):
            return [f"it returned {type(data).__name__}, not arrays"]
        wanted = len(readable_arrays(profile))
        if profile.arrays and len(arrays) < wanted:
            return [f"it returned {len(arrays)} arrays; the profile lists {wanted} it can read"]
        return [] if any(getattr(a, "size", 1) for a in arrays) else ["its arrays are empty"]
    if profile.kind == "document" or profile.format in _TEXT_FORMATS:
        if not isinstance(data, str):
            return [f"it returned {type(data).__name__}, not text"]
        return [] if data.strip() or not (profile.text or "").strip() else ["it returned no text, though the profile read some"]
    if profile.kind == "image":
        return [] if hasattr(data, "size") or (isinstance(data, bytes) and data) else ["it returned no image"]
    if hasattr(data, "__len__") and not len(data):
        return ["it returned empty data"]
    return []


def _frame_problems(frames: dict[str, list[FrameColumn]], profile: FileProfile, data: Any) -> list[str]:
    """A CDF of time series: a DataFrame per epoch (a dict of them when there are several), of
    the epoch's records, with the epoch and each column `time_frames` gives."""
    got = data if isinstance(data, dict) else {next(iter(frames)): data}
    records = {a.name: int(a.attributes["records"]) for a in profile.arrays if a.name in frames}
    out = []
    for epoch, columns in frames.items():
        df = got.get(epoch)
        if not hasattr(df, "columns"):
            out.append(f"no DataFrame for the records of {epoch}")
            continue
        if len(df) != records[epoch]:
            out.append(f"the frame of {epoch} has {len(df)} rows; the file has {records[epoch]} records")
        missing = [n for n in [epoch, *(n for c in columns for n in c.names)] if n not in df.columns]
        if missing:
            out.append(f"the frame of {epoch} lacks the columns {', '.join(missing[:5])}")
    return out


class _Checker:
    """A child process that runs loaders on request, one at a time: forked once (with this
    process's modules loaded) and replaced after it is stopped. It opens the pinned file through
    /proc/<this process>/fd, so it reads the very file profiled."""

    def __init__(self) -> None:
        self.owner = os.getpid()
        ours, theirs = socket.socketpair()
        self.pid = os.fork()
        if self.pid == 0:  # the child: never returns to the caller's code
            code = 70
            try:
                ours.detach()
                _serve(theirs)
                code = 0
            finally:
                os._exit(code)
        theirs.close()
        self.socket = ours
        self.retire_at = resident_bytes(self.pid) + LOADER_MEMORY  # a child grown this much is replaced

    def check(self, profile: FileProfile, path: Path, budget_s: float) -> LoaderCheck:
        limit = LOADER_MEMORY  # read now: a test may change it
        base = resident_bytes(self.pid)
        request = json.dumps({"profile": profile.model_dump(mode="json"), "path": str(path)}).encode("utf-8")
        try:
            self.socket.sendall(len(request).to_bytes(8, "big") + request, socket.MSG_NOSIGNAL)
            answer, stopped = self._answer(time.monotonic() + budget_s, base + limit)
        except OSError:
            answer, stopped = None, None
        if stopped == "time":
            return self._stop(f"it ran longer than {budget_s:g} s on this file and was stopped")
        if stopped == "memory":
            return self._stop(f"it needed more than {limit >> 20} MB of memory on this file and was stopped")
        if answer is None:
            return self._stop("")
        if resident_bytes(self.pid) > self.retire_at:
            self._stop("")  # what it freed stays with it: start afresh next time
        try:
            return LoaderCheck.model_validate_json(answer)
        except ValueError:
            return _unverified("the process that ran it gave no answer it could read")

    def _answer(self, deadline: float, most_resident: int) -> tuple[bytes | None, str | None]:
        """The child's answer; None when it ended first; or what stopped it ("time", "memory")."""
        want, got = None, bytearray()
        poller = select.poll()  # not select(): this process may hold descriptors above 1024
        poller.register(self.socket, select.POLLIN)
        while want is None or len(got) < want:
            left = deadline - time.monotonic()
            if left <= 0:
                return None, "time"
            if poller.poll(min(left, _POLL_S) * 1000):
                chunk = self.socket.recv(1 << 16)
                if not chunk:
                    return None, None
                got += chunk
                if want is None and len(got) >= 8:
                    want, got = int.from_bytes(got[:8], "big"), got[8:]
            elif resident_bytes(self.pid) > most_resident:
                return None, "memory"
        return bytes(got), None

    def _stop(self, reason: str) -> LoaderCheck:
        """Stop the child (the next check starts another); `reason`, or how it ended, as a check."""
        global _CHECKER
        _CHECKER = None
        self.socket.close()
        try:
            os.kill(self.pid, signal.SIGKILL)
            _, status = os.waitpid(self.pid, 0)
        except (ChildProcessError, ProcessLookupError):  # reaped elsewhere (a SIGCHLD handler): how it ended is lost
            status = 0
        if not reason and os.WIFSIGNALED(status) and os.WTERMSIG(status) != signal.SIGKILL:
            reason = f"it crashed the process that ran it (signal {os.WTERMSIG(status)})"
        return _unverified(reason or "the process that ran it ended without an answer")


_CHECKER: _Checker | None = None


def _checker() -> _Checker:
    """This process's checker; a new one in a process forked from its owner (whose descriptors
    are not this process's to close: the inherited socket is let go without closing)."""
    global _CHECKER
    if _CHECKER is not None and _CHECKER.owner != os.getpid():
        _CHECKER.socket.detach()
        _CHECKER = None
    if _CHECKER is not None and not _alive(_CHECKER.pid):  # it died between checks
        _CHECKER.socket.close()
        _CHECKER = None
    if _CHECKER is None:
        _CHECKER = _Checker()
    return _CHECKER


def _alive(pid: int) -> bool:
    try:
        return os.waitpid(pid, os.WNOHANG)[0] == 0
    except ChildProcessError:
        return False


def _serve(sock: socket.socket) -> None:
    """The checker's life: answer each request until the socket closes or its owner is gone."""
    keep = sock.fileno()
    os.closerange(3, keep)  # nothing of the owner's: pipes to the pool, pinned files, its cache
    os.closerange(keep + 1, max_fd())
    _die_with_parent()
    while True:
        head = _receive(sock, 8)
        if head is None:
            return
        body = _receive(sock, int.from_bytes(head, "big"))
        if body is None:
            return
        request = json.loads(body)
        check = run_loader(FileProfile.model_validate(request["profile"]), Path(request["path"]))
        answer = check.model_dump_json().encode("utf-8")
        sock.sendall(len(answer).to_bytes(8, "big") + answer, socket.MSG_NOSIGNAL)


def _receive(sock: socket.socket, n: int) -> bytes | None:
    got = bytearray()
    while len(got) < n:
        chunk = sock.recv(min(n - len(got), 1 << 20))
        if not chunk:
            return None
        got += chunk
    return bytes(got)


def _die_with_parent() -> None:
    """Linux: be killed when the owner dies (a worker the pool stopped), not left running a loader."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
