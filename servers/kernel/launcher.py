"""Kernel launcher: runs *inside* the sandbox, sets resource limits, then becomes ipykernel.

This file is bind-mounted read-only into the sandbox on its own, so it must import nothing
from Lakeboard: only the standard library and ipykernel. The limits are set here, in the
process that becomes the kernel, so every process the kernel's code starts inherits them.

Usage (inside the sandbox):
    python launcher.py --memory-mb 2048 --cpu-seconds 600 --max-procs 256 --file-size-mb 1024 \
        --output-flood-chars N -- -f /path/to/connection.json [ipykernel options]
"""

from __future__ import annotations

import argparse
import resource
import sys

MB = 1024 * 1024


def _set_limit(kind: int, soft: int, hard: int | None = None) -> None:
    hard = soft if hard is None else hard
    _, current_hard = resource.getrlimit(kind)
    # An unprivileged process cannot raise its hard limit: never ask for more than allowed.
    if current_hard != resource.RLIM_INFINITY:
        soft, hard = min(soft, current_hard), min(hard, current_hard)
    resource.setrlimit(kind, (soft, hard))


def apply_limits(memory_mb: int, cpu_seconds: int, max_procs: int, file_size_mb: int) -> None:
    """Address-space, CPU-time, process-count, file-size and core-dump limits."""
    _set_limit(resource.RLIMIT_AS, memory_mb * MB)
    # SIGXCPU at the soft limit kills the kernel (the server then restarts it); the hard
    # limit, a little later, is SIGKILL in case the signal is caught.
    _set_limit(resource.RLIMIT_CPU, cpu_seconds, cpu_seconds + 5)
    if max_procs > 0:  # 0: not set (unsandboxed, it would count all of the user's processes)
        _set_limit(resource.RLIMIT_NPROC, max_procs)
    _set_limit(resource.RLIMIT_FSIZE, file_size_mb * MB)
    _set_limit(resource.RLIMIT_CORE, 0)


def describe_variables(limit: int = 500) -> str:
    """JSON list of the user's variables (name, type, shape, length, dtype, short repr).

    Called by the server through a silent execute's user_expressions, so it adds nothing to
    the user's namespace or history.
    """
    import json
    import reprlib
    import types

    from IPython import get_ipython

    shell = get_ipython()
    hidden = shell.user_ns_hidden
    short = reprlib.Repr()
    short.maxstring = short.maxother = 120
    rows = []
    for name, value in list(shell.user_ns.items()):
        if name.startswith("_") or name in hidden or isinstance(value, types.ModuleType):
            continue
        kind = type(value)
        row = {"name": name, "type": f"{kind.__module__}.{kind.__qualname__}".removeprefix("builtins.")}
        try:
            shape = getattr(value, "shape", None)
            if isinstance(shape, tuple) and all(isinstance(d, int) for d in shape):
                row["shape"] = [int(d) for d in shape]
            elif hasattr(value, "__len__") and not isinstance(value, type):
                row["length"] = len(value)
            dtype = getattr(value, "dtype", None)
            if dtype is not None and not callable(dtype):
                row["dtype"] = str(dtype)
            row["preview"] = short.repr(value)[:240]
        except Exception as exc:  # noqa: BLE001 - a broken __repr__ or property must not break the listing
            row["preview"] = f"<unavailable: {type(exc).__name__}>"
        rows.append(row)
        if len(rows) >= limit:
            break
    return json.dumps(rows)


def reap_zombies() -> str:
    """Collect this kernel's dead children (left when the server killed a fork bomb's copies)."""
    import os

    reaped = 0
    me = str(os.getpid())
    for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] == "Z" and fields[1] == me:
            try:
                os.waitpid(int(pid), os.WNOHANG)
                reaped += 1
            except ChildProcessError:
                pass
    return str(reaped)


class OutputLimitExceeded(RuntimeError):
    """A cell printed far more than anyone can read (raised by print/write in the kernel)."""


def install_bounded_output(flood_chars: int) -> None:
    """Define `BoundedOutStream`: ipykernel's stdout/stderr, with a per-cell cap.

    Without a cap, a print loop makes the kernel buffer output faster than it can publish
    it, until the memory limit kills it. Past `flood_chars` characters in one cell, a
    write from the cell's own (main) thread raises OutputLimitExceeded; writes from other
    threads (e.g. ipykernel forwarding a subprocess's output) are dropped.
    """
    import threading

    from ipykernel.iostream import OutStream

    class BoundedOutStream(OutStream):
        _cell: object = None
        _written = 0

        def write(self, string: str) -> int | None:  # type: ignore[override]
            if not isinstance(string, str):
                return super().write(string)
            cell = self.parent_header.get("msg_id")
            if cell != self._cell:
                self._cell, self._written = cell, 0
            room = flood_chars - self._written
            self._written += len(string)
            if room >= len(string):
                return super().write(string)
            if room > 0:
                super().write(string[:room])
            if threading.current_thread() is threading.main_thread():
                raise OutputLimitExceeded(
                    f"this cell printed more than {flood_chars:,} characters, far past what is shown; "
                    "print less, or write large results to a file in the working directory"
                )
            return len(string)

    globals()["BoundedOutStream"] = BoundedOutStream


def drop_writable_imports() -> None:
    """Leave the cwd (the workdir, which the kernel's code writes) and this file's folder off
    sys.path, so a `pandas.py` written there is never imported in place of pandas.
    PYTHONSAFEPATH does the same where Python knows it (3.11+)."""
    import os

    unsafe = {os.path.realpath(os.getcwd()), os.path.realpath(os.path.dirname(os.path.abspath(__file__)))}
    sys.path[:] = [p for p in sys.path if p and os.path.realpath(p) not in unsafe]


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if "--" in argv:
        cut = argv.index("--")
        own, kernel_argv = argv[:cut], argv[cut + 1 :]
    else:
        own, kernel_argv = argv, []
    parser = argparse.ArgumentParser(prog="lakeboard-kernel-launcher")
    parser.add_argument("--memory-mb", type=int, required=True)
    parser.add_argument("--cpu-seconds", type=int, required=True)
    parser.add_argument("--max-procs", type=int, required=True)
    parser.add_argument("--file-size-mb", type=int, required=True)
    parser.add_argument("--output-flood-chars", type=int, required=True)
    args = parser.parse_args(own)
    apply_limits(args.memory_mb, args.cpu_seconds, args.max_procs, args.file_size_mb)
    drop_writable_imports()

    # Start-up weight the kernel never uses (~0.5 s of imports): debugpy (the kernel's
    # debugger; no debug client can reach the sandbox) and jedi (tab completion). Marking
    # them absent makes ipykernel and IPython skip both.
    for unused in ("debugpy", "jedi"):
        sys.modules[unused] = None  # type: ignore[assignment]
    # The server reaches describe_variables() under this name.
    sys.modules["lakeboard_kernel_launcher"] = sys.modules[__name__]
    install_bounded_output(args.output_flood_chars)
    kernel_argv = [*kernel_argv, "--IPKernelApp.outstream_class=lakeboard_kernel_launcher.BoundedOutStream"]
    # Become the kernel in this very process (no second interpreter start-up).
    from ipykernel.kernelapp import IPKernelApp

    sys.argv = ["ipykernel"] + kernel_argv
    IPKernelApp.launch_instance(argv=kernel_argv)


if __name__ == "__main__":
    main()
