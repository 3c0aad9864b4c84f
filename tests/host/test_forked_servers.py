"""Stdio servers forked from one fork server, through the ClientPool, over real MCP."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import anyio
import psutil
import pytest

from lakeboard.host.forked_servers import ForkServer, forked_module, shared_environment
from lakeboard.host.pool import ClientPool, ServerUnavailable, server_environment
from lakeboard.host.servers_config import parse_entry
from tests.support.servers import REPO, entries, python_spellings, toy_entry

pytestmark = pytest.mark.timeout(90)

REQUEST = {"request": "monthly sales", "reason": "test"}


async def whoami(pool: ClientPool, name: str) -> dict:
    return (await pool.call(name, "whoami", timeout_s=20)).json()


def gone(pid: int) -> bool:
    return not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


@pytest.mark.parametrize("fork", [True, False])
async def test_servers_of_this_python_are_forked_from_one_fork_server_where_pidfds_exist_and_stop_with_the_pool(
        fork: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Also what reaches each server's environment (and the fork server's): an allow-list, no token of the host."""
    if not fork:
        monkeypatch.delattr(os, "pidfd_open")  # as on macOS: no way to wait on a server that is not our child
    monkeypatch.setenv("OPENAI_API_KEY", "sk-host-secret")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "host-secret")
    monkeypatch.setenv("LAKEBOARD_TOY_FROM_HOST", "inherited")
    monkeypatch.setenv("LC_TIME", "C")
    tokens = {name: os.urandom(16).hex() for name in ("LAKEBOARD_AUTH_TOKEN", "LAKEBOARD_KERNEL_TOKEN")}
    for name, value in tokens.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LAKEBOARD_LLM_API_KEY", "sk-for-helpers-that-call-the-model")
    servers = entries(a=toy_entry("a", env={"BRAVE_API_KEY": "named-in-the-entry"}),
                      b=toy_entry("b", env={"LAKEBOARD_TOY_ONLY_B": "b"}),
                      broken={"command": sys.executable, "args": ["-m", "no_such_module_here"]})
    pool = ClientPool(servers, fork_servers=True, connect_timeout_s=20, log_dir=tmp_path)
    await pool.start()
    a, b = await whoami(pool, "a"), await whoami(pool, "b")
    parents = {psutil.Process(a["pid"]).ppid(), psutil.Process(b["pid"]).ppid()}
    if fork:
        (parent,) = parents
        assert parent != os.getpid() and "lakeboard.servers.fork_server" in psutil.Process(parent).cmdline()
    else:
        assert parents == {os.getpid()}, "servers were forked without pidfds"
    # the helpers' environments, and the fork server's
    environments = [psutil.Process(pid).environ() for pid in (a["pid"], b["pid"], *parents - {os.getpid()})]
    # Forked or not, each has its own entry's environment and no other's, on top of the host's allowed part.
    assert a["env"] == {"LAKEBOARD_TOY_FROM_HOST": "inherited"}
    assert b["env"] == {"LAKEBOARD_TOY_FROM_HOST": "inherited", "LAKEBOARD_TOY_ONLY_B": "b"}
    assert "BRAVE_API_KEY" not in b["env_names"]
    assert (await pool.call("a", "can_help", REQUEST, timeout_s=10)).structured["agent_name"] == "a"
    # A module that cannot be imported is recorded, with its own log saying why; the others start.
    assert pool.status("broken")["broken"].state == "dead"
    with pytest.raises(ServerUnavailable, match="'broken'"):
        await pool.call("broken", "can_help", REQUEST, timeout_s=5)
    await pool.close()
    assert gone(a["pid"]) and gone(b["pid"])
    if fork:
        assert gone(parent)
    assert "No module named no_such_module_here" in (tmp_path / "broken.log").read_text()
    # The allow-list: what running Python needs and Lakeboard's settings, plus what the entry names.
    names = set(a["env_names"])
    assert "OPENAI_API_KEY" not in names and "AWS_SECRET_ACCESS_KEY" not in names
    assert {"PATH", "HOME", "LC_TIME", "LAKEBOARD_TOY_FROM_HOST", "BRAVE_API_KEY"} <= names
    # Lakeboard's tokens reach neither the helpers nor the fork server; its model key does.
    assert len(environments) == (3 if fork else 2)
    for env in environments:
        assert not set(tokens) & set(env) and not set(tokens.values()) & set(env.values())
    assert "LAKEBOARD_LLM_API_KEY" in names


