"""Stdio servers forked from one process that imported them, instead of each started cold.

A lake's helpers are `python -m MODULE` servers run by this host's own Python, and each
would spend most of its start-up importing fastmcp, mcp and pydantic. The pool starts one
fork server (`python -m lakeboard.servers.fork_server`) that imports those modules once; every such
server is then a fork of it. Each is still its own process, speaking MCP over its own
stdin and stdout (one socket here), with its own stderr log, environment (the allow-listed
one a stdio server gets) and process group, so it dies, restarts and is stopped alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import socket
import subprocess
from collections.abc import AsyncIterator, Coroutine, Iterable, Mapping
from pathlib import Path
from typing import Any, Unpack

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from fastmcp.client.transports import ClientTransport
from fastmcp.client.transports.base import SessionKwargs, TransportOptions, VersionAwareClientSession
from mcp.client.session import ClientSession
from mcp.shared.message import SessionMessage
from mcp_types import CallToolResult, jsonrpc_message_adapter

from lakeboard.common.child_processes import (
    SAFE_FOLDER,
    SAFE_PATH_FLAG,
    ModuleRun,
    is_this_python,
    module_run,
    python_module_command,
)
from lakeboard.host.servers_config import StdioServerEntry
from lakeboard.schemas.fork_server import ForkReply, ForkRequest

logger = logging.getLogger(__name__)

_REPLY_BYTES = 1 << 16
_LINE_LIMIT = 1 << 30  # a server's reply is one line; the SDK's stdio client sets no limit either
_EXIT_GRACE_S = 2.0  # after stdin closes, as the SDK's stdio client waits before SIGTERM
_TERM_GRACE_S = 2.0  # after SIGTERM, before SIGKILL
_ANSWER_TIMEOUT_S = 60.0  # for the fork server's reply, its imports included
_GROUP_POLL_S = 0.05


def forking_available() -> bool:
    """Whether this system can run a fork server: it waits on its servers through pidfds (Linux)."""
    return hasattr(os, "pidfd_open") and hasattr(socket, "send_fds")


class ForkServerError(RuntimeError):
    """The fork server could not start a server."""


def forked_run(entry: StdioServerEntry) -> ModuleRun | None:
    """The `python [-P] -m MODULE ARGS` an entry runs with this host's own Python, else None.

    Only this Python: its fork server has this Python's modules. Any spelling of it counts
    (`python`, `python3`, a path), but not a virtualenv's python that links to it: that one
    has other packages (`is_this_python`). Only `-P` among the flags: the fork server runs
    under it, and any other flag would change what the server is.
    """
    run = module_run(entry.command, entry.args)
    if run is None or any(flag != SAFE_PATH_FLAG for flag in run.flags) or not is_this_python(entry.command):
        return None
    return run


def forked_module(entry: StdioServerEntry) -> str | None:
    """The module of `forked_run(entry)`, or None."""
    run = forked_run(entry)
    return run.module if run is not None else None


def shared_environment(envs: Iterable[Mapping[str, str]]) -> dict[str, str]:
    """The settings every entry's `env` gives alike: what the fork server imports under."""
    envs = list(envs)
    if not envs:
        return {}
    return {k: v for k, v in envs[0].items() if all(e.get(k) == v for e in envs[1:])}


# Imported by the fork server before it forks: Lakeboard's own servers, which start no
# thread on import (a fork keeps only the forking thread, and the locks the others held).
# Any other module is imported by its own fork, as `python -m` would.
_PRELOADED_PACKAGE = "lakeboard.servers."


