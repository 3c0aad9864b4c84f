"""`lakeboard index` lists the gateway first in servers.json, and that entry starts as a client starts it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

pytestmark = pytest.mark.timeout(180)


def test_the_gateway_is_the_first_entry_with_absolute_paths(demo_config: Path) -> None:
    servers = json.loads((demo_config / "servers.json").read_text())["mcpServers"]
    name, entry = next(iter(servers.items()))
    assert name == "lakeboard-demo"
    assert entry["command"] == sys.executable and Path(entry["command"]).is_absolute()
    assert entry["args"] == ["-P", "-m", "lakeboard.host.gateway", str(demo_config)] and Path(entry["args"][3]).is_absolute()
    assert sum("lakeboard.host.gateway" in e["args"] for e in servers.values()) == 1


async def test_the_written_entry_starts_from_anywhere_with_a_bare_environment(demo_config: Path, tmp_path: Path) -> None:
    entry = json.loads((demo_config / "servers.json").read_text())["mcpServers"]["lakeboard-demo"]
    # As a desktop client starts it: its own working folder, none of this shell's variables.
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **entry.get("env", {})}
    transport = StdioTransport(entry["command"], entry["args"], env=env, cwd=str(tmp_path))
    async with Client(transport, mode="legacy", timeout=120) as client:
        assert client.initialize_result.server_info.name == "lakeboard"
        assert {t.name for t in await client.list_tools()} == {"request_help", "run_code", "list_partitions"}
        assert {p.name for p in await client.list_prompts()} == {"answer_question", "find_data"}
