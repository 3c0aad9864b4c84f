"""A pool of MCP sessions, one fastmcp Client per server, kept open across requests.

Why one client per server rather than fastmcp's multi-server MCPConfig client: each
server needs its own timeout, its own failure record and its own restart, and a
helper that hangs or dies must not hold up calls to the others.

    async with ClientPool(load_servers("configs/mylake")) as pool:
        result = await pool.call("sales", "can_help", {"request": "monthly sales"}, timeout_s=5)

A server found dead (its process exited, its connection dropped) is restarted in the
background at once; the next call to it waits for the restart within its own timeout.
A server that times out is probed; if it no longer answers at all it is restarted too.
If it still answers, it is marked slow (`slow(name)` says why) until the call it left
unanswered has returned and it answers a ping; broadcasts skip it meanwhile.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import anyio
import mcp_types
from fastmcp import Client, FastMCP
from fastmcp.client.sampling import SamplingHandler
from fastmcp.client.transports import (
    ClientTransport,
    FastMCPTransport,
    SSETransport,
    StdioTransport,
    StreamableHttpTransport,
)
from mcp import MCPError

from lakeboard.common.child_processes import (
    SAFE_FOLDER,
    inheritable_environment,
    module_run,
    safe_python_args,
    safe_python_environment,
)
from lakeboard.host.forked_servers import (
    ForkedStdioTransport,
    ForkServer,
    forked_run,
    forking_available,
    shared_environment,
)
from lakeboard.host.servers_config import HttpServerEntry, ServerEntry, ServersConfig, StdioServerEntry
from lakeboard.host.trace import Trace
from lakeboard.schemas.board import ErrorKind, ServerState, ServerStatus

logger = logging.getLogger(__name__)

_MAX_BACKOFF_S = 30.0
# A slow server whose late answer has not come in this long is restarted: the work it was
# stuck on is abandoned, and its new process is asked again at the next broadcast.
_LATE_ANSWER_LIMIT_S = 300.0
_CLOSE_TIMEOUT_S = 5.0

# What a stdio server inherits from the host: what running Python and reading files needs,
# and Lakeboard's own settings but its tokens. Anything else (API keys, tokens) reaches a
# server only when its servers.json entry names it in `env`.
_INHERITED_NAMES = frozenset({
    "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER",  # mcp's own defaults
    "LANG", "LANGUAGE", "TZ", "TMPDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME",
    "VIRTUAL_ENV", "CONDA_PREFIX", "PYENV_ROOT", "PYENV_VERSION", "PYTHONPATH", "PYTHONHOME", "LD_LIBRARY_PATH",
})
_INHERITED_PREFIXES = ("LC_", "LAKEBOARD_")


def server_environment(entry_env: Mapping[str, str], host_env: Mapping[str, str] | None = None) -> dict[str, str]:
    """A stdio server's environment: the allow-listed part of the host's (never its tokens), then its entry's `env`."""
    host_env = os.environ if host_env is None else host_env
    inherited = {
        name: value
        for name, value in host_env.items()
        if name in _INHERITED_NAMES or name.startswith(_INHERITED_PREFIXES)
    }
    return {**inheritable_environment(inherited), **entry_env}


def stdio_launch(entry: StdioServerEntry) -> tuple[list[str], dict[str, str], str | None]:
    """The arguments, environment and working folder a stdio entry is started with.

    A Python module never imports from the current folder (`-P` is added to entries written
    without it) and starts in a safe folder unless its entry names one: the host may have
    been started from inside a lake.
    """
    env = safe_python_environment(entry.command, entry.args, server_environment(entry.env))
    if module_run(entry.command, entry.args) is None:
        return list(entry.args), env, entry.cwd
    return safe_python_args(entry.command, entry.args), env, entry.cwd or SAFE_FOLDER


class PoolError(Exception):
    """A call to one server failed; `kind` says how (see lakeboard.schemas.board.ErrorKind)."""

    kind: ErrorKind = "protocol"

    def __init__(self, server: str, tool: str | None, message: str) -> None:
        super().__init__(message)
        self.server = server
        self.tool = tool


