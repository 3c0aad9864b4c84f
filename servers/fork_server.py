"""`python -m lakeboard.servers.fork_server --control-fd N MODULE ...`: start Python servers by forking.

A host starts every helper of a lake over stdio, and each one spends most of its start-up
importing fastmcp, mcp and pydantic. This process imports the given modules once; each
server is then a fork of it that runs its module as `python -m MODULE ARGS` would, so the
import work is done once per host, and the imported code and data stay shared, copy on
write, between all the servers. Every server is still a process of its own, with its own
stdin, stdout, stderr, environment and working directory.

Requests come on the control socket (an AF_UNIX SOCK_SEQPACKET socket): one
`lakeboard.schemas.fork_server.ForkRequest` carrying two descriptors, the server's stdin and stdout
(one socket) and its stderr. The `ForkReply` has the new server's pid and carries a pidfd
of it, or says why there is none. When the control socket closes, this process waits for its servers
(each leaves when its own stdin closes) and then leaves; reaping them itself is what adds
their CPU time to the host's accounts of its children.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import json
import os
import runpy
import shlex
import signal
import socket
import sys
import traceback

import setproctitle
from pydantic import ValidationError

from lakeboard.common.private_files import keep_new_files_private
from lakeboard.schemas.fork_server import ForkReply, ForkRequest

_MAX_REQUEST_BYTES = 1 << 20
_FDS_PER_REQUEST = 2


def _safe_path() -> None:
    """No module of any server forked from here may come from a current folder, the host's or its own.

    The host starts this process with `-P`; without it (run by hand), `python -m` put the
    folder it was started in first. Relative entries would follow each server's `cwd`.
    """
    if not sys.flags.safe_path and sys.path:
        del sys.path[0]
    sys.path[:] = [p for p in sys.path if p and os.path.isabs(p)]


def _add_python_path(value: str | None) -> None:
    """Put a server's own PYTHONPATH folders first on its path, as a fresh `python -m` would (absolute ones only)."""
    folders = [p for p in (value or "").split(os.pathsep) if os.path.isabs(p) and p not in sys.path]
    sys.path[:0] = folders


def _preload(modules: list[str], warm: list[tuple[str, list[str]]] = ()) -> None:
    """Import what the servers will need (a module's `preload()` too, where it defers its heavy
    part until its arguments are found good), then let each server's module read ahead what its
    servers share (`warm(args)`, where the module has one). A failure is left to the server to report."""
    gc.disable()
    for name in modules:
        try:
            module = importlib.import_module(name)
            if hasattr(module, "__path__"):  # a package runs as its __main__
                module = importlib.import_module(f"{name}.__main__")
            if callable(hook := getattr(module, "preload", None)):
                hook()
        except (Exception, SystemExit) as exc:  # the server itself will say why, in its own log
            print(f"fork server: could not preload {name}: {exc!r}", file=sys.stderr, flush=True)
    if "lakeboard.servers.file_agent" in modules:
        _load_model()
    for name, args in warm:
        module = sys.modules.get(f"{name}.__main__") or sys.modules.get(name)
        hook = getattr(module, "warm", None)
        if name not in modules or hook is None:
            continue
        try:
            hook(list(args))
        except Exception as exc:  # noqa: BLE001 - the server reads it again itself, and says what is wrong
            print(f"fork server: could not read ahead for {name}: {exc!r}", file=sys.stderr, flush=True)
    _rehearse()
    # Frozen objects are never scanned by the collector, so the servers' collections do not
    # write to (and so copy) the pages they share with this process.
    gc.freeze()


def _load_model() -> None:
    """The sentence embedding's weights (about 90 MB), loaded once here: every file agent forked
    from this process shares them instead of reading its own copy."""
    from threadpoolctl import threadpool_limits

    from lakeboard.common.minilm import MiniLMUnavailable, load_embedder

    try:
        load_embedder()
    except MiniLMUnavailable as exc:  # each file agent says so, and ranks with its lexical weights
        print(f"fork server: no sentence embedding: {exc}", file=sys.stderr, flush=True)
    # Every helper embeds the request at once: one BLAS thread each, or their threads fight
    # over the cores (a broadcast took 2.7 s instead of a tenth of that on a 1k-file lake).
    threadpool_limits(limits=1, user_api="blas")


def _rehearse() -> None:
    """Serve one call in memory, so what fastmcp imports and builds on first use is here once.

    Without it every server would import and build it again for its first request.
    """
    try:
        import asyncio

        from fastmcp import Client, FastMCP

        server = FastMCP("rehearsal")

        @server.tool
        def echo(text: str) -> str:
            return text

        async def call() -> None:
            async with Client(server) as client:
                await client.list_tools()
                await client.call_tool("echo", {"text": "ready"})

        asyncio.run(call())
    except Exception as exc:  # noqa: BLE001 - only a head start: the servers still start without it
        print(f"fork server: the rehearsal call failed: {exc!r}", file=sys.stderr, flush=True)


