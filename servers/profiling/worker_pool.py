"""Run readers in worker processes, so a file that hangs or crashes a reader costs one file.

Workers are reused across files. Each reads relative paths on a pipe, one per line, and
answers each with one line of profile JSON on a second pipe. Every file gets a time bound and a
memory bound; a worker that exceeds one is killed and replaced, and the file gets a profile
that says why. Workers that cannot start at all are reported as such, never blamed on a file.

On Linux a worker is forked from this process when that is safe (it runs a single thread):
it then starts with the contracts and readers already imported. Otherwise it is a plain
`python -m lakeboard.servers.profiling.worker ROOT` subprocess, which does not depend on how the
calling program was started (e.g. a stdio MCP server or a `-c` script).
"""

from __future__ import annotations

import json
import logging
import os
import selectors
import signal
import subprocess
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Iterable, Iterator

from lakeboard.common.child_processes import inheritable_environment, python_module_command
from lakeboard.servers.profiling.processes import resident_bytes
from lakeboard.servers.profiling.worker import ONE_THREAD

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MEMORY_LIMIT = 1536 << 20  # bytes of RSS per worker
PIPELINE = 6  # files sent ahead to each worker, so it never waits for this process
_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}
STARTUP_TIMEOUT_S = 120.0  # a worker that has not imported its readers by then is broken
_PROJECT_ROOT = Path(__file__).resolve().parents[2]


class WorkerStartError(RuntimeError):
    """Worker processes die before answering anything (broken environment, not a bad file)."""


class _Forked:
    """A forked worker, seen through the part of subprocess.Popen the pool uses."""

    def __init__(self, pid: int, stdin: BinaryIO) -> None:
        self.pid = pid
        self.stdin: BinaryIO | None = stdin
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere: its status is lost
                self.returncode = -1
            else:
                if pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        while self.poll() is None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired(f"profiling worker {self.pid}", timeout)
            time.sleep(min(left, 0.005))
        assert self.returncode is not None
        return self.returncode

    def kill(self) -> None:
        if self.poll() is None:
            os.kill(self.pid, signal.SIGKILL)


