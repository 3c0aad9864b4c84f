"""Lakeboard's servers started by forking one `lakeboard.servers.fork_server` process, for a test module that
starts many of them.

Each server is still a process of its own, running its module as `python -m MODULE ARGS` would, with its own
argv, environment, folder, stdin/stdout and stderr; only the imports (fastmcp, the server: about 1.5 s of CPU
a start) are done once, in the fork server, as the host does for a lake's stdio helpers. The fork server reaps
its servers and is reaped by the test process, so their CPU counts as the test's children's.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from lakeboard.schemas.fork_server import ForkReply, ForkRequest


class ForkedServer:
    """One server forked by `ForkedServers.start`: its pid, and a pidfd to see it end."""

    def __init__(self, pid: int, pidfd: int, label: str) -> None:
        self.pid, self.pidfd, self.label = pid, pidfd, label

    def exited(self, timeout_s: float = 0) -> bool:
        # A pidfd is readable once its process has ended (whoever reaps it: here, the fork server).
        return bool(select.select([self.pidfd], [], [], timeout_s)[0])

    def poll(self) -> int | None:
        """None while it runs, as Popen.poll (what tests/support/servers.wait_for_port reads); once it
        has ended, -1: the fork server reaps it, so its exit code is not ours to read."""
        return -1 if self.exited() else None

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it has not ended within 10 s; returns once it has ended."""
        try:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                signal.pidfd_send_signal(self.pidfd, sig)
                if self.exited(10):
                    return
            raise TimeoutError(f"{self.label} outlived SIGKILL")
        except ProcessLookupError:  # already ended and reaped
            pass
        finally:
            os.close(self.pidfd)


class ForkedServers:
    """A fork server that has imported `modules`; `start` forks a server from it, `close` ends it."""

    def __init__(self, modules: list[str], env: Mapping[str, str], cwd: Path) -> None:
        self._control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with theirs:
            self._process = subprocess.Popen(
                [sys.executable, "-P", "-m", "lakeboard.servers.fork_server", "--control-fd", str(theirs.fileno()),
                 *modules],
                cwd=cwd, env=dict(env), pass_fds=[theirs.fileno()], stdout=subprocess.DEVNULL,
            )

    def start(self, module: str, args: list[str], env: Mapping[str, str], cwd: Path,
              stderr: Path | None = None) -> ForkedServer:
        """`python -m module args` with exactly `env`, in `cwd`, stdin and stdout /dev/null, stderr to `stderr`."""
        request = ForkRequest(module=module, args=args, env=dict(env), cwd=str(cwd))
        with open(os.devnull, "r+b") as stdio, open(stderr or os.devnull, "wb") as errors:
            socket.send_fds(self._control, [request.model_dump_json().encode()], [stdio.fileno(), errors.fileno()])
        ready = select.select([self._control], [], [], 120)[0]  # its first answer waits for its imports
        assert ready, "the fork server did not answer within 120 s"
        data, fds, _flags, _addr = socket.recv_fds(self._control, 1 << 16, 1)
        reply = ForkReply.model_validate_json(data)
        assert reply.pid is not None and len(fds) == 1, f"the fork server could not start {module}: {reply.error}"
        return ForkedServer(reply.pid, fds[0], label=module)

    def close(self) -> None:
        """Ends the fork server once the servers it started have ended (stop them first)."""
        self._control.close()
        try:
            self._process.wait(30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
