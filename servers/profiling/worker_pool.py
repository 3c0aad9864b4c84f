"""Run readers in worker processes, so a file that hangs or crashes a reader costs one file.

Each worker is a plain `python -m servers.profiling.worker ROOT` subprocess (so it does not
depend on how the calling program was started, e.g. a stdio MCP server or a `-c` script),
reused across files. It reads relative paths on stdin, one per line, & answers each
with one line of profile JSON on a private pipe. Every file gets a time bound & a memory
bound; a worker that exceeds one is killed & replaced, & the file gets a profile that
says why. Workers that cannot start at all are reported as such, never blamed on a file.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
import selectors
from pathlib import Path
from typing import Callable, Iterable, Iterator

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MEMORY_LIMIT = 1536 << 20  # bytes of RSS per worker
PIPELINE = 6  # files sent ahead to each worker, so it never waits for this process
# Each wake-up of this process handles every answer that arrived meanwhile: waking once per
# answer made it spend ~1/3 more CPU, which the workers on a 2-core machine then lacked.
GATHER_S = 0.002
STARTUP_TIMEOUT_S = 120.0  # a worker that has not imported its readers at that point is broken
_PROJECT_ROOT = Path(__file__).resolve().parents[2]
_MALLOC_TUNING = {
    "MALLOC_MMAP_THRESHOLD_": str(8 << 20),
    "MALLOC_TRIM_THRESHOLD_": str(64 << 20),
    "MALLOC_TOP_PAD_": str(16 << 20),
}


class WorkerStartError(RuntimeError):
    """Worker processes die before answering anything (broken environment, not a bad file)."""


@dataclass
class _Worker:
    proc: subprocess.Popen
    fd: int  # read end of the answer pipe
    buffer: bytearray = field(default_factory=bytearray)
    tasks: deque = field(default_factory=deque)  # sent, not answered yet; the first is being profiled
    started: float = 0.0  # when the first task began (ready time, or the previous answer's arrival)
    ready: bool = False  # imports done; until then the clock runs against STARTUP_TIMEOUT_S
    spawned: float = field(default_factory=time.monotonic)
    kinds: dict[str, None] = field(default_factory=dict)  # kinds of file it was given: their readers are loaded

    def fileno(self) -> int:
        return self.fd


class _Queue:
    """Files waiting for a worker, in one line per kind of file (its reader).

    A worker keeps to the kinds it has had, & takes up a kind no other worker has: each
    reader's imports (pandas, pyarrow, geopandas: 0.15-0.5 s of CPU each) are then paid
    in one worker, not in every one. Once its own lines are empty, a worker helps with
    the longest line left, so no worker idles while files wait.
    """

    def __init__(self, relpaths: Iterable[str], kind_of: Callable[[str], str]) -> None:
        self._kind_of = kind_of
        self._lines: defaultdict[str, deque[str]] = defaultdict(deque)
        for rel in relpaths:
            self._lines[kind_of(rel)].append(rel)

    def __len__(self) -> int:
        return sum(map(len, self._lines.values()))  # a handful of kinds

    def take(self, w: _Worker, workers: list[_Worker]) -> str:
        """The next file for worker `w` (the queue must not be empty)."""
        kind = next((k for k in w.kinds if self._lines.get(k)), None)
        if kind is None:
            taken = {k for o in workers for k in o.kinds}
            kind = next((k for k, line in self._lines.items() if not (not line or k in taken)), None)
        if kind is None:
            kind = max((k for k, line in self._lines.items() if line), key=lambda k: len(self._lines[k]))
        w.kinds[kind] = None
        line = self._lines[kind]
        rel = line.popleft()
        if not line:
            del self._lines[kind]
        return rel

    def put_back(self, rels: list[str]) -> None:
        """Files taken but not profiled go back to the front of their lines, in order."""
        for rel in reversed(rels):
            self._lines[self._kind_of(rel)].appendleft(rel)


@dataclass
class Outcome:
    relpath: str
    profile_json: str | None  # the worker's profile
    failure: str | None = None  # why there is none: timeout, crash, memory
    status: str = "unreadable"


class WorkerPool:
    """A few reusable worker processes with a per-file time & memory bound."""

    def __init__(
        self,
        root: Path,
        workers: int,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        memory_limit: int = DEFAULT_MEMORY_LIMIT,
        kind_of: Callable[[str], str] | None = None,
    ) -> None:
        self.root = str(Path(root).resolve())
        self.n = max(1, workers)
        self.timeout_s = timeout_s
        self.memory_limit = memory_limit
        self.kind_of = kind_of or (lambda rel: "")  # which reader a path will need, as far as its name tells
        self._workers: list[_Worker] = []
        self._early_deaths = 0
        self._selector = selectors.DefaultSelector()  # one for the pool: cheaper than one per wait

    def _spawn(self) -> _Worker:
        read_fd, write_fd = os.pipe()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(_PROJECT_ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
        env["LAKEBOARD_PROFILE_FD"] = str(write_fd)
        env.setdefault("OMP_NUM_THREADS", "1")  # workers are the parallelism; no thread pools inside
        # glibc malloc: keep freed memory for the next file instead of returning it to the
        # system & faulting it back in (a worker read takes up to 1 MB): ~4x fewer page
        # faults & ~4% less CPU per worker on the benchmark lake.
        for name, value in _MALLOC_TUNING.items():
            env.setdefault(name, value)
        proc = subprocess.Popen(
            [sys.executable, "-m", "servers.profiling.worker", self.root],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(write_fd,),
            env=env,
            cwd=str(_PROJECT_ROOT),
        )
        os.close(write_fd)
        os.set_blocking(read_fd, False)
        w = _Worker(proc, read_fd)
        self._selector.register(read_fd, selectors.EVENT_READ, w)
        return w

    def _retire(self, w: _Worker) -> None:
        try:
            self._selector.unregister(w.fd)
        except (KeyError, ValueError):
            pass
        try:
            w.proc.kill()
        except OSError:
            pass
        try:
            w.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        try:
            if w.proc.stdin:
                w.proc.stdin.close()
        except OSError:
            pass
        try:
            os.close(w.fd)
        except OSError:
            pass
        if w in self._workers:
            self._workers.remove(w)

    def _send(self, w: _Worker, rel: str) -> bool:
        try:
            assert w.proc.stdin is not None
            w.proc.stdin.write(json.dumps(rel).encode("utf-8") + b"\n")  # JSON: names may hold newlines
            w.proc.stdin.flush()
            return True
        except (BrokenPipeError, OSError, ValueError):
            return False

    def run(self, relpaths: Iterable[str]) -> Iterator[Outcome]:
        """Profile every relative path; outcomes arrive in completion order."""
        pending = _Queue(relpaths, self.kind_of)
        last_rss_check = 0.0
        try:
            while pending or any(w.tasks for w in self._workers):
                idle = sum(1 for w in self._workers if not w.tasks)
                while not (idle >= len(pending) or len(self._workers) >= self.n):
                    self._workers.append(self._spawn())
                    idle += 1
                for w in list(self._workers):
                    while not (not pending or len(w.tasks) >= PIPELINE):
                        rel = pending.take(w, self._workers)
                        if not (w.tasks or not w.ready):
                            w.started = time.monotonic()
                        w.tasks.append(rel)
                        if not self._send(w, rel):
                            yield from self._failed(w, "crash", pending)
                            break
                busy = [w for w in self._workers if w.tasks]
                if not busy:
                    continue
                if all(len(w.tasks) >= 2 for w in busy):  # each has a file to go on with meanwhile
                    time.sleep(GATHER_S)
                now = time.monotonic()
                deadline = min(self._deadline(w) for w in busy)
                events = self._selector.select(timeout=max(0.0, min(deadline - now, 0.5)))
                for key, _ in events:
                    w = key.data
                    if w in self._workers:
                        yield from self._read(w, pending)
                now = time.monotonic()
                check_rss = now - last_rss_check >= 0.5
                if check_rss:
                    last_rss_check = now
                for w in [w for w in self._workers if w.tasks]:
                    if now > self._deadline(w):
                        yield from self._failed(w, "timeout" if w.ready else "startup", pending)
                    elif not (not check_rss or not w.ready or not (self._rss(w) > self.memory_limit)):
                        yield from self._failed(w, "memory", pending)
        finally:
            self.close()

    def _read(self, w: _Worker, pending: _Queue) -> Iterator[Outcome]:
        try:
            chunk = os.read(w.fd, 1 << 20)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:  # the worker is gone
            yield from self._failed(w, "crash", pending)
            return
        w.buffer += chunk
        while True:
            nl = w.buffer.find(b"\n")
            if nl < 0:
                break
            line = bytes(w.buffer[:nl])
            del w.buffer[: nl + 1]
            if not w.ready:
                w.ready = True  # the first line says the worker's imports are done
                w.started = time.monotonic()
                continue
            if not w.tasks:
                break
            rel = w.tasks.popleft()
            w.started = time.monotonic()
            yield Outcome(rel, line.decode("utf-8"))

    def _deadline(self, w: _Worker) -> float:
        return w.started + self.timeout_s if w.ready else w.spawned + STARTUP_TIMEOUT_S

    def _rss(self, w: _Worker) -> int:
        try:
            import psutil

            return psutil.Process(w.proc.pid).memory_info().rss
        except Exception:  # noqa: BLE001 - the process may have just exited
            return 0

    def _failed(self, w: _Worker, why: str, pending: _Queue) -> Iterator[Outcome]:
        """Retire a worker; its current file gets the blame, its queued files go back in line."""
        rel = w.tasks.popleft() if w.tasks else ""
        pending.put_back(list(w.tasks))
        w.tasks.clear()
        self._retire(w)
        code = w.proc.returncode
        if not w.ready:
            # Died or hung while starting: the environment is at fault, not the file.
            pending.put_back([rel])
            self._early_deaths += 1
            if self._early_deaths >= 3:
                raise WorkerStartError(
                    f"profiling workers do not start (exit code {code}); "
                    f"run `{sys.executable} -m servers.profiling.worker {self.root}` to see why"
                )
            return
        if why == "timeout":
            msg = f"reading this file took longer than {self.timeout_s:g} s, so the reader was stopped"
            yield Outcome(rel, None, msg, "unreadable")
        elif why == "memory":
            msg = f"the reader needed more than {self.memory_limit >> 20} MB of memory on this file & was stopped"
            yield Outcome(rel, None, msg, "too_large")
        else:
            detail = f" (exit code {code})" if code is not None else ""
            yield Outcome(rel, None, f"the reader crashed on this file{detail}", "unreadable")

    def close(self) -> None:
        for w in list(self._workers):
            try:
                if w.proc.stdin:
                    w.proc.stdin.close()  # end of input: the worker exits
            except OSError:
                pass
        deadline = time.monotonic() + 2
        for w in list(self._workers):
            try:
                w.proc.wait(timeout=max(0.05, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            self._retire(w)
        self._workers.clear()
        self._selector.close()
        self._selector = selectors.DefaultSelector()
