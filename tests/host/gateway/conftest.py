"""A copy of the demo lake's config per test, so a test can drop files into its servers.d/.

The copy's file agents and gateway entry read the copy (the profiles, the vocabulary and the
kernel's workdir stay where the session's index wrote them).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from lakeboard.common import http_security, stdio_transport
from lakeboard.host import cli
from lakeboard.host.gateway.gateway import Gateway
from lakeboard.host.gateway.server import build_server
from lakeboard.host.lakes import Lake, resolve_lake
from lakeboard.host.trace import Trace
from tests.conftest import REPO
from tests.support.servers import toy_entry

QUIET = {"FASTMCP_LOG_LEVEL": "WARNING"}


@pytest.fixture
def gateway_config(demo_config: Path, tmp_path: Path) -> Path:
    config = tmp_path / "configs" / "demo"
    (config / "servers.d").mkdir(parents=True)
    shutil.copy(demo_config / "clusters.json", config / "clusters.json")
    servers = json.loads((demo_config / "servers.json").read_text())
    moved = {str(demo_config / "clusters.json"): str(config / "clusters.json"), str(demo_config): str(config)}
    for entry in servers["mcpServers"].values():
        entry["args"] = [moved.get(a, a) for a in entry["args"]]
    (config / "servers.json").write_text(json.dumps(servers, indent=1))
    return config


@pytest.fixture
def toy_config(tmp_path: Path) -> Path:
    """A config folder of toy helpers only (no partitions, no kernel): a gateway that starts in a moment."""
    config = tmp_path / "configs" / "toys"
    (config / "servers.d").mkdir(parents=True)
    servers = {"toy-a": toy_entry("toy-a"), "toy-b": toy_entry("toy-b", "--volunteer", "no")}
    (config / "servers.json").write_text(json.dumps({"mcpServers": servers}))
    return config


def cli_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k == "LAKEBOARD_HOME" or not k.startswith(("LAKEBOARD_", "OPENAI_"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return {**env, **QUIET, **extra}


def serve_command(config: Path, *flags: str) -> list[str]:
    """`lakeboard serve CONFIG ...`, as the console script runs it."""
    return [sys.executable, "-m", "lakeboard.host.cli", "serve", str(config), *flags]


def serve_in_process(config: Path, *flags: str, monkeypatch: pytest.MonkeyPatch,
                     capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """`lakeboard serve CONFIG ...` run in this process, for the refusals it makes before serving (no Python to
    start): its exit code and stderr. Serving instead of refusing fails the test at once."""
    for name in list(os.environ):
        if name != "LAKEBOARD_HOME" and name.startswith(("LAKEBOARD_", "OPENAI_")):
            monkeypatch.delenv(name)  # as cli_env leaves them out

    def served_anyway(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"lakeboard serve {' '.join(flags)} served instead of refusing")

    monkeypatch.setattr(http_security, "serve_http", served_anyway)
    monkeypatch.setattr(stdio_transport, "serve_stdio", served_anyway)
    mask = os.umask(0o022)  # main makes what it writes owner-only: this process's mask is put back after
    try:
        code = cli.main(["serve", str(config), *flags])
    finally:
        os.umask(mask)
    return code, capsys.readouterr().err


@contextlib.asynccontextmanager
async def gateway_in_memory(config: Path, monkeypatch: pytest.MonkeyPatch, *, lake: Lake | None = None,
                            **options: object):
    """A client of the gateway `lakeboard serve CONFIG` builds (`options`: its flags, as Gateway's arguments;
    `lake`: another lake for CONFIG), with its trace where serve writes it, served in this process over fastmcp's
    in-memory transport: no interpreter to start and import for the gateway, whose helpers and kernels are still
    processes of their own. The environment is the one cli_env gives that command (no model settings for the
    helpers it starts), and the handshake the one stdio_client makes."""
    for name in list(os.environ):
        if name != "LAKEBOARD_HOME" and name.startswith(("LAKEBOARD_", "OPENAI_")):
            monkeypatch.delenv(name)
    lake = lake or resolve_lake(config, quiet=True)
    with Trace(lake.output(lake.config_dir / "traces" / "gateway.jsonl")) as trace:
        async with Client(build_server(Gateway(lake, trace=trace, **options)), mode="legacy", timeout=180) as client:
            yield client


def stdio_client(config: Path, *flags: str, cwd: Path, env: dict[str, str] | None = None) -> Client:
    command, *args = serve_command(config, *flags)
    transport = StdioTransport(command, args, env=env or cli_env(), cwd=str(cwd))
    return Client(transport, mode="legacy", timeout=180)


def trace_events(config: Path) -> list[dict]:
    path = config / "traces" / "gateway.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def keep_only(config: Path, *names: str) -> None:
    """Leaves only these entries in the config's servers.json."""
    path = config / "servers.json"
    servers = json.loads(path.read_text())["mcpServers"]
    path.write_text(json.dumps({"mcpServers": {n: servers[n] for n in names}}))
