"""ClientPool against real MCP servers over stdio and streamable HTTP.

Protocol behaviour (tool errors, timeouts, slow-marking, sampling) is checked against toy servers
run in memory; process death, restarts, environments and the transports against real processes.
The allow-list of a stdio server's environment is checked with the fork server (test_forked_servers.py),
forked and not, where the same servers start anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
import pytest_asyncio
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from lakeboard.host import pool as pool_module
from lakeboard.host.pool import (
    ClientPool,
    InMemoryServer,
    ServerDied,
    ServerTimeout,
    ServerUnavailable,
    ToolFailed,
    ToolMissing,
)
from lakeboard.host.servers_config import load_servers
from lakeboard.host.trace import Trace
from tests.support.sampling_server import mcp as sampling_server
from tests.support.servers import entries, free_port, http_toy, toy_entry
from tests.support.toy_helper import build_server, parse_args

pytestmark = pytest.mark.timeout(90)

REQUEST = {"request": "monthly sales", "reason": "test"}


def memory_toy(name: str, *flags: str) -> InMemoryServer:
    """The toy helper, run in this process: for what the pool does with its answers, not with its process."""
    return InMemoryServer(build_server(parse_args(["--name", name, *flags])))


async def pid_of(pool: ClientPool, name: str) -> int:
    return (await pool.call(name, "whoami", timeout_s=10)).json()["pid"]


async def wait_until(predicate, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.05)


# Helpers of the shared pool below; each test uses its own, so they do not disturb each other.
QUIET_HELPERS = ("bad", "slow", "held", "hangs", "stuck", "idle_a", "idle_b", "mid")


@pytest.fixture(scope="module")
def search_web() -> Iterator[str]:
    """A toy search helper over streamable HTTP, for the tests that only call it; yields its URL."""
    with http_toy("web", "--kind", "search") as (url, _process):
        yield url


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def shared(tmp_path_factory: pytest.TempPathFactory):
    """One pool of toy helpers, each misbehaving in its own way, started once for the tests that use it.

    Yields (pool, trace, hold): `held` answers can_help and respond only once the file `hold` is gone.
    The helpers whose answers are tested run in memory; those whose process is tested are real.
    """
    hold = tmp_path_factory.mktemp("pool") / "hold"
    hold.touch()
    servers = {
        "bad": memory_toy("bad", "--error-on", "respond"),
        "slow": memory_toy("slow", "--hang-on", "can_help"),
        "held": memory_toy("held", "--hold-while", str(hold)),
        "hangs": memory_toy("hangs", "--hang-on", "can_help"),
        **entries(
            stuck=toy_entry("stuck"),  # stopped by its test (SIGSTOP): it cannot even answer tools/list
            idle_a=toy_entry("idle_a"),
            idle_b=toy_entry("idle_b"),
            mid=toy_entry("mid", "--delay-ms", "2000"),
        ),
    }
    trace = Trace()
    async with ClientPool(servers, trace=trace, health_timeout_s=1, connect_timeout_s=120) as pool:
        assert pool.helpers == list(QUIET_HELPERS)
        yield pool, trace, hold


@pytest.fixture
def probes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, bool]]:
    """Every health check the pool makes from now on, as (server, what was asked, whether it answered).

    Lets a test wait for the pool's own probe or ping instead of sleeping past it.
    """
    seen: list[tuple[str, str, bool]] = []
    checked = ClientPool._answers

    async def recorded(self, member, client, request, what, state) -> bool:
        answered = await checked(self, member, client, request, what, state)
        seen.append((member.name, what, answered))
        return answered

    monkeypatch.setattr(ClientPool, "_answers", recorded)
    return seen


def server_events(trace: Trace, server: str) -> list[str]:
    return [e.kind for e in trace.events if e.server == server and e.kind.startswith("server_")]


@pytest.mark.parametrize("mode", ["legacy", "auto"])  # handshake era, and 2026 era where both ends speak it
async def test_stdio_and_http_servers_in_one_pool(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, search_web: str) -> None:
    monkeypatch.setenv("LAKEBOARD_TOY_FROM_HOST", "inherited")
    # A lake's config: servers.json, plus a partition mounted by dropping a file in servers.d/.
    config_dir = tmp_path / "configs" / "lake"
    (config_dir / "servers.d").mkdir(parents=True)
    main = {
        "local": toy_entry("local", env={"LAKEBOARD_TOY_FROM_ENTRY": "mine"}),
        "kernel": toy_entry("kernel", "--not-helper"),
    }
    (config_dir / "servers.json").write_text(json.dumps({"mcpServers": main}))
    (config_dir / "servers.d" / "web.json").write_text(json.dumps({"mcpServers": {"web": {"url": search_web}}}))
    servers = load_servers(config_dir)
    trace = Trace()
    pool = ClientPool(servers, trace=trace, log_dir=tmp_path / "logs", mode=mode)
    async with pool:
        era = MODERN_PROTOCOL_VERSIONS if mode == "auto" else HANDSHAKE_PROTOCOL_VERSIONS
        assert all(pool.client(name).protocol_version in era for name in pool.names)
        status = pool.status()
        assert {n: s.state for n, s in status.items()} == {"local": "ready", "kernel": "ready", "web": "ready"}
        assert status["web"].transport == "http" and status["local"].transport == "stdio"
        assert pool.helpers == ["local", "web"]  # the kernel lists no can_help
        assert pool.names == ["local", "kernel", "web"]

        local, web = await asyncio.gather(
            pool.call("local", "can_help", REQUEST, timeout_s=10),
            pool.call("web", "respond", REQUEST, timeout_s=10),
        )
        assert local.structured == {
            "agent_name": "local",
            "can_help": True,
            "reason": "local saw: monthly sales",
            "confidence": 0.5,
        }
        assert web.structured["answer"] == "web found it"

        # Stdio servers get the host's environment plus their entry's env, in their cwd.
        me = (await pool.call("local", "whoami", timeout_s=10)).json()
        assert me["env"] == {"LAKEBOARD_TOY_FROM_HOST": "inherited", "LAKEBOARD_TOY_FROM_ENTRY": "mine"}
        assert me["cwd"] == servers.servers["local"].cwd
        server_pids = [me["pid"], await pid_of(pool, "kernel")]

        # The session stays open across requests: the same process answers again.
        assert await pid_of(pool, "local") == me["pid"]
    # Closing the pool stopped every stdio server it started, and it takes no more calls.
    for pid in server_pids:
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE, pid
    assert {s.state for s in pool.status().values()} == {"closed"}
    with pytest.raises(ServerUnavailable, match="pool is closed"):
        await pool.call("local", "can_help", REQUEST)
    assert (tmp_path / "logs" / "local.log").exists()
    assert sorted(e.server for e in trace.events if e.kind == "server_started") == ["kernel", "local", "web"]


@pytest.mark.asyncio(loop_scope="module")
async def test_tool_errors_and_missing_tools_leave_the_server_alone(shared) -> None:
    pool, _, _ = shared
    client = pool.client("bad")
    with pytest.raises(ToolFailed, match="bad failed on purpose in respond") as info:
        await pool.call("bad", "respond", REQUEST, timeout_s=10)
    assert info.value.kind == "tool_error" and info.value.server == "bad"
    with pytest.raises(ToolMissing, match="has no tool 'run_code'"):
        await pool.call("bad", "run_code", {}, timeout_s=10)
    with pytest.raises(KeyError, match="no server named 'nobody'.*known servers: bad"):
        await pool.call("nobody", "can_help", REQUEST)
    # The same session serves on: no restart replaced it.
    assert pool.client("bad") is client and (await pool.call("bad", "can_help", REQUEST, timeout_s=10)).structured
    assert pool.status("bad")["bad"].restarts == 0


@pytest.mark.asyncio(loop_scope="module")
async def test_a_hung_call_times_out_and_the_server_keeps_serving(shared, probes) -> None:
    pool, _, _ = shared
    client = pool.client("slow")
    started = time.monotonic()
    with pytest.raises(ServerTimeout, match="did not answer can_help within 0.5s"):
        await pool.call("slow", "can_help", REQUEST, timeout_s=0.5)
    # The call's 0.5 s, not the pool's 60 s default (the server never answers); wide for load.
    assert time.monotonic() - started < 10
    # The pool's health probe after the timeout (a tools/list) is answered: the server is kept.
    await wait_until(lambda: any(p[:2] == ("slow", "a tools/list") for p in probes))
    assert ("slow", "a tools/list", True) in probes
    assert pool.status("slow")["slow"].restarts == 0
    assert pool.client("slow") is client and (await pool.call("slow", "whoami", timeout_s=10)).json()["name"] == "slow"


@pytest.mark.asyncio(loop_scope="module")
async def test_a_server_that_timed_out_is_slow_until_its_late_answer_came_and_it_answers_a_ping(
        shared, probes) -> None:
    pool, trace, hold = shared
    assert pool.slow("held") is None
    with pytest.raises(ServerTimeout):
        await pool.call("held", "can_help", REQUEST, timeout_s=0.5)
    assert pool.slow("held") == "it did not answer can_help within 0.5 s"
    assert pool.status("held")["held"].slow == pool.slow("held")
    # It answers pings all along, but its abandoned call has not returned: it stays slow.
    await wait_until(lambda: ("held", "a ping", True) in probes)
    assert pool.slow("held") is not None and pool.status("held")["held"].restarts == 0
    hold.unlink()
    await wait_until(lambda: pool.slow("held") is None, timeout_s=40)
    assert (await pool.call("held", "can_help", REQUEST, timeout_s=10)).structured["agent_name"] == "held"
    assert server_events(trace, "held") == ["server_started", "server_slow", "server_recovered"]


@pytest.mark.asyncio(loop_scope="module")
async def test_a_slow_server_whose_late_answer_never_comes_is_restarted(
        shared, monkeypatch: pytest.MonkeyPatch) -> None:
    pool, _, _ = shared
    monkeypatch.setattr(pool_module, "_LATE_ANSWER_LIMIT_S", 0.5)  # read when the server is marked slow
    client = pool.client("hangs")
    with pytest.raises(ServerTimeout):
        await pool.call("hangs", "can_help", REQUEST, timeout_s=0.5)
    assert pool.slow("hangs") is not None
    await wait_until(lambda: pool.status("hangs")["hangs"].restarts == 1, timeout_s=40)
    # A new session, which owes no late answer (a restarted process: the "stuck" test below).
    assert pool.slow("hangs") is None and pool.client("hangs") is not client
    assert (await pool.call("hangs", "whoami", timeout_s=10)).json()["name"] == "hangs"


@pytest.mark.asyncio(loop_scope="module")
async def test_a_server_that_stops_answering_entirely_is_restarted(shared) -> None:
    pool, trace, _ = shared
    pid = await pid_of(pool, "stuck")

    def died() -> list:
        return [e for e in trace.events if e.kind == "server_died" and e.server == "stuck"]

    # Stopped, it answers nothing, not even tools/list, like a wedged process; unlike a busy
    # loop it spends no CPU while the pool waits out its timeouts.
    os.kill(pid, signal.SIGSTOP)
    try:
        with pytest.raises(ServerTimeout):
            await pool.call("stuck", "can_help", REQUEST, timeout_s=0.5)
        await wait_until(lambda: bool(died()))
    finally:
        # Once the pool has given up on it: resumed, it ends on the end of its stdin (the
        # pool's first step in stopping it) instead of waiting for the pool's SIGKILL.
        with contextlib.suppress(ProcessLookupError):  # already gone is what the test wants anyway
            os.kill(pid, signal.SIGCONT)
    await wait_until(lambda: pool.status("stuck")["stuck"].restarts == 1)
    assert await pid_of(pool, "stuck") != pid
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    assert "unresponsive after a timeout" in died()[0].data["error"]


@pytest.mark.asyncio(loop_scope="module")
async def test_a_server_killed_while_idle_is_restarted_by_the_next_call(shared) -> None:
    pool, _, _ = shared
    pid = await pid_of(pool, "idle_a")
    os.kill(pid, signal.SIGKILL)
    await asyncio.sleep(0.3)
    result = await pool.call("idle_a", "can_help", REQUEST, timeout_s=30)  # waits for the restart
    assert result.structured["agent_name"] == "idle_a"
    assert await pid_of(pool, "idle_a") != pid
    assert pool.status("idle_a")["idle_a"].restarts == 1 and pool.status("idle_b")["idle_b"].restarts == 0


@pytest.mark.asyncio(loop_scope="module")
async def test_a_server_killed_mid_call_is_reported_dead_then_restarted(shared) -> None:
    pool, trace, _ = shared
    pid = await pid_of(pool, "mid")
    call = asyncio.ensure_future(pool.call("mid", "can_help", REQUEST, timeout_s=60))
    await asyncio.sleep(0.3)
    os.kill(pid, signal.SIGKILL)
    started = time.monotonic()
    with pytest.raises(ServerDied, match="server 'mid' died during can_help"):
        await call
    # Noticed when it died, not at the 60 s timeout (a bound far from both, for a loaded machine).
    assert time.monotonic() - started < 60 / 2
    await wait_until(lambda: pool.status("mid")["mid"].state == "ready")
    assert await pid_of(pool, "mid") != pid
    assert server_events(trace, "mid") == ["server_started", "server_died", "server_restarted"]


async def test_servers_that_cannot_start_are_recorded_not_raised(tmp_path: Path) -> None:
    crashing = tmp_path / "crash.py"
    crashing.write_text("import sys; sys.exit(5)\n")
    servers = {
        "ok": memory_toy("ok"),  # in memory: no fork server to start for the only server that works
        **entries(
            missing={"command": str(tmp_path / "no-such-program")},
            crash={"command": sys.executable, "args": [str(crashing)]},
            offline={"url": f"http://127.0.0.1:{free_port()}/mcp"},
        ),
    }
    trace = Trace()
    async with ClientPool(servers, trace=trace, connect_timeout_s=20) as pool:
        status = pool.status()
        assert status["ok"].state == "ready"
        for name in ("missing", "crash", "offline"):
            assert status[name].state == "dead", name
            assert status[name].last_error.startswith("could not connect"), status[name].last_error
        assert pool.unconnected == ["missing", "crash", "offline"]
        assert pool.helpers == ["ok"]
        await asyncio.sleep(0.5)  # the first backoff after a fast failure
        # A call retries the start (once its backoff has passed) and says why it failed...
        with pytest.raises(ServerUnavailable, match="'missing'.*No such file or directory"):
            await pool.call("missing", "can_help", REQUEST, timeout_s=10)
        # ...and right after a failure the server is in backoff: refused at once, without
        # trying to start it again.
        attempts = [e for e in trace.events if e.kind == "server_failed" and e.server == "missing"]
        with pytest.raises(ServerUnavailable, match="'missing' is down .*next restart attempt"):
            await pool.call("missing", "can_help", REQUEST, timeout_s=10)
        assert [e for e in trace.events if e.kind == "server_failed" and e.server == "missing"] == attempts
        assert len(attempts) == 2  # at the pool's start and at the first call


async def test_http_server_that_went_away_is_reconnected_when_it_returns() -> None:
    port = free_port()
    with http_toy("web", port=port) as (url, process):
        async with ClientPool(entries(web={"url": url})) as pool:
            assert (await pool.call("web", "can_help", REQUEST, timeout_s=10)).structured["agent_name"] == "web"
            process.kill()
            process.wait()
            with pytest.raises(ServerDied):
                await pool.call("web", "can_help", REQUEST, timeout_s=10)
            with http_toy("web2", port=port):  # the same URL comes back (another process)
                # The background reconnect may have run while the server was down (and be in
                # backoff now); an explicit restart reconnects at once either way.
                await wait_until(lambda: pool.status("web")["web"].state != "restarting")
                status = await pool.restart("web")
                assert status.state == "ready" and status.restarts >= 1
                result = await pool.call("web", "can_help", REQUEST, timeout_s=10)
                assert result.structured["agent_name"] == "web2"


async def test_servers_borrow_the_host_model_through_the_pools_sampling_handler() -> None:
    asked: list[tuple[str, str]] = []

    def handler_for(name: str):
        async def answer(messages, params, context) -> str:
            asked.append((name, messages[-1].content.text))
            return f"{name} model says hi"

        return answer

    # In memory: the handler is the pool's; MCP carries the request the same way over any transport.
    servers = {"lent": InMemoryServer(sampling_server), "offline": InMemoryServer(sampling_server)}
    async with ClientPool(servers, sampling_handler={"lent": handler_for("lent")}) as pool:
        result = await pool.call("lent", "ask", {"question": "ready?"}, timeout_s=20)
        assert result.structured["text"] == "lent model says hi" and result.structured["era"] == "handshake"
        assert asked == [("lent", "ready?")]
        # A server without a handler is told sampling is not supported.
        with pytest.raises(ToolFailed, match="Sampling not supported"):
            await pool.call("offline", "ask", {"question": "ready?"}, timeout_s=20)
        assert pool.status("offline")["offline"].state == "ready"


async def test_a_server_silent_before_the_handshake_is_not_tried_again_within_the_timeout() -> None:
    trace = Trace()
    # A process that starts and never says a word (as the toy's --mute does, without importing fastmcp
    # or starting a fork server first).
    mute = {"command": sys.executable, "args": ["-c", "import time; time.sleep(3600)"]}
    async with ClientPool(entries(mute=mute), trace=trace, connect_timeout_s=1.5) as pool:
        assert pool.status("mute")["mute"].last_error == "could not connect: no answer within 1.5s"
        await asyncio.sleep(0.75)  # past the shortest backoff (0.5 s), which suits a server that failed fast
        with pytest.raises(ServerUnavailable, match="'mute' is down .*next restart attempt"):
            await pool.call("mute", "can_help", REQUEST, timeout_s=3)
    assert [e.kind for e in trace.events] == ["server_failed"]