class ForkServer:
    """One `lakeboard.servers.fork_server` process, started on first use and stopped by `close()`."""

    def __init__(self, modules: Iterable[str], env: Mapping[str, str], log_file: Path | None = None,
                 warm: Iterable[tuple[str, list[str]]] = ()) -> None:
        """`warm`: (module, args) of the servers it will start; each module's `warm(args)` reads
        ahead, in the fork server, what those servers share (a lake's index)."""
        self.modules = sorted({m for m in modules if m.startswith(_PRELOADED_PACKAGE)})
        self.warm = [(m, list(a)) for m, a in warm if m in self.modules]
        self.env = dict(env)
        self.log_file = log_file
        self._process: asyncio.subprocess.Process | None = None
        self._control: socket.socket | None = None
        self._lock = asyncio.Lock()
        self._pending: set[asyncio.Future] = set()  # exchanges under way, and stops of unclaimed servers

    async def spawn(self, module: str, args: list[str], env: Mapping[str, str], cwd: str | None,
                    stdio: socket.socket, stderr_fd: int) -> tuple[int, int]:
        """Start `python -m module args` on these descriptors: its pid and a pidfd of it."""
        request = ForkRequest(module=module, args=args, env=dict(env), cwd=cwd).model_dump_json().encode()
        # The exchange with the fork server runs in a task of its own, on copies of the descriptors:
        # a caller cancelled while the fork server works (a client's connect timeout: fastmcp
        # cancels its session task natively, which no anyio shield holds) would otherwise leave
        # the server it asked for running with no one to stop it.
        exchange = self._keep(self._exchange(request, [os.dup(stdio.fileno()), os.dup(stderr_fd)]))
        try:
            return await asyncio.shield(exchange)
        except asyncio.CancelledError:
            exchange.add_done_callback(self._stop_unclaimed)
            raise

    async def _exchange(self, request: bytes, fds: list[int]) -> tuple[int, int]:
        try:
            async with self._lock:  # one request at a time: replies come back in order
                control = await self._running()
                try:
                    with anyio.fail_after(_ANSWER_TIMEOUT_S):
                        await _send(control, request, fds)
                        data, got = await _receive(control)
                except OSError as exc:
                    await self._forget()
                    raise ForkServerError(
                        f"the fork server stopped answering ({exc}); it restarts on the next start") from exc
                except TimeoutError:
                    await self._forget()
                    raise ForkServerError(f"the fork server did not answer within {_ANSWER_TIMEOUT_S:g} s; "
                                          "it restarts on the next start") from None
        finally:
            for fd in fds:
                os.close(fd)
        if not data:
            await self._forget()
            raise ForkServerError("the fork server exited; see fork-server.log in the log folder")
        reply = ForkReply.model_validate_json(data)
        if reply.pid is None or not got:
            for fd in got:
                os.close(fd)
            raise ForkServerError(reply.error or "the fork server started no server and gave no reason")
        return reply.pid, got[0]

    def _stop_unclaimed(self, exchange: asyncio.Future[tuple[int, int]]) -> None:
        """Stop a server whose caller gave up before the fork server answered. Its stdin, the
        caller's socket, is closed already, so it leaves as any server whose client went away."""
        if exchange.cancelled() or exchange.exception() is not None:
            return
        self._keep(_stop(*exchange.result()))

    def _keep(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task:
        """`work` as a task held until it is done, so that close() waits for it."""
        task = asyncio.ensure_future(work)
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)
        return task

    async def close(self) -> None:
        """Stop the fork server. The servers it started stop when their stdin closes; one whose
        caller gave up before it started is stopped here at the latest."""
        with anyio.move_on_after(_EXIT_GRACE_S + 2 * _TERM_GRACE_S, shield=True):
            while self._pending:  # an exchange that ends while awaited may add the stop of its server
                await asyncio.gather(*self._pending, return_exceptions=True)
        for task in list(self._pending):
            task.cancel()  # a fork server that answers nothing: _forget stops it below
        await self._forget()

    async def _running(self) -> socket.socket:
        if self._process is not None and self._process.returncode is None and self._control is not None:
            return self._control
        await self._forget()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        log = open(self.log_file, "ab") if self.log_file is not None else None  # noqa: SIM115 - closed below
        try:
            # -P and a safe folder: every server is forked from this process, so nothing of the
            # host's current folder (a lake, maybe) may reach its sys.path.
            self._process = await asyncio.create_subprocess_exec(
                *python_module_command("lakeboard.servers.fork_server", "--control-fd", str(theirs.fileno()),
                                       "--warm", json.dumps(self.warm), *self.modules),
                pass_fds=[theirs.fileno()], env=self.env, cwd=SAFE_FOLDER, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=log if log is not None else None, start_new_session=True)
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
            if log is not None:
                log.close()
        ours.setblocking(False)
        self._control = ours
        return ours

    async def _forget(self) -> None:
        control, process = self._control, self._process
        self._control = self._process = None
        if control is not None:
            control.close()  # the fork server leaves when its control socket closes
        if process is not None and process.returncode is None:
            with anyio.CancelScope(shield=True):
                try:
                    await asyncio.wait_for(process.wait(), _EXIT_GRACE_S)
                except TimeoutError:
                    process.kill()
                    await process.wait()


async def _send(control: socket.socket, data: bytes, fds: list[int]) -> None:
    while True:
        try:
            socket.send_fds(control, [data], fds)
            return
        except BlockingIOError:
            await anyio.wait_writable(control)


async def _receive(control: socket.socket) -> tuple[bytes, list[int]]:
    while True:
        try:
            data, fds, _flags, _addr = socket.recv_fds(control, _REPLY_BYTES, 1)
            return data, fds
        except BlockingIOError:
            await anyio.wait_readable(control)


