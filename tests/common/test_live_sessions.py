"""LiveSessions: one thing per session, a cap with a sentence, idle ones stopped, failed starts retried."""

from __future__ import annotations

import asyncio

import pytest

from lakeboard.common.live_sessions import LiveSessions, SessionRefused


class Things:
    """Starts and stops numbered things, recording what happened."""

    def __init__(self, fail_first: bool = False) -> None:
        self.started: list[tuple[str, int]] = []
        self.stopped: list[tuple[str, int]] = []
        self.fail_first = fail_first

    async def start(self, key: str, slot: int) -> str:
        await asyncio.sleep(0)
        if self.fail_first:
            self.fail_first = False
            raise RuntimeError("could not start")
        self.started.append((key, slot))
        return f"{key}@{slot}"

    async def stop(self, key: str, slot: int, value: str) -> None:
        self.stopped.append((key, slot))


async def test_the_cap_refuses_with_a_sentence_and_frees_slots() -> None:
    things = Things()
    live = LiveSessions(things.start, things.stop, limit=2, idle_s=None, raise_limit="pass --max-kernels N")
    async with live.use("a") as (a, note):
        assert a == "a@0" and note is None
    async with live.use("b") as (b, _):
        assert b == "b@1"
    with pytest.raises(SessionRefused, match=r"2 kernels are running already.*or pass --max-kernels N\."):
        async with live.use("c"):
            pass
    await live.end("a")
    async with live.use("c") as (c, _):
        assert c == "c@0"  # the lowest free slot: what a slot names stays bounded
    await live.close()
    assert sorted(things.stopped) == [("a", 0), ("b", 1), ("c", 0)]


async def test_an_idle_one_is_stopped_and_the_next_use_says_so() -> None:
    things = Things()
    live = LiveSessions(things.start, things.stop, limit=1, idle_s=0.2)
    async with live.use("a") as (_, note):
        assert note is None
        await asyncio.sleep(0.5)  # in use: never idle
    assert things.stopped == []
    await asyncio.sleep(0.6)
    assert things.stopped == [("a", 0)] and live.alive == 0
    async with live.use("a") as (value, note):
        assert value == "a@0" and note is not None and "stopped after 0.2 s without use" in note
    async with live.use("a") as (_, note):
        assert note is None
    await live.close()


async def test_a_failed_start_is_tried_again() -> None:
    things = Things(fail_first=True)
    live = LiveSessions(things.start, things.stop, limit=1, idle_s=None)
    with pytest.raises(RuntimeError, match="could not start"):
        async with live.use("a"):
            pass
    assert live.alive == 0
    async with live.use("a") as (value, _):
        assert value == "a@0"
    await live.close()
