"""Something costly kept per client session (a kernel): started on first use, at most `limit`
alive at once, stopped after `idle_s` unused, and stopped when its session ends.

    kernels = LiveSessions(start, stop, limit=4, idle_s=1800, noun="kernel", raise_limit="set ...")
    async with kernels.use(session) as (kernel, note):   # note: it had been stopped for idleness
        ...
    await kernels.end(session)
    await kernels.close()

Each live one holds a slot number below `limit`, which names what it leaves behind (a log
file, a folder), so that stays bounded too. A session over the limit is refused with a
sentence (`SessionRefused`); nothing waits in a queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")
REAP_EVERY_MAX_S = 30.0


class SessionRefused(RuntimeError):
    """No room for another session's kernel; the message says what to do."""


@dataclass
class _Live(Generic[T]):
    slot: int
    task: asyncio.Task[T]
    last_used: float = field(default_factory=time.monotonic)
    in_use: int = 0


def duration(seconds: float) -> str:
    """`seconds` as people say it: '45 s', '30 min', '2 h'."""
    if seconds < 120:
        return f"{seconds:g} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h".replace(".0 h", " h")


class LiveSessions(Generic[T]):
    def __init__(
        self,
        start: Callable[[str, int], Awaitable[T]],
        stop: Callable[[str, int, T], Awaitable[None]],
        *,
        limit: int,
        idle_s: float | None,
        noun: str = "kernel",
        raise_limit: str = "",
    ) -> None:
        """start(key, slot) makes one; stop(key, slot, it) ends it. `raise_limit` says how to
        allow more (e.g. 'start the server with --max-kernels N')."""
        self._start, self._stop = start, stop
        self.limit, self.idle_s, self.noun, self.raise_limit = limit, idle_s, noun, raise_limit
        self._live: dict[str, _Live[T]] = {}
        self._idled: dict[str, float] = {}  # sessions whose kernel was stopped for idleness
        self._reaper: asyncio.Task[None] | None = None

    @property
    def alive(self) -> int:
        return len(self._live)

    def open(self, key: str) -> None:
        """Start a session's one in the background, so its first use waits less. Raises SessionRefused."""
        if key not in self._live:
            self._open(key)

    @contextlib.asynccontextmanager
    async def use(self, key: str) -> AsyncIterator[tuple[T, str | None]]:
        """The session's one (started first if needed), and a sentence if an earlier one was
        stopped for idleness. It is not idle while in use. Raises SessionRefused, or what start raised."""
        live = self._live.get(key)
        if live is None:
            live = self._open(key)
        live.in_use += 1
        try:
            try:
                value = await asyncio.shield(live.task)
            except BaseException:
                if live.task.done() and self._live.get(key) is live:
                    del self._live[key]  # it did not start: the next use tries again
                raise
            idled = self._idled.pop(key, None)
            note = None if idled is None else (
                f"This session's {self.noun} was stopped after {duration(idled)} without use, to free what it "
                f"held; a fresh {self.noun} was started, so earlier variables are gone."
            )
            yield value, note
        finally:
            live.in_use -= 1
            live.last_used = time.monotonic()

    async def end(self, key: str) -> None:
        """Stop a session's one (nothing happens for a session that has none)."""
        self._idled.pop(key, None)
        await self._close(key)

    async def close(self) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
        await asyncio.gather(*(self._close(k) for k in list(self._live)), return_exceptions=True)
        self._idled.clear()

    def _open(self, key: str) -> _Live[T]:
        if len(self._live) >= self.limit:
            wait = f", or wait until an idle one is stopped (after {duration(self.idle_s)} unused)" if self.idle_s else ""
            more = f"; or {self.raise_limit}" if self.raise_limit else ""
            raise SessionRefused(
                f"No {self.noun} can be started for this session: {self.limit} {self.noun}s are running already, "
                f"one per client session, which is the limit. End a session you no longer use{wait}{more}."
            )
        used = {live.slot for live in self._live.values()}
        slot = next(n for n in range(self.limit) if n not in used)
        live: _Live[T] = _Live(slot, asyncio.ensure_future(self._start(key, slot)))
        self._live[key] = live
        if self.idle_s is not None and self._reaper is None:
            self._reaper = asyncio.ensure_future(self._reap())
        return live

    async def _close(self, key: str) -> None:
        live = self._live.pop(key, None)
        if live is None:
            return
        try:
            value = await live.task
        except BaseException:  # it never started (or was cancelled): nothing to stop
            return
        try:
            await self._stop(key, live.slot, value)
        except Exception:  # noqa: BLE001 - one that will not stop must not keep the others
            log.exception("could not stop the %s of session %s", self.noun, key)

    async def _reap(self) -> None:
        assert self.idle_s is not None
        every = min(REAP_EVERY_MAX_S, max(0.05, self.idle_s / 4))
        while True:
            await asyncio.sleep(every)
            now = time.monotonic()
            for key, live in list(self._live.items()):
                if live.in_use or not live.task.done() or now - live.last_used < self.idle_s:
                    continue
                log.info("stopping the %s of session %s: unused for %s", self.noun, key, duration(now - live.last_used))
                self._idled[key] = self.idle_s
                await self._close(key)
