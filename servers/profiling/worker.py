"""A profiling worker: forked by the pool, or `python -m lakeboard.servers.profiling.worker ROOT`.

Reads lake-relative paths (one JSON string per line) and writes each file's profile as one
line of JSON to its answer pipe; the pool's owner caches it. A spawned worker reads stdin
and answers on the file descriptor named in LAKEBOARD_PROFILE_FD (stdout when unset).
Its own stdout is pointed at stderr, so nothing a library prints can corrupt the answers.
"""

from __future__ import annotations

import fcntl
import gc
import json
import logging
import os
import signal
import sys
import warnings
from pathlib import Path
from typing import BinaryIO, NoReturn

from lakeboard.common.lake_files import remove_pin_folders, scratch_folder
from lakeboard.schemas.storage import STORED
from lakeboard.servers.profiling.declarations import Declarations
from lakeboard.servers.profiling.processes import max_fd
from lakeboard.servers.profiling.profile import profile_file

ONE_THREAD = {"OMP_NUM_THREADS": "1"}  # workers are the parallelism: no thread pools inside (OpenBLAS)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m lakeboard.servers.profiling.worker LAKE_ROOT", file=sys.stderr)
        return 2
    fd = int(os.environ.get("LAKEBOARD_PROFILE_FD", "-1"))
    if fd < 0:
        fd = os.dup(1)
    out = os.fdopen(fd, "wb", buffering=0)
    try:
        os.dup2(2, 1)  # stray prints (Python or C) go to stderr
    except OSError:
        pass
    sys.stdout = sys.stderr
    warnings.simplefilter("ignore")
    logging.basicConfig(level=logging.ERROR)
    serve(Path(args[0]), sys.stdin.buffer, out)
    return 0


def serve(root: Path, requests: BinaryIO, answers: BinaryIO) -> None:
    """Answer requests until they end: 'ready' once the readers are loaded, then one profile per path."""
    try:
        _warm_up()
        answers.write(b"ready\n")  # imports done: time bounds start now
        for line in requests:
            line = line.strip()
            if not line:
                continue
            request = json.loads(line)  # a path, or a path with what the lake declares missing in it
            if isinstance(request, str):
                prof = profile_file(root / request, root)
            else:
                prof = profile_file(root / request["path"], root, Declarations(**request["declared"]))
            answers.write(prof.model_dump_json(context=STORED).encode("utf-8") + b"\n")  # as the cache stores it
    finally:
        remove_pin_folders()  # a forked worker leaves with os._exit: no atexit runs


def serve_forked(root: str, request_fd: int, answer_fd: int) -> NoReturn:
    """The life of a worker forked from the pool's owner; never returns to the caller's code.

    The child starts with the owner's modules loaded (no interpreter start-up, no imports
    of pydantic, the contracts and the readers) and with a copy of its state, which must
    stay untouched: the owner's objects are frozen out of the collector (their finalizers
    would close descriptors this process reuses), every descriptor but the two pipes is
    closed, and it leaves with os._exit (the owner's atexit handlers and buffers are not
    its own to run or flush).
    """
    code = 70  # EX_SOFTWARE: the worker broke, not a file
    try:
        gc.freeze()
        # A pipe may have got a standard descriptor (an owner without stdin): move it clear.
        request_fd, answer_fd = (fd if fd > 2 else fcntl.fcntl(fd, fcntl.F_DUPFD, 3) for fd in (request_fd, answer_fd))
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE):
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})  # blocked by the owner to fork
        devnull = os.open(os.devnull, os.O_RDWR)
        for std in (0, 1, 2):  # nothing of the owner's terminal or stdio protocol
            os.dup2(devnull, std)
        keep = sorted({request_fd, answer_fd})
        os.closerange(3, keep[0])
        os.closerange(keep[0] + 1, keep[-1])
        os.closerange(keep[-1] + 1, max_fd())
        sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
        warnings.simplefilter("ignore")
        logging.disable(logging.CRITICAL)
        for name, value in ONE_THREAD.items():  # native libraries read them as they load
            os.environ.setdefault(name, value)
        serve(Path(root), os.fdopen(request_fd, "rb"), os.fdopen(answer_fd, "wb", buffering=0))
        code = 0
    finally:
        os._exit(code)


def _warm_up() -> None:
    """Profile a tiny table once, so lazy imports are not charged to the first real file."""
    with scratch_folder() as d:  # a worker killed here leaves nothing behind
        f = d / "warm.csv"
        f.write_text("title\n\na,b\n1,x\n2,y\n")
        profile_file(f, d)


if __name__ == "__main__":
    sys.exit(main())
