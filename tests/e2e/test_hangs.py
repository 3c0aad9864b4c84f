"""What a silent helper or a refused model endpoint costs a user of the `lakeboard` command."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from lakeboard.common.http_security import TOKEN_ENV
from lakeboard.host.trace import read_trace
from lakeboard.servers.indexing import index_lake
from lakeboard.servers.indexing.server_entries import http_entry
from tests.e2e.conftest import _allow_unsandboxed_kernel, _sandbox_problem
from tests.e2e.scenarios import REPO
from tests.support.cli import cli_env, copy_config, lakeboard, lakeboard_main
from tests.support.servers import free_port, wait_for_port

TOKEN = "hangs-test-token-3f9a61c0"


@pytest.fixture(scope="module")
def rainfall_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-file lake, indexed once in this process for the module (the commands under test are `discover`
    and `ask`, and one file agent starts faster than the demo lake's eleven servers). Tests change their own
    copy of it (rainfall_config)."""
    root = tmp_path_factory.mktemp("rainfall")
    lake = root / "lake"
    lake.mkdir()
    (lake / "rainfall_2024.csv").write_text("station,rainfall_mm\nA,12\nB,7\n")
    config_dir = index_lake(lake, out=root / "configs", workers=0).config_dir
    if _sandbox_problem() is not None:
        _allow_unsandboxed_kernel(config_dir)
    return config_dir


def rainfall_config(index: Path, root: Path) -> Path:
    """The module's rainfall index copied into `root` as if written there, for a test that changes it."""
    return copy_config(index, root / "configs" / index.name)


def test_a_helper_silent_before_the_handshake_is_given_the_discover_timeout(rainfall_index: Path,
                                                                            tmp_path: Path) -> None:
    config_dir = rainfall_config(rainfall_index, tmp_path)
    (config_dir / "servers.d").mkdir(exist_ok=True)
    # The mute helper reads the handshake and never answers. Not the toy helper's --mute (a fork of a fork
    # server that imports fastmcp, about 2 s of CPU, for a helper that never speaks): a process that reads its
    # stdin to the end, which the pool starts as it is.
    mute = {"command": sys.executable, "args": ["-c", "import sys; sys.stdin.buffer.read()"]}
    (config_dir / "servers.d" / "mute.json").write_text(json.dumps({"mcpServers": {"mute": mute}}))
    # The mute helper costs the whole --timeout, which also bounds the file agent's start. Started
    # beforehand over HTTP, the file agent is ready whatever the machine's load, so a short timeout
    # (not 15 s of waiting) tells the mute helper's silence from a slow start.
    port = free_port()
    environment = {k: v for k, v in os.environ.items() if k != TOKEN_ENV}
    agent = subprocess.Popen(
        [sys.executable, "-P", "-m", "lakeboard.servers.file_agent", "--config", str(config_dir / "clusters.json"),
         "--cluster", "root", "--transport", "http", "--port", str(port), "--auth-token", TOKEN],
        cwd=REPO, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, agent, label="file agent over HTTP")
        servers = json.loads((config_dir / "servers.json").read_text())
        servers["mcpServers"]["lake-root"] = http_entry(f"http://127.0.0.1:{port}/mcp", TOKEN)
        (config_dir / "servers.json").write_text(json.dumps(servers))

        trace = tmp_path / "discover.jsonl"
        found = lakeboard("discover", str(config_dir), "rainfall per station", "--json", "--timeout", "4",
                          "--trace", str(trace), cwd=tmp_path, env=cli_env(tmp_path))
    finally:
        agent.terminate()
        agent.wait(10)
    assert "Traceback" not in found.stderr, found.stderr
    events = read_trace(trace)
    assert [e.server for e in events if e.kind == "server_started"] == ["lake-root"]
    failures = [(e.server, e.data["error"]) for e in events if e.kind == "server_failed"]
    assert failures == [("mute", "could not connect: no answer within 4s")]  # tried once, for --timeout
    assert "rainfall_2024.csv" in json.loads(found.stdout)["files"], found.stdout  # the file agent answered


def test_a_refused_model_endpoint_costs_one_line_before_the_fallback(rainfall_index: Path, tmp_path: Path,
                                                                     capfd) -> None:
    config_dir = rainfall_config(rainfall_index, tmp_path)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    endpoint = f"http://127.0.0.1:{port}/v1"
    # The config file cli_env points to: the one retry a refused connection gets comes after 0.05 s, not 1 s.
    settings = tmp_path / "xdg" / "lakeboard" / "llm.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text("[retry]\nbase_delay = 0.05\n")
    # `ask`'s main() in this process (its servers and kernel are still processes): what it prints and logs is
    # captured as from the command's own process; the test above runs `lakeboard` as a process of its own.
    done = lakeboard_main(capfd, "ask", str(config_dir), "What was the total rainfall of each station in 2024?",
                          "--model", "m", "--base-url", endpoint, cwd=tmp_path, env=cli_env(tmp_path))
    assert "Traceback" not in done.stderr, done.stderr
    assert "fell back to finding and loading the data without it" in done.stdout
    assert "rainfall_2024.csv" in done.stdout, done.stdout  # the fallback found the lake's file
    mentions = [line for line in done.stderr.splitlines() if endpoint in line]
    assert len(mentions) == 1 and "connection refused" in mentions[0], done.stderr