class _CheckedByHostSession(VersionAwareClientSession):
    """A session to one of Lakeboard's own servers, whose results the host parses with the
    same pydantic models their output schemas were made from (the blackboard, the kernel
    session). mcp checking them against the JSON schema first doubled that work: at 50k files
    it was a tenth of the gateway's CPU per request."""

    async def validate_tool_result(self, name: str, result: CallToolResult) -> None:
        return None


_OWN_SERVERS = TransportOptions(session_class=_CheckedByHostSession)


class ForkedStdioTransport(ClientTransport):
    """An MCP client transport to one server started by a `ForkServer`."""

    def __init__(self, fork_server: ForkServer, module: str, args: list[str], env: Mapping[str, str],
                 cwd: str | None = None, log_file: Path | None = None) -> None:
        self.fork_server = fork_server
        self.module, self.args, self.env, self.cwd, self.log_file = module, list(args), dict(env), cwd, log_file

    @contextlib.asynccontextmanager
    async def connect_session(
        self, *, transport_options: TransportOptions | None = None, **session_kwargs: Unpack[SessionKwargs]
    ) -> AsyncIterator[ClientSession]:
        options = transport_options or _OWN_SERVERS
        ours, theirs = socket.socketpair()
        try:
            log = open(self.log_file, "ab") if self.log_file is not None else None  # noqa: SIM115 - closed below
            try:
                pid, pidfd = await self.fork_server.spawn(
                    self.module, self.args, self.env, self.cwd, theirs, log.fileno() if log is not None else 2)
            finally:
                theirs.close()
                if log is not None:
                    log.close()
        except BaseException:
            ours.close()
            raise
        try:
            async with _message_streams(ours) as (read_stream, write_stream):
                async with options.session_class(read_stream, write_stream, **session_kwargs) as session:
                    yield session
        finally:
            ours.close()  # the end of its stdin, also when the streams never took the socket
            with anyio.CancelScope(shield=True):
                await _stop(pid, pidfd)

    def __repr__(self) -> str:
        return f"<ForkedStdioTransport(module={self.module!r})>"


@contextlib.asynccontextmanager
async def _message_streams(sock: socket.socket) -> AsyncIterator[
        tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]]:
    """JSON-RPC messages, one per line, over a connected socket; EOF for the server on exit."""
    reader, writer = await asyncio.open_connection(sock=sock, limit=_LINE_LIMIT)
    read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](0)

    async def read_lines() -> None:
        async with read_send:
            while True:
                try:
                    line = await reader.readline()
                except (OSError, ValueError):
                    return
                if not line:
                    return
                try:
                    message: SessionMessage | Exception = SessionMessage(
                        jsonrpc_message_adapter.validate_json(line, by_name=False))
                except ValueError as exc:
                    logger.warning("a forked server wrote a line that is not a JSON-RPC message: %s", exc)
                    message = exc
                try:
                    await read_send.send(message)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return

    async def write_lines() -> None:
        try:
            async with write_receive:
                async for item in write_receive:
                    writer.write(item.message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n")
                    await writer.drain()
        except OSError:
            # The server has gone: end the read side too, so no request waits for its timeout.
            await read_send.aclose()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read_lines)
        tasks.start_soon(write_lines)
        try:
            yield read_receive, write_send
        finally:
            writer.close()
            tasks.cancel_scope.cancel()


async def _stop(pid: int, pidfd: int) -> None:
    """Let the server leave on the end of its stdin; else stop its process group, as the SDK does."""
    try:
        if await _exited(pidfd, _EXIT_GRACE_S):
            return
        for sig, grace in ((signal.SIGTERM, _TERM_GRACE_S), (signal.SIGKILL, _TERM_GRACE_S)):
            try:
                os.killpg(pid, sig)  # the server leads its own group (it called setsid)
            except ProcessLookupError:
                return
            if await _group_gone(pid, grace):
                return
        logger.warning("forked server %d is still alive after SIGKILL; abandoning it", pid)
    finally:
        os.close(pidfd)


async def _exited(pidfd: int, timeout_s: float) -> bool:
    with anyio.move_on_after(timeout_s):
        await anyio.wait_readable(pidfd)  # a pidfd reads as ready once its process has exited
        return True
    return False


async def _group_gone(pgid: int, timeout_s: float) -> bool:
    with anyio.move_on_after(timeout_s):
        while True:
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                return True
            except PermissionError:
                pass
            await anyio.sleep(_GROUP_POLL_S)
    return False
