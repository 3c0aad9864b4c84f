"""One kernel per client session: a client's `run_code` never sees another client's variables or files.

Each session gets its own kernel server, started on its first `run_code` (a process working
in a folder of its own for a stdio entry; its own MCP session for a kernel server that runs
elsewhere by URL, which keeps a kernel and a folder per session on its side) and stopped
when the session ends, when it has gone unused for the idle timeout, or when the gateway
stops. At most `max_kernels` run at once: a session beyond that is refused with a sentence.
Every kernel the gateway starts here is a member of one pool, so they are all forks of one
fork server.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from lakeboard.common.live_sessions import LiveSessions
from lakeboard.host.kernel_session import KernelClient, KernelUnavailable
from lakeboard.host.kernel_workdirs import KernelWorkdirs, private_workdir, starts_kernel_server
from lakeboard.host.pool import ClientPool
from lakeboard.host.servers_config import ServerEntry, StdioServerEntry
from lakeboard.host.trace import Trace
from lakeboard.schemas.execution import ExecutionResult

log = logging.getLogger(__name__)

MAX_KERNELS_ENV = "LAKEBOARD_MAX_KERNELS"
IDLE_TIMEOUT_ENV = "LAKEBOARD_KERNEL_IDLE_TIMEOUT"


class KernelLimits(BaseModel):
    """How many kernels the gateway runs at once, and how long one may sit unused."""

    max_kernels: int = Field(4, ge=1, description="kernels alive at once, one per client session")
    idle_timeout_s: float = Field(1800.0, gt=0, description="a session's kernel unused this long is stopped")

    @classmethod
    def from_settings(cls, max_kernels: int | None = None, idle_timeout_s: float | None = None,
                      env: dict[str, str] | None = None) -> KernelLimits:
        """Flags first, then LAKEBOARD_MAX_KERNELS and LAKEBOARD_KERNEL_IDLE_TIMEOUT (seconds), then defaults.
        Raises ValueError with a sentence naming the bad setting."""
        env = dict(os.environ) if env is None else env
        values: dict[str, object] = {}
        for field, given, name in (("max_kernels", max_kernels, MAX_KERNELS_ENV),
                                   ("idle_timeout_s", idle_timeout_s, IDLE_TIMEOUT_ENV)):
            if given is not None:
                values[field] = given
            elif env.get(name, "").strip():
                values[field] = env[name].strip()
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            error = exc.errors()[0]
            flag = {"max_kernels": f"--max-kernels ({MAX_KERNELS_ENV})",
                    "idle_timeout_s": f"--kernel-idle-timeout ({IDLE_TIMEOUT_ENV})"}[str(error["loc"][0])]
            raise ValueError(f"{flag} is not valid: {error['msg'][:1].lower()}{error['msg'][1:]} "
                             f"(got {error.get('input')!r})") from None


NO_KERNEL = (
    "This lake's servers have no kernel, so code cannot run here: run `lakeboard index` again to write one, "
    "or start the kernel server on a Linux machine and give the gateway its address with --kernel-url."
)
REMOTE_HINT = (
    "Where bubblewrap cannot run (macOS, Windows), start the kernel server on a Linux machine "
    "(python -m lakeboard.servers.kernel --transport http --auth-token TOKEN ...) and give the gateway its address "
    "with --kernel-url URL."
)

TOKEN_HINT = (
    "Check that a kernel server listens at {url}, and give the gateway the token it was started with "
    "(--kernel-token, or the LAKEBOARD_KERNEL_TOKEN variable)."
)


@dataclass
class _Kernel:
    name: str  # its name in the pool
    client: KernelClient
    warning: str | None  # said with every result: the kernel mounts the lake elsewhere
    folder: Path | None  # its own workdir, removed when it stops


class KernelSessions:
    """Kernels by client session.

    kernel: returns the kernel's server entry as the config says now (None: there is none).
    lake: where the helpers' loading code finds the lake; a kernel that mounts it elsewhere
        (one on another machine) still runs code, and every result says so.
    workdirs: where the kernels started here get their own folders.
    forks_from: the pool whose fork server starts the kernels (the gateway's helpers' pool): one
        fork server for the gateway, not a second one for its kernels.
    """

    def __init__(
        self,
        kernel: Callable[[], ServerEntry | None],
        *,
        lake: Path | None = None,
        log_dir: Path | None = None,
        trace: Trace | None = None,
        cell_timeout_s: float = 120.0,
        connect_timeout_s: float = 60.0,
        limits: KernelLimits | None = None,
        workdirs: Path | None = None,
        forks_from: ClientPool | None = None,
    ) -> None:
        self._entry = kernel
        self._forks_from = forks_from
        self.lake = lake
        self.log_dir = log_dir
        self.trace = trace
        self.cell_timeout_s = cell_timeout_s
        self.connect_timeout_s = connect_timeout_s
        self.limits = limits or KernelLimits()
        self._workdirs_base = workdirs
        self._workdirs: KernelWorkdirs | None = None
        self._pool: ClientPool | None = None  # every session's kernel, so one fork server starts them all
        self._live: LiveSessions[_Kernel] = LiveSessions(
            self._start, self._stop, limit=self.limits.max_kernels, idle_s=self.limits.idle_timeout_s,
            noun="kernel", raise_limit=f"start the gateway with a higher --max-kernels (or {MAX_KERNELS_ENV})",
        )

    async def run(self, session: str, code: str, timeout_s: float | None = None) -> ExecutionResult:
        """Run one cell in the session's kernel, starting it first if needed.
        Raises KernelUnavailable, or SessionRefused when the gateway runs its limit of kernels."""
        async with self._live.use(session) as (kernel, note):
            result = await kernel.client.execute(code, timeout_s)
        if note is not None:
            result = result.model_copy(update={"restarted": True})
        warning = " ".join(filter(None, [note, result.warning, kernel.warning]))
        return result.model_copy(update={"warning": warning or None})

    async def end(self, session: str) -> None:
        """Stop a session's kernel (nothing happens for a session that never ran code)."""
        await self._live.end(session)

    async def close(self) -> None:
        await self._live.close()
        if self._pool is not None:
            await self._pool.close()

    async def _start(self, session: str, slot: int) -> _Kernel:
        entry = self._entry()
        if entry is None:
            raise KernelUnavailable(NO_KERNEL)
        name = "kernel" if slot == 0 else f"kernel-{slot + 1}"  # its log: kernel.log, kernel-2.log ...
        folder = None
        if starts_kernel_server(entry):
            assert isinstance(entry, StdioServerEntry)
            folder = self._folders().make(name)
            entry = private_workdir(entry, folder)
        pool = self._pool_with(name, entry)
        await pool.mount(name, entry)
        try:
            client = await KernelClient.connect(pool, name, trace=self.trace, timeout_s=self.cell_timeout_s,
                                                connect_timeout_s=self.connect_timeout_s)
            return _Kernel(name, client, await self._lake_warning(client), folder)
        except KernelUnavailable as exc:
            await self._forget(name, folder)
            hint = REMOTE_HINT if isinstance(entry, StdioServerEntry) else TOKEN_HINT.format(url=entry.url)
            raise KernelUnavailable(f"{exc} {hint}") from None
        except BaseException:
            await self._forget(name, folder)
            raise

    async def _stop(self, session: str, slot: int, kernel: _Kernel) -> None:
        await self._forget(kernel.name, kernel.folder)

    async def _forget(self, name: str, folder: Path | None) -> None:
        if self._pool is not None and name in self._pool.names:
            await self._pool.unmount(name)  # a stdio kernel server has exited when this returns
        if folder is not None:
            await asyncio.to_thread(self._folders().remove, folder)

    def _pool_with(self, name: str, entry: ServerEntry) -> ClientPool:
        if self._pool is None:
            log_dir = self.log_dir
            if log_dir is not None:
                try:
                    log_dir.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    log.warning("cannot make the log folder %s (%s): the kernels' logs go to stderr", log_dir, exc)
                    log_dir = None
            self._pool = ClientPool({name: entry}, trace=self.trace, log_dir=log_dir,
                                    connect_timeout_s=self.connect_timeout_s, forks_from=self._forks_from)
        return self._pool

    def _folders(self) -> KernelWorkdirs:
        if self._workdirs is None:
            self._workdirs = KernelWorkdirs(self._workdirs_base)
        return self._workdirs

    async def _lake_warning(self, kernel: KernelClient) -> str | None:
        if self.lake is None:
            return None
        mounted = (await kernel.policy()).lake
        if Path(mounted) == self.lake:
            return None
        return (f"this kernel mounts the lake at {mounted}, but the helpers' code reads it at {self.lake}: "
                f"start the kernel server with --lake {self.lake} and a copy of the lake at that path")