class ServerTimeout(PoolError):
    kind = "timeout"


class ServerDied(PoolError):
    kind = "died"


class ServerUnavailable(PoolError):
    kind = "unavailable"


class ToolMissing(ServerUnavailable):
    """The server is up but does not list the tool (checked before sending)."""


class ToolFailed(PoolError):
    kind = "tool_error"


class ProtocolError(PoolError):
    kind = "protocol"


class InvalidOutput(PoolError):
    """The server answered, but not in the shape its tool's output schema declares."""

    kind = "invalid_output"


@dataclass
class ToolResult:
    """What a tool returned: structured content when it has an output schema, text always."""

    server: str
    tool: str
    structured: dict[str, Any] | None
    text: str
    elapsed_s: float
    raw: mcp_types.CallToolResult = field(repr=False)

    def json(self) -> Any:
        """Structured content, or the text parsed as JSON (for servers without output schemas)."""
        if self.structured is not None:
            return self.structured
        try:
            return json.loads(self.text)
        except ValueError:
            raise ValueError(f"{self.server}.{self.tool} returned text, not JSON: {self.text[:200]!r}") from None


@dataclass(frozen=True)
class InMemoryServer:
    """A fastmcp server object of this process, reached through fastmcp's in-memory transport (tests only)."""

    server: FastMCP[Any]
    timeout: int | None = None  # ms, as an entry's

    @property
    def transport(self) -> Literal["memory"]:
        return "memory"


@dataclass
class _Member:
    name: str
    entry: ServerEntry | InMemoryServer
    client: Client | None = None
    state: ServerState = "starting"
    tools: list[str] = field(default_factory=list)
    restarts: int = 0
    failures: int = 0  # consecutive failed connects, for backoff
    retry_at: float = 0.0  # monotonic time before which no reconnect is attempted
    ever_connected: bool = False
    last_error: str | None = None
    connecting: asyncio.Task[None] | None = None
    slow: str | None = None  # why broadcasts skip it: a call it left unanswered
    late_calls: set[asyncio.Future[Any]] = field(default_factory=set)  # timed out, still awaited
    recovering: asyncio.Task[None] | None = None

    def status(self) -> ServerStatus:
        return ServerStatus(
            name=self.name,
            transport=self.entry.transport,
            state=self.state,
            tools=list(self.tools),
            restarts=self.restarts,
            last_error=self.last_error,
            slow=self.slow,
        )


def _session_closed(client: Client) -> bool:
    """Whether a connected client's session has already ended (server exited, stream dropped).

    Reads fastmcp/mcp internals defensively: if they move, this answers False and the
    failure surfaces on the call instead, which is still handled.
    """
    state = getattr(client, "_session_state", None)
    task = getattr(state, "session_task", None)
    if task is not None and task.done():
        return True
    session = getattr(state, "session", None)
    if session is None:
        return True
    dispatcher = getattr(session, "_dispatcher", None)
    return bool(getattr(dispatcher, "_closed", False))


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _schema_problem(exc: BaseException) -> str:
    """The jsonschema error's own short message and location, not the whole schema dump."""
    cause = exc.__cause__
    message = getattr(cause, "message", None)
    if not isinstance(message, str):
        return str(exc)[:500]
    path = "/".join(str(p) for p in getattr(cause, "absolute_path", ()))
    return f"{message} (at {path})" if path else message


def _result_text(result: mcp_types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, mcp_types.TextContent))


