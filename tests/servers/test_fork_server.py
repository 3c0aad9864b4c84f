"""The fork server (`python -m lakeboard.servers.fork_server`) over its real control socket."""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest

from lakeboard.common.child_processes import SAFE_FOLDER, python_module_command

pytestmark = pytest.mark.timeout(60)

REPO = Path(__file__).resolve().parents[2]
MODULE = "tests.support.run_context"


@contextmanager
def fork_server(*preload: str) -> Iterator[tuple[socket.socket, subprocess.Popen[bytes]]]:
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    # As the host starts it: -P, from a safe folder; the test modules come from PYTHONPATH.
    process = subprocess.Popen(
        python_module_command("lakeboard.servers.fork_server", "--control-fd", str(theirs.fileno()), *preload),
        pass_fds=[theirs.fileno()], cwd=SAFE_FOLDER, env={**os.environ, "PYTHONPATH": str(REPO)},
        stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
    theirs.close()
    try:
        yield ours, process
    finally:
        ours.close()
        try:
            process.wait(timeout=20)
        finally:
            process.kill()
            process.stderr.close()


@pytest.fixture(scope="module")
def shared_fork_server() -> Iterator[tuple[socket.socket, subprocess.Popen[bytes]]]:
    """One fork server (preloading the context module) for the tests that only start servers through it."""
    with fork_server(MODULE) as started:
        yield started


def ask(control: socket.socket, request: object, fds: list[int]) -> tuple[dict, list[int]]:
    payload = request if isinstance(request, bytes) else json.dumps(request).encode()
    socket.send_fds(control, [payload], fds)
    data, got, _flags, _addr = socket.recv_fds(control, 1 << 16, 1)
    return json.loads(data), got


def start(control: socket.socket, tmp_path: Path, *, args: list[str], env: dict[str, str], cwd: str | None):
    """Start the context module: our end of its stdio, its stderr file, its pid and pidfd."""
    ours, theirs = socket.socketpair()
    stderr = tmp_path / "stderr.log"
    with stderr.open("ab") as log:
        reply, fds = ask(control, {"module": MODULE, "args": args, "env": env, "cwd": cwd},
                         [theirs.fileno(), log.fileno()])
    theirs.close()
    return ours, stderr, reply, fds


def exited(pidfd: int, timeout_s: float = 10.0) -> bool:
    return bool(select.select([pidfd], [], [], timeout_s)[0])


def test_a_module_runs_as_python_dash_m_on_the_descriptors_it_was_given(tmp_path: Path, shared_fork_server) -> None:
    env = {"PATH": os.environ["PATH"], "LAKEBOARD_PROBE": "line\nbreak 'quoted' $HOME"}
    control, process = shared_fork_server
    stdio, stderr, reply, fds = start(control, tmp_path, args=["--flag", "two words"], env=env, cwd=str(tmp_path))
    assert set(reply) == {"pid"} and len(fds) == 1
    with stdio, stdio.makefile("rw") as channel:
        context = json.loads(channel.readline())
        server = psutil.Process(reply["pid"])
        assert server.ppid() == process.pid
        shown = " ".join(part for part in server.cmdline() if part)  # as `ps` shows it
        assert shown == f"{sys.executable} -m {MODULE} --flag 'two words'"
        channel.write("hello\n")
        channel.flush()
        assert channel.readline() == "echo hello\n"
    assert context["argv"] == ["--flag", "two words"]
    assert context["cwd"] == str(tmp_path)
    assert context["env"] == env  # exactly what was asked for, nothing of the fork server's
    assert context["main"] == "__main__"
    assert context["pid"] == reply["pid"] != process.pid
    assert context["sid"] == reply["pid"]  # its own session, so the terminal's Ctrl-C is not its
    assert exited(fds[0])  # the end of its stdin ends it, and its pidfd says so
    os.close(fds[0])
    assert "run_context on stderr" in stderr.read_text()


def test_an_uncaught_error_goes_to_the_servers_stderr_and_ends_only_that_server(
        tmp_path: Path, shared_fork_server) -> None:
    control, _process = shared_fork_server
    stdio, stderr, reply, fds = start(control, tmp_path, args=[], env={}, cwd=None)
    with stdio, stdio.makefile("rw") as channel:
        channel.readline()
        channel.write("fail\n")
        channel.flush()
        assert exited(fds[0])
    os.close(fds[0])
    assert "RuntimeError: failed on request" in stderr.read_text()
    # The fork server still serves.
    stdio, _stderr, reply, fds = start(control, tmp_path, args=["again"], env={}, cwd=None)
    with stdio, stdio.makefile("r") as channel:
        assert json.loads(channel.readline())["argv"] == ["again"]
    os.close(fds[0])


@pytest.mark.parametrize("request_data, n_fds, problem", [
    (b"{not json", 2, "is not valid: request: Invalid JSON"),
    ({"module": MODULE, "args": [], "env": {}, "cwd": None}, 0, "carries 2 descriptors (stdio and stderr), not 0"),
    ({"module": MODULE}, 1, "carries 2 descriptors (stdio and stderr), not 1"),
    ({"module": "", "args": [], "env": {}, "cwd": None}, 2, "module: String should have at least 1 character"),
    ({"args": []}, 2, "module: Field required"),
    ({"module": MODULE, "args": "--flag", "env": {}, "cwd": None}, 2, "args: Input should be a valid array"),
    ({"module": MODULE, "args": [], "env": {"A": 1}, "cwd": None}, 2, "env.A: Input should be a valid string"),
    ({"module": MODULE, "args": [], "env": {}, "cwd": 3}, 2, "cwd: Input should be a valid string"),
    ({"module": MODULE, "shell": "rm -rf /"}, 2, "shell: Extra inputs are not permitted"),
])
def test_a_bad_request_gets_a_sentence_and_the_fork_server_serves_on(
        tmp_path: Path, shared_fork_server, request_data: object, n_fds: int, problem: str) -> None:
    control, _process = shared_fork_server
    a, b = socket.socketpair()
    with a, b:
        reply, fds = ask(control, request_data, [a.fileno(), b.fileno()][:n_fds])
    assert problem in reply["error"] and fds == []
    stdio, _stderr, reply, fds = start(control, tmp_path, args=["after"], env={}, cwd=None)
    with stdio, stdio.makefile("r") as channel:
        assert json.loads(channel.readline())["argv"] == ["after"]
    os.close(fds[0])


def test_after_importing_the_servers_it_forks_with_one_thread_their_modules_loaded_and_leaves_when_the_host_goes(
        tmp_path: Path) -> None:
    # One fork server for both checks: each needs a fork server of its own, none the shared one's state.
    with fork_server("lakeboard.servers.file_agent", "lakeboard.servers.search_agent", "lakeboard.servers.kernel") as (control, process):
        stdio, _stderr, reply, fds = start(control, tmp_path, args=[], env={}, cwd=None)  # answered: imports done
        with stdio.makefile("r") as channel:  # the servers' own modules, loaded once here for every fork
            assert json.loads(channel.readline())["preloaded"] == [
                "fastmcp", "lakeboard.servers.file_agent.server", "lakeboard.servers.kernel.server",
                "lakeboard.servers.search_agent.server"]
        # A fork keeps only the forking thread: another one's locks would stay held in every server.
        assert os.listdir(f"/proc/{process.pid}/task") == [str(process.pid)]
        server = psutil.Process(reply["pid"])
        control.close()  # the host has gone; its server still runs until its stdin closes
        with pytest.raises(subprocess.TimeoutExpired):
            process.wait(timeout=0.5)
        assert server.is_running() and server.status() != psutil.STATUS_ZOMBIE
        stdio.close()
        assert process.wait(timeout=10) == 0
        assert exited(fds[0], 0)
        os.close(fds[0])