def test_when_the_host_is_killed_its_servers_and_fork_server_leave(tmp_path: Path) -> None:
    script = tmp_path / "host.py"
    script.write_text(textwrap.dedent(f"""
        import asyncio, json, sys
        sys.path.insert(0, {str(REPO)!r})
        from lakeboard.host.pool import ClientPool
        from tests.support.servers import entries, toy_entry

        async def main():
            pool = ClientPool(entries(a=toy_entry("a"), b=toy_entry("b")))
            await pool.start()
            pids = [(await pool.call(n, "whoami", timeout_s=20)).json()["pid"] for n in ("a", "b")]
            print(json.dumps(pids), flush=True)
            await asyncio.sleep(600)

        asyncio.run(main())
    """))
    host = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        pids = json.loads(host.stdout.readline())
        fork_server = psutil.Process(pids[0]).ppid()
        host.kill()
        host.wait()
        deadline = time.monotonic() + 15
        while not all(gone(p) for p in [*pids, fork_server]):
            assert time.monotonic() < deadline, "a server or the fork server outlived its host"
            time.sleep(0.1)
    finally:
        host.kill()
        host.stdout.close()


def test_only_python_dash_m_entries_of_this_python_are_forked(tmp_path: Path) -> None:
    def entry(command: str, *args: str):
        return parse_entry("x", {"command": command, "args": list(args)})

    assert forked_module(entry(sys.executable, "-m", "lakeboard.servers.file_agent", "--cluster", "a")) == "lakeboard.servers.file_agent"
    assert forked_module(entry(sys.executable, "script.py")) is None
    assert forked_module(entry(sys.executable, "-X", "importtime", "-m", "lakeboard.servers.file_agent")) is None
    assert forked_module(entry(sys.executable, "-m")) is None
    assert forked_module(entry("node", "-m", "server")) is None
    # A virtualenv's python links to this one, yet has other packages: its pyvenv.cfg says so.
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"home = {Path(sys.executable).parent}\n")
    (venv / "bin" / "python").symlink_to(sys.executable)
    assert forked_module(entry(str(venv / "bin" / "python"), "-m", "lakeboard.servers.file_agent")) is None


def test_every_spelling_of_this_python_is_forked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `lakeboard index` and a user's hand-written entry may spell it `python`, `python3` or by path.
    bin_folder = python_spellings(tmp_path)
    monkeypatch.setenv("PATH", str(bin_folder))
    for command in ("python", "python3", str(bin_folder / "python3"), sys.executable):
        entry = parse_entry("x", {"command": command, "args": ["-m", "lakeboard.servers.file_agent"]})
        assert forked_module(entry) == "lakeboard.servers.file_agent", command


def test_the_fork_server_imports_under_what_every_entry_sets_alike() -> None:
    assert shared_environment([{"A": "1", "B": "2"}, {"A": "1", "B": "3"}, {"A": "1"}]) == {"A": "1"}
    assert shared_environment([]) == {}


