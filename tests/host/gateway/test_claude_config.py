"""`lakeboard servers --claude [--write PATH]`: the gateway's entry, merged into a client's config file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lakeboard.host.gateway.claude_config import ClientConfigError, merge_into
from lakeboard.host.lakes import Lake
from tests.host.gateway.conftest import cli_env

BLOCK = {"mcpServers": {"lakeboard-demo": {"command": "/abs/python", "args": ["-m", "lakeboard.host.gateway", "/abs/configs/demo"]}}}


def lakeboard(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lakeboard.host.cli", *args], cwd=cwd, env=cli_env(),
                          capture_output=True, text=True, timeout=120)


def test_the_block_joins_the_other_servers_and_settings(tmp_path: Path) -> None:
    path = tmp_path / "claude_desktop_config.json"
    theirs = {"globalShortcut": "Ctrl+Space", "mcpServers": {
        "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me"]},
        "lakeboard-demo": {"command": "/old/python", "args": []},
    }}
    path.write_text(json.dumps(theirs))
    path.chmod(0o644)
    assert merge_into(path, BLOCK) == (["lakeboard-demo"], ["files"])  # replaced, kept
    assert path.stat().st_mode & 0o777 == 0o644  # the user's file keeps its mode
    data = json.loads(path.read_text())
    assert data["globalShortcut"] == "Ctrl+Space"
    assert data["mcpServers"] == {"files": theirs["mcpServers"]["files"], **BLOCK["mcpServers"]}
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # written whole, no temporary left


def test_a_missing_file_is_created_and_a_link_keeps_pointing_at_its_file(tmp_path: Path) -> None:
    fresh = tmp_path / "Claude" / "claude_desktop_config.json"
    assert merge_into(fresh, BLOCK) == ([], []) and json.loads(fresh.read_text()) == BLOCK
    assert fresh.stat().st_mode & 0o777 == 0o600
    assert merge_into(fresh, BLOCK).replaced == []  # the same entry again replaces nothing
    link = tmp_path / "link.json"
    link.symlink_to(fresh)
    merge_into(link, {"mcpServers": {"other": {"url": "http://127.0.0.1:1/mcp"}}})
    assert link.is_symlink() and set(json.loads(fresh.read_text())["mcpServers"]) == {"lakeboard-demo", "other"}


@pytest.mark.parametrize("text, why", [
    ('{"mcpServers": {"files": ', "is not valid JSON (line 1"),
    ('["a list"]', "does not hold a JSON object"),
    ('{"mcpServers": ["a list"]}', "does not hold a JSON object"),
])
def test_a_file_that_is_not_a_client_config_is_left_alone(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(text)
    with pytest.raises(ClientConfigError, match="Nothing was written") as caught:
        merge_into(path, BLOCK)
    assert why in str(caught.value) and path.read_text() == text


def test_servers_claude_prints_the_gateway_and_write_merges_it(gateway_config: Path, tmp_path: Path) -> None:
    done = lakeboard("servers", str(gateway_config), "--claude", "--kernel-url", "http://127.0.0.1:8765/mcp",
                     "--kernel-token", "s3cret", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (name, entry), = json.loads(done.stdout)["mcpServers"].items()
    assert name == "lakeboard-demo" and entry["command"] == sys.executable
    assert entry["args"] == ["-P", "-m", "lakeboard.host.gateway", str(gateway_config), "--kernel-url",
                             "http://127.0.0.1:8765/mcp"]
    assert entry["env"] == {"HF_HUB_OFFLINE": "1", "LAKEBOARD_KERNEL_TOKEN": "s3cret"}

    target = tmp_path / "claude_desktop_config.json"
    target.write_text(json.dumps({"mcpServers": {"files": {"command": "npx", "args": []}}}))
    done = lakeboard("servers", str(gateway_config), "--write", str(target), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "'lakeboard-demo'" in done.stdout and "other servers are kept: files" in done.stdout
    assert "Replaced" not in done.stdout
    servers = json.loads(target.read_text())["mcpServers"]
    assert set(servers) == {"files", "lakeboard-demo"} and servers["lakeboard-demo"]["args"][-1] == str(gateway_config)
    done = lakeboard("servers", str(gateway_config), "--write", str(target), "--kernel-url", "http://127.0.0.1:1/mcp",
                     cwd=tmp_path)
    assert done.returncode == 0 and "Replaced the earlier entry of the server 'lakeboard-demo'" in done.stdout

    target.write_text("{broken")
    done = lakeboard("servers", str(gateway_config), "--write", str(target), cwd=tmp_path)
    assert done.returncode == 2 and "is not valid JSON" in done.stderr and "Traceback" not in done.stderr
    assert target.read_text() == "{broken"

    # Without --claude the whole merged configuration is printed, the gateway first.
    done = lakeboard("servers", str(gateway_config), cwd=tmp_path)
    assert next(iter(json.loads(done.stdout)["mcpServers"])) == "lakeboard-demo"


def test_the_hosts_own_commands_never_start_the_gateway(gateway_config: Path) -> None:
    servers = Lake(gateway_config, None).servers().servers
    assert "lakeboard-demo" not in servers and "demo-kernel" in servers
    assert "demo-kernel" not in Lake(gateway_config, None).servers(helpers_only=True).servers


def test_a_gateway_entry_written_before_the_safe_path_flag_gets_it(gateway_config: Path) -> None:
    from lakeboard.host.gateway.claude_config import claude_block

    path = gateway_config / "servers.json"
    servers = json.loads(path.read_text())
    for entry in servers["mcpServers"].values():
        entry["args"] = [a for a in entry["args"] if a != "-P"]
    path.write_text(json.dumps(servers))
    (entry,) = claude_block(Lake(gateway_config, None))["mcpServers"].values()
    # Claude Desktop may start it from any folder: nothing there may be imported.
    assert entry["args"] == ["-P", "-m", "lakeboard.host.gateway", str(gateway_config)]