def _can_fork() -> bool:
    """Forking copies only the calling thread: safe only while this process runs no other.

    Linux lists a process's threads (Python's and those of native libraries, e.g. OpenBLAS
    once numpy is imported) in /proc/self/task.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


@dataclass
class _Worker:
    proc: subprocess.Popen | _Forked
    fd: int  # read end of the answer pipe
    buffer: bytearray = field(default_factory=bytearray)
    tasks: deque = field(default_factory=deque)  # sent, not answered yet; the first is being profiled
    started: float = 0.0  # when the first task began (ready time, or the previous answer's arrival)
    ready: bool = False  # imports done; until then the clock runs against STARTUP_TIMEOUT_S
    spawned: float = field(default_factory=time.monotonic)
    inherited_rss: int = 0  # memory shared with this process when forked: not the file's doing

    def fileno(self) -> int:
        return self.fd


@dataclass
class Outcome:
    relpath: str
    profile_json: str | None  # the worker's profile
    failure: str | None = None  # why there is none: timeout, crash, memory
    status: str = "unreadable"


class WorkerPool:
    """A few reusable worker processes with a per-file time and memory bound."""

    def __init__(
        self,
        root: Path,
        workers: int,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        memory_limit: int = DEFAULT_MEMORY_LIMIT,
        fork: bool = True,
    ) -> None:
        self.root = str(Path(root).resolve())
        self.n = max(1, workers)
        self.timeout_s = timeout_s
        self.memory_limit = memory_limit
        self.fork = fork  # False: always a fresh interpreter
        self._workers: list[_Worker] = []
        self._early_deaths = 0
        self._selector = selectors.DefaultSelector()  # one for the pool: cheaper than one per wait
        self._declared: dict[str, dict] = {}

    def _spawn(self) -> _Worker:
        w = self._fork() if self.fork and _can_fork() else self._start_subprocess()
        self._selector.register(w.fd, selectors.EVENT_READ, w)
        return w

    def _fork(self) -> _Worker:
        request_r, request_w = os.pipe()
        answer_r, answer_w = os.pipe()
        # Ctrl-C reaches the whole process group: held back while forking, so that it never lands in the
        # child's at-fork handlers (a traceback on the user's terminal); the child unblocks it once it has
        # its default action back (worker.serve_forked).
        before = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
        try:
            pid = os.fork()
        except OSError:  # out of processes or memory for a copy: a fresh interpreter may still start
            signal.pthread_sigmask(signal.SIG_SETMASK, before)
            for fd in (request_r, request_w, answer_r, answer_w):
                os.close(fd)
            return self._start_subprocess()
        if pid != 0:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)
        if pid == 0:
            from lakeboard.servers.profiling.worker import serve_forked

            serve_forked(self.root, request_r, answer_w)  # never returns
        os.close(request_r)
        os.close(answer_w)
        os.set_blocking(answer_r, False)
        return _Worker(_Forked(pid, os.fdopen(request_w, "wb")), answer_r, inherited_rss=resident_bytes())

    def _start_subprocess(self) -> _Worker:
        read_fd, write_fd = os.pipe()
        env = inheritable_environment(os.environ)  # workers read hostile files: no token of the host's
        env["PYTHONPATH"] = os.pathsep.join([str(_PROJECT_ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
        env["LAKEBOARD_PROFILE_FD"] = str(write_fd)
        for name, value in ONE_THREAD.items():
            env.setdefault(name, value)
        proc = subprocess.Popen(
            python_module_command("lakeboard.servers.profiling.worker", self.root),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(write_fd,),
            env=env,
            cwd=str(_PROJECT_ROOT),
        )
        os.close(write_fd)
        os.set_blocking(read_fd, False)
        return _Worker(proc, read_fd)

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
            request = {"path": rel, "declared": self._declared[rel]} if rel in self._declared else rel
            w.proc.stdin.write(json.dumps(request).encode("utf-8") + b"\n")  # JSON: names may hold newlines
            w.proc.stdin.flush()
            return True
        except (BrokenPipeError, OSError, ValueError):
            return False

    def run(self, relpaths: Iterable[str], stop_at: float | None = None,
            declared: dict[str, dict] | None = None, keep_workers: bool = False) -> Iterator[Outcome]:
        """Profile every relative path; outcomes arrive in completion order. `declared`: per path,
        what the lake's documents declare about it (`declarations.Declarations` as a dict).

        At `stop_at` (time.monotonic) the workers are stopped, and the paths without an
        outcome have none. `keep_workers`: the workers stay for the next run (a caller that
        profiles batch after batch pays their start once); `close` stops them.
        """
        pending = deque(relpaths)
        self._declared = declared or {}
        last_rss_check = 0.0
        try:
            while pending or any(w.tasks for w in self._workers):
                if stop_at is not None and time.monotonic() >= stop_at:
                    return
                idle = sum(1 for w in self._workers if not w.tasks)
                while idle < len(pending) and len(self._workers) < self.n:
                    self._workers.append(self._spawn())
                    idle += 1
                for w in list(self._workers):
                    while pending and len(w.tasks) < PIPELINE:
                        rel = pending.popleft()
                        if not w.tasks and w.ready:
                            w.started = time.monotonic()
                        w.tasks.append(rel)
                        if not self._send(w, rel):
                            yield from self._failed(w, "crash", pending)
                            break
                busy = [w for w in self._workers if w.tasks]
                if not busy:
                    continue
                now = time.monotonic()
                deadline = min([self._deadline(w) for w in busy] + ([stop_at] if stop_at is not None else []))
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
                    elif check_rss and w.ready and self._rss(w) - w.inherited_rss > self.memory_limit:
                        yield from self._failed(w, "memory", pending)
        finally:
            if not keep_workers or pending or any(w.tasks for w in self._workers):  # stopped early: not reusable
                self.close()

    def _read(self, w: _Worker, pending: deque[str]) -> Iterator[Outcome]:
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

    def _failed(self, w: _Worker, why: str, pending: deque[str]) -> Iterator[Outcome]:
        """Retire a worker; its current file gets the blame, its queued files go back in line."""
        rel = w.tasks.popleft() if w.tasks else ""
        pending.extendleft(reversed(w.tasks))  # back to the front of the line, in order
        w.tasks.clear()
        self._retire(w)
        code = w.proc.returncode
        if not w.ready:
            # Died or hung while starting: the environment is at fault, not the file.
            pending.appendleft(rel)
            self._early_deaths += 1
            if self._early_deaths >= 3:
                raise WorkerStartError(
                    f"profiling workers do not start (exit code {code}); "
                    f"run `{sys.executable} -m lakeboard.servers.profiling.worker {self.root}` to see why"
                )
            return
        if why == "timeout":
            msg = f"reading this file took longer than {self.timeout_s:g} s, so the reader was stopped"
            yield Outcome(rel, None, msg, "unreadable")
        elif why == "memory":
            msg = f"the reader needed more than {self.memory_limit >> 20} MB of memory on this file and was stopped"
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