def _receive(control: socket.socket) -> tuple[bytes, list[int]] | None:
    """The next message and its descriptors; None when the host has gone."""
    try:
        data, fds, _flags, _addr = socket.recv_fds(control, _MAX_REQUEST_BYTES, _FDS_PER_REQUEST)
    except ConnectionError:
        return None
    if not data:
        for fd in fds:
            os.close(fd)
        return None
    return data, fds


def _problem(data: bytes, fds: list[int]) -> ForkRequest | str:
    """The request, or a sentence on what is wrong with it."""
    if len(fds) != _FDS_PER_REQUEST:
        return f"a request to the fork server carries {_FDS_PER_REQUEST} descriptors (stdio and stderr), not {len(fds)}"
    try:
        return ForkRequest.model_validate_json(data)
    except ValidationError as exc:
        where = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'request'}: {e['msg']}" for e in exc.errors())
        return f"a request to the fork server is not valid: {where}"


def _run_server(control: socket.socket, request: ForkRequest, stdio_fd: int, stderr_fd: int) -> None:
    """In the forked child: become `python -m MODULE ARGS` on the given descriptors. Never returns."""
    code = 1
    try:
        control.close()
        # What `ps` shows: the command line it would have been started with. Before the
        # environment changes: the title takes the space of the original argv and environ.
        setproctitle.setproctitle(shlex.join([sys.executable, "-m", request.module, *request.args]))
        os.setsid()  # like a server the SDK starts: the terminal's Ctrl-C goes to the host only
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.dup2(stdio_fd, 0)
        os.dup2(stdio_fd, 1)
        os.dup2(stderr_fd, 2)
        os.close(stdio_fd)
        os.close(stderr_fd)
        if request.cwd:
            os.chdir(request.cwd)
        os.environ.clear()
        os.environ.update(request.env)
        _add_python_path(request.env.get("PYTHONPATH"))
        sys.argv = [request.module, *request.args]
        gc.enable()
        if _forget_preloaded_main(request.module):
            runpy.run_module(request.module, run_name="__main__", alter_sys=True)
            code = 0
        else:
            print(f"{sys.executable}: No module named {request.module}", file=sys.stderr)
    except SystemExit as exc:  # as the interpreter reads it: None is 0, a message is printed and is 1
        if exc.code is None or isinstance(exc.code, int):
            code = exc.code or 0
        else:
            print(exc.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001 - reported as `python -m` would, then the process ends
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)


def _forget_preloaded_main(module: str) -> bool:
    """Drop the preloaded copy of the code about to run as __main__; False if there is no such module.

    runpy runs it afresh either way (a preloaded copy's `__name__` is not "__main__"), and
    warns when it finds one; its imports stay loaded.
    """
    try:
        spec = importlib.util.find_spec(module)
    except ImportError:
        return False
    if spec is None:
        return False
    sys.modules.pop(f"{module}.__main__" if spec.submodule_search_locations is not None else module, None)
    return True


def _fork(control: socket.socket, request: ForkRequest, fds: list[int]) -> tuple[int, int]:
    """Start one server: its pid and a pidfd of it."""
    # Not reaped before its pidfd is open: a reaped pid may already name another process.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
    try:
        pid = os.fork()
        if pid == 0:
            _run_server(control, request, *fds)
        return pid, os.pidfd_open(pid)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})


def _reap(_signum: int, _frame: object) -> None:
    """Collect every server that has exited (the host waits on their pidfds, not here)."""
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _wait_for_servers() -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def serve(control: socket.socket) -> None:
    """Answer requests until the host closes the control socket, then wait for the servers."""
    signal.signal(signal.SIGCHLD, _reap)
    while True:
        received = _receive(control)
        if received is None:
            _wait_for_servers()
            return
        data, fds = received
        request, pidfd = _problem(data, fds), None
        try:
            if isinstance(request, str):
                reply = ForkReply(error=request)
            else:
                try:
                    pid, pidfd = _fork(control, request, fds)
                    reply = ForkReply(pid=pid)
                except OSError as exc:  # no process left to fork, or it ended before its pidfd opened
                    reply = ForkReply(error=f"could not start {request.module}: {exc}")
        finally:
            for fd in fds:
                os.close(fd)
        try:
            socket.send_fds(control, [reply.model_dump_json(exclude_none=True).encode()], [pidfd] if pidfd is not None else [])
        except OSError:
            return
        finally:
            if pidfd is not None:
                os.close(pidfd)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lakeboard.servers.fork_server", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--control-fd", type=int, required=True, help="the host's end of the control socket")
    ap.add_argument("--warm", default="[]",
                    help="JSON list of [module, args]: each module's `warm(args)` reads ahead what its servers share")
    ap.add_argument("modules", nargs="*", help="modules to import before serving")
    args = ap.parse_args(argv)
    _safe_path()
    keep_new_files_private()  # every server forked from here inherits it
    control = socket.socket(fileno=args.control_fd)
    _preload(args.modules, json.loads(args.warm))
    serve(control)
    return 0


if __name__ == "__main__":
    sys.stdout.flush()
    os._exit(main())
