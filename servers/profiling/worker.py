"""A profiling worker process: `python -m servers.profiling.worker ROOT`.

Reads lake-relative paths on stdin (one JSON string per line) & writes each file's profile
as one line of JSON to the file descriptor named in LAKEBOARD_PROFILE_FD (stdout when
unset); the pool's owner caches it.
Its own stdout is pointed at stderr, so nothing a library prints can corrupt the answers.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import sys
import warnings
from pathlib import Path

from servers.process import exit_now, quick_imports


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m servers.profiling.worker LAKE_ROOT", file=sys.stderr)
        return 2
    root = Path(args[0])
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

    with quick_imports():  # imported objects live as long as the worker: out of the collector's reach
        from servers.profiling.profile import profile_file

        _warm_up(profile_file)
    # Reading a file allocates thousands of objects, few in cycles: collect young ones less often.
    gc.set_threshold(10_000, 10, 10)
    out.write(b"ready\n")  # imports done: time bounds start now
    for line in sys.stdin.buffer:
        line = line.strip()
        if not line:
            continue
        rel = json.loads(line)
        prof = profile_file(root / rel, root)
        out.write(prof.model_dump_json().encode("utf-8") + b"\n")
    return 0


def _warm_up(profile_file) -> None:
    """Profile a tiny table once, so lazy imports are not charged to the first real file."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="lakeboard-warm-") as d:
        f = Path(d) / "warm.csv"
        f.write_text("title\n\na,b\n1,x\n2,y\n")
        profile_file(f, Path(d))


if __name__ == "__main__":
    # Every answer & cache entry is written once main returns: skip the interpreter's
    # teardown, which kept the pool waiting ~0.1 s per run.
    exit_now(main())
