"""Run readers in worker processes, so a file that hangs or crashes a reader costs one file.

Workers are forked from a forkserver that has already imported pandas and the readers,
so they start in milliseconds and are reused across files. Each file gets a time bound
and a memory bound; a worker that exceeds one is killed and replaced, and the file gets
a profile that says why.
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import sys
import time
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Iterable, Iterator

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MEMORY_LIMIT = 1536 << 20  # bytes of RSS per worker
_PRELOAD = ["pandas", "servers.profiling.profile", "servers.profiling.delimited", "servers.profiling.worker_pool"]


def _context() -> mp.context.BaseContext:
    if "forkserver" in mp.get_all_start_methods():
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(_PRELOAD)
        return ctx
    return mp.get_context("spawn")


def _worker_main(conn: Connection, root: str) -> None:
    """Profile the relative paths received on `conn`, send back each profile as JSON."""
    # stdout may be an MCP stdio channel in the parent: nothing may be written there.
    try:
        os.dup2(2, 1)
        sys.stdout = sys.stderr
    except OSError:
        pass
    import warnings

    warnings.simplefilter("ignore")
    logging.getLogger().setLevel(logging.ERROR)
    from servers.profiling.profile import profile_file

    root_path = Path(root)
    while True:
        try:
            rel = conn.recv()
        except (EOFError, OSError):
            return
        if rel is None:
            return
        prof = profile_file(root_path / rel, root_path)
        conn.send_bytes(prof.model_dump_json().encode("utf-8"))


@dataclass
class _Worker:
    proc: mp.process.BaseProcess
    conn: Connection
    task: str | None = None
    started: float = 0.0


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
    ) -> None:
        self.root = str(Path(root))
        self.n = max(1, workers)
        self.timeout_s = timeout_s
        self.memory_limit = memory_limit
        self._ctx = _context()
        self._workers: list[_Worker] = []

    def _spawn(self) -> _Worker:
        parent, child = self._ctx.Pipe(duplex=True)
        proc = self._ctx.Process(target=_worker_main, args=(child, self.root), daemon=True)
        proc.start()
        child.close()
        return _Worker(proc, parent)

    def _retire(self, w: _Worker) -> None:
        try:
            w.proc.kill()
        except (OSError, AttributeError, ValueError):
            pass
        w.proc.join(timeout=5)
        w.conn.close()
        if w in self._workers:
            self._workers.remove(w)

    def run(self, relpaths: Iterable[str]) -> Iterator[Outcome]:
        """Profile every relative path; outcomes arrive in completion order."""
        pending = deque(relpaths)
        try:
            while pending or any(w.task for w in self._workers):
                idle = sum(1 for w in self._workers if w.task is None)
                while idle < len(pending) and len(self._workers) < self.n:
                    self._workers.append(self._spawn())
                    idle += 1
                for w in list(self._workers):
                    if w.task is None and pending:
                        w.task = pending.popleft()
                        w.started = time.monotonic()
                        try:
                            w.conn.send(w.task)
                        except (BrokenPipeError, OSError):
                            yield self._failed(w, "crash")
                busy = [w for w in self._workers if w.task is not None]
                if not busy:
                    continue
                now = time.monotonic()
                deadline = min(w.started + self.timeout_s for w in busy)
                ready = wait([w.conn for w in busy], timeout=max(0.0, min(deadline - now, 0.5)))
                for w in busy:
                    if w.conn in ready:
                        try:
                            data = w.conn.recv_bytes()
                        except (EOFError, OSError):
                            yield self._failed(w, "crash")
                            continue
                        rel, w.task = w.task, None
                        yield Outcome(rel, data.decode("utf-8"))
                now = time.monotonic()
                for w in [w for w in self._workers if w.task is not None]:
                    if now - w.started > self.timeout_s:
                        yield self._failed(w, "timeout")
                    elif self._rss(w) > self.memory_limit:
                        yield self._failed(w, "memory")
        finally:
            self.close()

    def _rss(self, w: _Worker) -> int:
        try:
            import psutil

            return psutil.Process(w.proc.pid).memory_info().rss
        except Exception:  # noqa: BLE001 - the process may have just exited
            return 0

    def _failed(self, w: _Worker, why: str) -> Outcome:
        rel = w.task or ""
        code = w.proc.exitcode
        self._retire(w)
        if why == "timeout":
            msg = f"reading this file took longer than {self.timeout_s:g} s, so the reader was stopped"
            return Outcome(rel, None, msg, "unreadable")
        if why == "memory":
            msg = f"the reader needed more than {self.memory_limit >> 20} MB of memory on this file and was stopped"
            return Outcome(rel, None, msg, "too_large")
        detail = f" (exit code {code})" if code is not None else ""
        return Outcome(rel, None, f"the reader crashed on this file{detail}", "unreadable")

    def close(self) -> None:
        for w in list(self._workers):
            if w.task is None:
                try:
                    w.conn.send(None)
                except (BrokenPipeError, OSError):
                    pass
        for w in list(self._workers):
            w.proc.join(timeout=2)
            self._retire(w)
        self._workers.clear()
