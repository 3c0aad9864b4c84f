"""The kernel server's kernels by client session.

Over stdio the process has one client, and one kernel working in --workdir. Over HTTP every
client session gets its own kernel, working in its own folder inside --workdir (made
owner-only, removed when the session ends): no session sees another's variables or files.
A call without a session (2026-era, stateless) is refused rather than given a shared
kernel. At most --max-kernels run at once, and a session's kernel unused for
--idle-timeout-s is stopped (its next call gets a fresh one, and says so).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
from collections.abc import AsyncIterator
from pathlib import Path

from fastmcp import Context
from fastmcp.exceptions import ResourceError, ToolError

from lakeboard.common.client_sessions import NO_SESSION, PROCESS, client_session, when_session_ends
from lakeboard.common.live_sessions import LiveSessions, SessionRefused
from lakeboard.servers.kernel.config import KernelConfig
from lakeboard.servers.kernel.processes import orphaned
from lakeboard.servers.kernel.session import KernelSession
from lakeboard.servers.kernel.workdir_usage import remove_folder

log = logging.getLogger(__name__)

SESSION_PREFIX = "lakeboard-session-"  # + server pid: folders of servers that died unannounced are removed

__all__ = ["PROCESS", "SessionKernels"]


class SessionKernels:
    def __init__(self, config: KernelConfig, *, per_session: bool) -> None:
        self.config = config
        self.per_session = per_session
        self.live: LiveSessions[KernelSession] = LiveSessions(
            self._start, self._stop,
            limit=config.max_kernels if per_session else 1,
            idle_s=config.idle_timeout_s if per_session else None,
            noun="kernel", raise_limit="start the kernel server with a higher --max-kernels",
        )
        if per_session:
            _remove_stale_folders(config.workdir)

    def open(self, key: str) -> None:
        self.live.open(key)

    @contextlib.asynccontextmanager
    async def use(self, ctx: Context, resource: bool = False) -> AsyncIterator[tuple[KernelSession, str | None]]:
        """The kernel of the call's session, and a sentence if an earlier one was stopped for idleness."""
        refuse = ResourceError if resource else ToolError
        key = client_session(ctx)
        if key is None:
            raise refuse(NO_SESSION.format(what="kernel and its workdir"))
        when_session_ends(ctx, key, self.live.end)
        try:
            async with self.live.use(key) as (session, note):
                yield session, note
        except SessionRefused as exc:  # raised on entering only
            raise refuse(str(exc)) from None

    async def close(self) -> None:
        await self.live.close()

    async def _start(self, key: str, slot: int) -> KernelSession:
        config = self.config
        if self.per_session:
            folder = config.workdir / f"{SESSION_PREFIX}{os.getpid()}-{slot}-{secrets.token_hex(4)}"
            folder.mkdir(mode=0o700)
            config = config.model_copy(update={"workdir": folder})
        session = KernelSession(config)
        session.start_in_background()
        return session

    async def _stop(self, key: str, slot: int, session: KernelSession) -> None:
        await session.shutdown()
        if self.per_session:
            await asyncio.to_thread(remove_folder, session.config.workdir)


def _remove_stale_folders(workdir: Path) -> None:
    """Delete the session folders of kernel servers that are gone (killed, or SIGTERM)."""
    for path in orphaned(workdir, SESSION_PREFIX):
        try:
            if path.is_dir() and not path.is_symlink() and path.stat().st_uid == os.getuid():
                remove_folder(path)
        except OSError as exc:
            log.warning("could not remove the stale session folder %s: %s", path, exc)