async def test_many_servers_start_through_one_fork_server_which_restarts_them_and_is_restarted() -> None:
    """Also: forked sessions skip mcp's JSON-schema check of results; the blackboard's pydantic check
    still reports a result that breaks the contract, in each phase."""
    from lakeboard.host.blackboard import Blackboard
    from lakeboard.schemas.messages import BlackboardRequest

    names = [f"s{i}" for i in range(3)]  # with the two below, enough to start side by side; the count is not tested
    servers = entries(**{n: toy_entry(n) for n in names}, asks=toy_entry("asks", "--bad-output-on", "can_help"),
                      answers=toy_entry("answers", "--bad-output-on", "respond"))
    async with ClientPool(servers, fork_servers=True) as pool:
        answers = await asyncio.gather(*(pool.call(n, "can_help", REQUEST, timeout_s=30) for n in names))
        assert [a.structured["agent_name"] for a in answers] == names
        pids = {n: (await whoami(pool, n))["pid"] for n in [*names, "asks", "answers"]}
        parents = {psutil.Process(p).ppid() for p in pids.values()}
        assert len(set(pids.values())) == len(pids) and len(parents) == 1, "not one fork server for all"
        (parent,) = parents
        assert "lakeboard.servers.fork_server" in psutil.Process(parent).cmdline()

        posting = await Blackboard(pool).post(BlackboardRequest(request="monthly sales"))
        errors = {o.helper: (o.error.phase, o.error.kind) for o in posting.errors if o.error}
        assert errors == {"asks": ("can_help", "invalid_output"), "answers": ("respond", "invalid_output")}
        assert "HelpDecision" in posting.outcome("asks").error.message
        assert [o.helper for o in posting.responses] == names

        # A forked server killed is restarted; the others live on.
        os.kill(pids["s0"], signal.SIGKILL)
        await asyncio.sleep(0.3)  # the end of its socket tells the pool; the next call waits for the restart
        result = await pool.call("s0", "can_help", REQUEST, timeout_s=30)
        assert result.structured["agent_name"] == "s0"
        restarted = (await whoami(pool, "s0"))["pid"]
        assert restarted != pids["s0"] and psutil.Process(restarted).ppid() in parents
        assert {n: (await whoami(pool, n))["pid"] for n in names[1:]} == {n: pids[n] for n in names[1:]}

        # A dead fork server is started again for the next server.
        fork_server = psutil.Process(parents.pop())
        fork_server.kill()
        os.kill(pids["s1"], signal.SIGKILL)
        await asyncio.sleep(0.3)
        result = await pool.call("s1", "can_help", REQUEST, timeout_s=30)
        assert result.structured["agent_name"] == "s1"
        again = await whoami(pool, "s1")
        assert psutil.Process(again["pid"]).ppid() not in (fork_server.pid, os.getpid())


async def test_a_start_cut_short_leaves_the_fork_server_in_step(tmp_path: Path) -> None:
    # The first start is cancelled while the fork server is still importing: its reply must
    # still be read with it, or the next start would be handed the first one's server.
    # Preloading nothing, it still imports fastmcp for its rehearsal call: far longer than 0.05 s.
    fork_server = ForkServer([], server_environment({}))
    try:
        first, theirs = socket.socketpair()
        with first, theirs, anyio.move_on_after(0.05):
            await fork_server.spawn("tests.support.run_context", [], {"PYTHONPATH": str(REPO)}, str(REPO), theirs, 2)
        second, theirs = socket.socketpair()
        with theirs:
            pid, pidfd = await fork_server.spawn("tests.support.run_context", ["second"], {"PYTHONPATH": str(REPO)},
                                                str(REPO), theirs, 2)
        with second, second.makefile("r") as channel:
            context = json.loads(channel.readline())
        os.close(pidfd)
        assert context["argv"] == ["second"] and context["pid"] == pid
    finally:
        await fork_server.close()


async def test_a_server_whose_caller_gave_up_before_the_fork_server_answered_is_stopped(tmp_path: Path) -> None:
    """A connect timeout shorter than the fork server's own start (it imports fastmcp first): the
    helper is forked after its client gave up, and must not outlive the pool (it ignores the end
    of its stdin, so it is stopped with signals)."""
    name = f"mute-{os.getpid()}-{time.monotonic_ns()}"

    def forked() -> list[psutil.Process]:
        out = []
        for p in psutil.process_iter():
            try:
                if name in p.cmdline() and p.status() != psutil.STATUS_ZOMBIE:
                    out.append(p)
            except psutil.Error:
                pass
        return out

    pool = ClientPool(entries(mute=toy_entry(name, "--mute")), fork_servers=True, connect_timeout_s=0.2,
                      log_dir=tmp_path)
    async with pool:
        status = (await pool.start())["mute"]
        assert status.state == "dead" and "no answer within 0.2s" in status.last_error
        with anyio.fail_after(30):  # the fork server forks it once its imports are done
            while not (late := forked()):
                await anyio.sleep(0.02)
    assert all(gone(p.pid) for p in late)