class ClientPool:
    """Open MCP sessions to every server of a lake; per-call timeouts, restart on death.

    Args:
        servers: the lake's servers (`load_servers(...)`) or a name -> entry mapping (an entry
            may be an InMemoryServer).
        trace: where server lifecycle events go (server_started/failed/died/restarted).
        connect_timeout_s: how long one server may take to start and answer initialize
            (callers pass their per-helper timeout); one that stays silent so long is not
            tried again for as long.
        default_timeout_s: per-call timeout when neither the call nor the entry sets one.
        start_concurrency: how many servers start at once (starting is CPU-bound).
        health_timeout_s: after a call times out, the server must answer a tools/list
            within this long or it is restarted.
        log_dir: stdio servers' stderr goes to `log_dir/NAME.log` (default: inherit).
        mode: protocol era, as fastmcp's `Client(mode=...)`. "legacy" (the initialize
            handshake, which every MCP server speaks) suits sessions kept open for the
            whole run, and costs about a quarter less CPU per call on both sides than
            the 2026 per-request era on fastmcp 4.1 (measured: server ~0.95 vs ~1.35 ms,
            host ~0.55 vs ~0.75 ms), which matters when 64 helpers answer at once on
            2 cores. "auto" probes for the 2026 era first.
        sampling_handler: answers servers' sampling requests (lends them the host's
            model): one handler for every server, or a mapping name -> handler (servers
            not in it get none and so do not see the sampling capability).
        fork_servers: start `python -m MODULE` stdio servers run by this Python as forks
            of one process that imported their modules (`host/forked_servers.py`), which
            makes a lake's many helpers cheap to start. The fork server is made at the
            first such start, from the entries mounted by then (a pool may start empty and
            have its servers mounted later, as the gateway's does). Default: on where the
            system allows it (Linux), unless the environment sets LAKEBOARD_FORK_SERVERS=0.
        forks_from: another pool of this host whose fork server this one forks from (that pool
            owns it and stops it), instead of starting a fork server of its own: the gateway's
            kernels fork from its helpers' fork server.
    """

    def __init__(
        self,
        servers: ServersConfig | Mapping[str, ServerEntry | InMemoryServer],
        *,
        trace: Trace | None = None,
        connect_timeout_s: float = 60.0,
        default_timeout_s: float = 60.0,
        start_concurrency: int = 8,
        health_timeout_s: float = 5.0,
        log_dir: str | Path | None = None,
        mode: str = "legacy",
        sampling_handler: SamplingHandler | Mapping[str, SamplingHandler] | None = None,
        fork_servers: bool | None = None,
        forks_from: ClientPool | None = None,
    ) -> None:
        entries: dict[str, ServerEntry | InMemoryServer] = (
            dict(servers.servers) if isinstance(servers, ServersConfig) else dict(servers)
        )
        self._members = {name: _Member(name, entry) for name, entry in entries.items()}
        self.trace = trace
        self.connect_timeout_s = connect_timeout_s
        self.default_timeout_s = default_timeout_s
        self.health_timeout_s = health_timeout_s
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.mode = mode
        self._sampling = sampling_handler
        self._start_slots = asyncio.Semaphore(max(1, start_concurrency))
        self._background: set[asyncio.Task[Any]] = set()
        self._closed = False
        if fork_servers is None:
            fork_servers = os.environ.get("LAKEBOARD_FORK_SERVERS", "1").strip() != "0"
        self._can_fork = fork_servers and forking_available()
        self._fork_server: ForkServer | None = None
        self._forks_from = forks_from

    def _forks(self) -> ForkServer:
        """The pool's one fork server, made at the first forked start to preload every mounted entry's module."""
        if self._forks_from is not None:
            return self._forks_from._forks()
        if self._fork_server is None:
            entries = [m.entry for m in self._members.values()]
            forked = [(e, run) for e in entries if isinstance(e, StdioServerEntry) and (run := forked_run(e)) is not None]
            log_file = self.log_dir / "fork-server.log" if self.log_dir is not None else None
            env = server_environment(shared_environment(e.env for e, _ in forked))
            self._fork_server = ForkServer((run.module for _, run in forked), env, log_file,
                                           warm=[(run.module, list(run.args)) for _, run in forked])
        return self._fork_server

    # -- lifecycle -------------------------------------------------------------------

    async def __aenter__(self) -> ClientPool:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start(self) -> dict[str, ServerStatus]:
        """Connect to every server concurrently. A server that fails is recorded, not raised.

        Calling it again retries the servers that are not connected.
        """
        if self._closed:
            raise RuntimeError("this pool is closed; make a new ClientPool")
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
        tasks = [self._schedule_connect(m) for m in self._members.values() if m.state != "ready"]
        if tasks:
            await asyncio.wait(tasks)
        return self.status()

    async def close(self) -> None:
        """Stop every server the pool started and drop every session."""
        self._closed = True
        for task in list(self._background):
            task.cancel()
        if self._background:
            await asyncio.wait(list(self._background), timeout=_CLOSE_TIMEOUT_S)
        members = list(self._members.values())
        await asyncio.gather(*(self._drop_client(m) for m in members), return_exceptions=True)
        for m in members:
            m.state = "closed"
        if self._fork_server is not None:
            await self._fork_server.close()

    async def restart(self, name: str) -> ServerStatus:
        """Reconnect one server now (restarting its process for stdio) and wait for it."""
        member = self._member(name)
        if self._closed:
            raise RuntimeError("this pool is closed; make a new ClientPool")
        member.retry_at = 0.0
        if member.connecting is None:
            member.state = "restarting"
            self._schedule_connect(member)
        assert member.connecting is not None
        await asyncio.wait({member.connecting})
        return member.status()

    # -- introspection ---------------------------------------------------------------

    @property
    def names(self) -> list[str]:
        """Every server in the pool, in config order."""
        return list(self._members)

    @property
    def helpers(self) -> list[str]:
        """Servers that list a `can_help` tool (as of their last successful connect)."""
        return [m.name for m in self._members.values() if "can_help" in m.tools]

    @property
    def unconnected(self) -> list[str]:
        """Servers that never connected, so whether they are helpers is not known yet."""
        return [m.name for m in self._members.values() if not m.ever_connected]

    def timeout_for(self, name: str, default_s: float | None = None) -> float:
        """A server's call timeout: its entry's `timeout` (ms) if set, else `default_s`, else the pool's."""
        entry = self._member(name).entry
        if entry.timeout:
            return entry.timeout / 1000
        return default_s if default_s is not None else self.default_timeout_s

    def tools(self, name: str) -> list[str]:
        return list(self._member(name).tools)

    def slow(self, name: str) -> str | None:
        """Why a server is skipped by broadcasts (a call it left unanswered), or None when it is not."""
        return self._member(name).slow

    def status(self, name: str | None = None) -> dict[str, ServerStatus]:
        """Status of one server, or of all of them (name -> ServerStatus)."""
        members = [self._member(name)] if name is not None else self._members.values()
        return {m.name: m.status() for m in members}

    async def ready_client(self, name: str, timeout_s: float | None = None) -> Client:
        """The live Client of a server, connecting (or restarting) it first if needed, within the timeout."""
        member = self._member(name)
        deadline = time.monotonic() + (timeout_s if timeout_s is not None else self.timeout_for(name))
        return await self._ready_client(member, "its resources", deadline)

    # -- mounting --------------------------------------------------------------------

    async def mount(self, name: str, entry: ServerEntry) -> None:
        """Add a server, which connects on its first call; a server whose entry changed is stopped and replaced."""
        member = self._members.get(name)
        if member is not None and member.entry == entry:
            return
        if member is not None:
            await self.unmount(name)
        self._members[name] = _Member(name, entry)

    async def unmount(self, name: str) -> None:
        """Stop one server and forget it; its calls in flight fail as if it had died."""
        member = self._members.pop(name)
        if member.connecting is not None:
            member.connecting.cancel()
            await asyncio.wait({member.connecting}, timeout=_CLOSE_TIMEOUT_S)
        await self._drop_client(member)
        member.state = "closed"

    def client(self, name: str) -> Client:
        """The live fastmcp Client of a server, for what `call` does not cover (resources, prompts).

        It is replaced when the server restarts: fetch it again rather than keeping it.
        """
        member = self._member(name)
        if member.client is None or member.state != "ready":
            raise ServerUnavailable(
                name, None, f"server {name!r} is {member.state}: {member.last_error or ''}".rstrip(": ")
            )
        return member.client

    # -- calls -------------------------------------------------------------------------

    async def call(
        self,
        name: str,
        tool: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout_s: float | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> ToolResult:
        """Call one tool on one server, within `timeout_s` (including any restart wait).

        `meta`: the call's `_meta`, what MCP carries beside a tool's arguments (servers that do
        not know a key ignore it).

        Timeout: `timeout_s`, else the entry's `timeout` (ms), else `default_timeout_s`.
        Raises a PoolError subclass: ServerTimeout, ServerDied, ServerUnavailable (and
        its ToolMissing), ToolFailed (the tool raised), InvalidOutput (the result breaks
        the tool's output schema) or ProtocolError (a JSON-RPC error).
        """
        member = self._member(name)
        if timeout_s is None:
            timeout_s = self.timeout_for(name)
        started = time.monotonic()
        deadline = started + timeout_s
        client = await self._ready_client(member, tool, deadline)
        if tool not in member.tools:
            raise ToolMissing(name, tool, f"server {name!r} has no tool {tool!r}; it has: {', '.join(member.tools)}")

        remaining = max(0.0, deadline - time.monotonic())
        # Its own task, left to run when the caller stops waiting: the server is taken as slow
        # until that late answer arrives (see _recover).
        pending = asyncio.ensure_future(client.call_tool_mcp(tool, dict(arguments or {}), meta=dict(meta) if meta else None))
        try:
            await asyncio.wait({pending}, timeout=remaining)
        except BaseException:
            pending.cancel()
            raise
        if not pending.done():
            self._probe(member, client)
            self._mark_slow(member, client, pending, f"it did not answer {tool} within {timeout_s:g} s")
            raise ServerTimeout(name, tool, f"server {name!r} did not answer {tool} within {timeout_s:g}s")
        try:
            raw = pending.result()
        except MCPError as exc:
            if exc.code == mcp_types.CONNECTION_CLOSED:
                self._on_death(member, client, exc)
                raise ServerDied(name, tool, f"server {name!r} died during {tool}: {_describe(exc)}") from exc
            raise ProtocolError(name, tool, f"server {name!r} rejected {tool}: {exc}") from exc
        except Exception as exc:
            if not _session_closed(client):
                # The session is fine: the answer itself was wrong (mcp checks results
                # against the tool's output schema and raises RuntimeError).
                if "Invalid structured content" in str(exc):
                    raise InvalidOutput(
                        name, tool, f"server {name!r} returned an invalid {tool} result: {_schema_problem(exc)}"
                    ) from exc
                raise ProtocolError(name, tool, f"server {name!r} failed on {tool}: {_describe(exc)}") from exc
            # Transport failures: broken pipe, HTTP disconnect, connection refused.
            self._on_death(member, client, exc)
            raise ServerDied(name, tool, f"server {name!r} failed during {tool}: {_describe(exc)}") from exc

        elapsed = time.monotonic() - started
        text = _result_text(raw)
        if raw.is_error:
            raise ToolFailed(name, tool, text or f"{tool} on {name!r} failed without a message")
        return ToolResult(name, tool, raw.structured_content, text, elapsed, raw)

    async def _ready_client(self, member: _Member, tool: str, deadline: float) -> Client:
        """The member's live client, reconnecting first if needed, within the deadline."""
        if self._closed:
            raise ServerUnavailable(member.name, tool, "the client pool is closed")
        client = member.client
        if member.state == "ready" and client is not None:
            if not _session_closed(client):
                return client
            self._on_death(member, client, RuntimeError("its session had ended before the call"))

        if member.connecting is None:
            wait = member.retry_at - time.monotonic()
            if wait > 0:
                raise ServerUnavailable(
                    member.name,
                    tool,
                    f"server {member.name!r} is down ({member.last_error}); next restart attempt in {wait:.0f}s",
                )
            self._schedule_connect(member)
        assert member.connecting is not None
        # asyncio.wait neither cancels the restart when this caller gives up (others may
        # need it) nor raises if the pool's close() cancels it.
        await asyncio.wait({member.connecting}, timeout=max(0.0, deadline - time.monotonic()))
        if self._closed:
            raise ServerUnavailable(member.name, tool, "the client pool is closed")
        if member.state == "ready" and member.client is not None:
            return member.client
        if member.connecting is not None:
            raise ServerUnavailable(
                member.name, tool, f"server {member.name!r} was still restarting when {tool} timed out"
            )
        raise ServerUnavailable(member.name, tool, f"server {member.name!r} could not be started: {member.last_error}")

    # -- connecting and restarting -------------------------------------------------------

    def _member(self, name: str) -> _Member:
        try:
            return self._members[name]
        except KeyError:
            known = ", ".join(self._members) or "(none)"
            raise KeyError(f"no server named {name!r} in the pool; known servers: {known}") from None

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    def _schedule_connect(self, member: _Member) -> asyncio.Task[None]:
        if member.connecting is None:
            member.connecting = self._spawn(self._connect(member))
            member.connecting.add_done_callback(lambda _t, m=member: setattr(m, "connecting", None))
        return member.connecting

    def _transport(self, member: _Member) -> ClientTransport:
        entry = member.entry
        if isinstance(entry, InMemoryServer):
            return FastMCPTransport(entry.server)
        log_file = self.log_dir / f"{member.name}.log" if self.log_dir is not None else None
        if isinstance(entry, StdioServerEntry):
            args, env, cwd = stdio_launch(entry)
            run = forked_run(entry) if self._can_fork else None
            if run is not None:
                return ForkedStdioTransport(self._forks(), run.module, list(run.args), env, cwd, log_file)
            return StdioTransport(command=entry.command, args=args, env=env, cwd=cwd, keep_alive=False,
                                  log_file=log_file)
        assert isinstance(entry, HttpServerEntry)
        if entry.transport == "sse":
            return SSETransport(entry.url, headers=dict(entry.headers))
        return StreamableHttpTransport(entry.url, headers=dict(entry.headers))

    async def _connect(self, member: _Member) -> None:
        """(Re)connect one member. Records failures instead of raising them."""
        await self._drop_client(member)
        started = time.monotonic()
        async with self._start_slots:
            client: Client | None = None
            try:
                client = Client(
                    self._transport(member),
                    name=f"lakeboard-{member.name}",
                    init_timeout=0,
                    mode=self.mode,
                    sampling_handler=self._sampling_handler_for(member.name),
                )
                with anyio.fail_after(self.connect_timeout_s):
                    await client.__aenter__()
                    tools = [t.name for t in await client.list_tools()]
            except BaseException as exc:
                if client is not None:
                    await self._close_client(client)
                if not isinstance(exc, Exception):
                    raise  # cancelled (the pool is closing): nothing to record
                member.failures += 1
                backoff = min(_MAX_BACKOFF_S, 0.5 * 2 ** (member.failures - 1))
                if isinstance(exc, TimeoutError):
                    # Silent for a whole connect timeout: trying again at once would spend
                    # the next caller's deadline on the same silence.
                    backoff = max(backoff, self.connect_timeout_s)
                member.retry_at = time.monotonic() + backoff
                member.state = "dead"
                reason = (
                    f"no answer within {self.connect_timeout_s:g}s" if isinstance(exc, TimeoutError) else _describe(exc)
                )
                member.last_error = f"could not connect: {reason}"
                logger.warning("server %s: %s", member.name, member.last_error)
                self._emit("server_failed", member.name, time.monotonic() - started, error=member.last_error)
                return
        member.client, member.tools, member.state = client, tools, "ready"
        member.failures, member.retry_at, member.slow = 0, 0.0, None  # a new process owes no late answer
        kind = "server_restarted" if member.ever_connected else "server_started"
        if member.ever_connected:
            member.restarts += 1
        member.ever_connected = True
        self._emit(kind, member.name, time.monotonic() - started, tools=tools, transport=member.entry.transport)

    def _sampling_handler_for(self, name: str) -> SamplingHandler | None:
        if isinstance(self._sampling, Mapping):
            return self._sampling.get(name)
        return self._sampling

    async def _drop_client(self, member: _Member) -> None:
        client, member.client = member.client, None
        if client is not None:
            await self._close_client(client)

    @staticmethod
    async def _close_client(client: Client) -> None:
        # Bounded and shielded: closing a dead or wedged server must neither hang the
        # pool nor be cut short halfway (which would leak the subprocess).
        with anyio.CancelScope(shield=True), anyio.move_on_after(_CLOSE_TIMEOUT_S):
            try:
                await client.close()
            except Exception as exc:
                logger.debug("closing %s: %s", client.name, _describe(exc))

    def _on_death(self, member: _Member, client: Client, exc: BaseException) -> None:
        """Record that `client`'s server died and restart it in the background."""
        if member.client is not client or member.state != "ready" or self._closed:
            return  # already handled by a concurrent call
        member.state, member.slow = "restarting", None  # broadcasts wait for the restart, as for any death
        member.last_error = _describe(exc)
        logger.warning("server %s died: %s; restarting", member.name, member.last_error)
        self._emit("server_died", member.name, None, error=member.last_error)
        self._schedule_connect(member)

    def _probe(self, member: _Member, client: Client) -> None:
        """After a timeout, check in the background that the server still answers at all."""

        if not self._closed:
            self._spawn(self._answers(member, client, client.list_tools_mcp, "a tools/list", "unresponsive after a timeout"))

    async def _answers(self, member: _Member, client: Client, request: Any, what: str, state: str) -> bool:
        """Whether the server answers `request()` within health_timeout_s; if not, it is restarted as `state`."""
        try:
            with anyio.fail_after(self.health_timeout_s):
                await request()
            return True
        except Exception as exc:
            why = f"it did not answer {what}" if isinstance(exc, TimeoutError) else _describe(exc)
            self._on_death(member, client, RuntimeError(f"{state} ({why})"))
            return False

    def _mark_slow(self, member: _Member, client: Client, late: asyncio.Future[Any], why: str) -> None:
        """Skip the server in broadcasts until `late` (and any other late call) has returned and it answers a ping."""
        late.add_done_callback(lambda f: f.cancelled() or f.exception())  # its outcome is nobody's to raise
        if member.client is not client or self._closed:
            return  # it is restarting already
        member.late_calls.add(late)
        late.add_done_callback(member.late_calls.discard)
        if member.slow is None:
            member.slow = why
            logger.warning("server %s is slow: %s; broadcasts skip it until it answers again", member.name, why)
            self._emit("server_slow", member.name, None, reason=why)
        if member.recovering is None:
            member.recovering = self._spawn(self._recover(member, client))
            member.recovering.add_done_callback(lambda _t, m=member: setattr(m, "recovering", None))

    async def _recover(self, member: _Member, client: Client) -> None:
        """Clear a slow mark once the late calls have returned and a ping is answered within health_timeout_s.

        A server that answers pings while its tool hangs stays skipped while the tool hangs, up to
        _LATE_ANSWER_LIMIT_S; one that stops answering pings, or passes that limit, is restarted
        (its new process is not slow). Pings back off from 1 s to _MAX_BACKOFF_S.
        """
        delay, give_up_at = 1.0, time.monotonic() + _LATE_ANSWER_LIMIT_S
        while member.client is client and member.slow is not None:
            if member.late_calls and time.monotonic() > give_up_at:
                self._on_death(member, client, RuntimeError(
                    f"restarted: {member.slow}, and its answer had not come {_LATE_ANSWER_LIMIT_S:g} s later"))
                return
            if member.late_calls:
                await asyncio.wait(set(member.late_calls), timeout=delay)
                delay = min(_MAX_BACKOFF_S, delay * 2)
            if not await self._answers(member, client, client.ping, "a ping", "unresponsive while slow"):
                return
            if not member.late_calls and member.client is client:
                self._emit("server_recovered", member.name, None, was=member.slow)
                member.slow = None

    def _emit(self, kind: str, server: str, elapsed_s: float | None, **data: Any) -> None:
        if self.trace is not None:
            self.trace.emit(kind, server=server, elapsed_s=elapsed_s, **data)
