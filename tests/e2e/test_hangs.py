"""What a silent helper or a refused model endpoint costs a user of the `lakeboard` command."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from lakeboard.host.trace import read_trace
from lakeboard.servers.indexing import index_lake
from tests.e2e.conftest import _allow_unsandboxed_kernel, _sandbox_problem
from tests.e2e.test_cli import cli_env, lakeboard
from tests.support.servers import toy_entry


def rainfall_config(root: Path) -> Path:
    """A one-file lake, indexed in this process (the commands under test are `discover` and `ask`,
    and one file agent starts faster than the demo lake's eleven servers)."""
    lake = root / "lake"
    lake.mkdir()
    (lake / "rainfall_2024.csv").write_text("station,rainfall_mm\nA,12\nB,7\n")
    config_dir = index_lake(lake, out=root / "configs", workers=0).config_dir
    if _sandbox_problem() is not None:
        _allow_unsandboxed_kernel(config_dir)
    return config_dir


def test_a_helper_silent_before_the_handshake_is_given_the_discover_timeout(tmp_path: Path) -> None:
    config_dir = rainfall_config(tmp_path)
    (config_dir / "servers.d").mkdir(exist_ok=True)
    (config_dir / "servers.d" / "mute.json").write_text(json.dumps({"mcpServers": {"mute": toy_entry("mute", "--mute")}}))

    trace = tmp_path / "discover.jsonl"
    # The mute helper costs the whole timeout; it is long enough for the file agent to start on a loaded
    # machine (7 s was not, with ten test processes on two cores).
    found = lakeboard("discover", str(config_dir), "rainfall per station", "--json", "--timeout", "15",
                      "--trace", str(trace), cwd=tmp_path, env=cli_env(tmp_path))
    assert "Traceback" not in found.stderr, found.stderr
    events = read_trace(trace)
    assert [e.server for e in events if e.kind == "server_started"] == ["lake-root"]
    failures = [(e.server, e.data["error"]) for e in events if e.kind == "server_failed"]
    assert failures == [("mute", "could not connect: no answer within 15s")]  # tried once, for --timeout


def test_a_refused_model_endpoint_costs_one_line_before_the_fallback(tmp_path: Path) -> None:
    config_dir = rainfall_config(tmp_path)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    endpoint = f"http://127.0.0.1:{port}/v1"
    done = lakeboard("ask", str(config_dir), "What was the total rainfall of each station in 2024?",
                     "--model", "m", "--base-url", endpoint, cwd=tmp_path, env=cli_env(tmp_path))
    assert "Traceback" not in done.stderr, done.stderr
    assert "fell back to finding and loading the data without it" in done.stdout
    assert "rainfall_2024.csv" in done.stdout, done.stdout  # the fallback found the lake's file
    mentions = [line for line in done.stderr.splitlines() if endpoint in line]
    assert len(mentions) == 1 and "connection refused" in mentions[0], done.stderr
