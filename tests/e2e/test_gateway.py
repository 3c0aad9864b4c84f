"""The README's Claude Desktop section, as a new user follows it: index the demo lake, write the one
entry into a client's config file, and start that entry as a client does.

The index `lakeboard index lakes/demo` writes into Lakeboard's home is the session's index of the demo, copied
there (indexing the demo again costs seconds; `lakeboard index` runs as a user runs it in test_cli.py and
test_child_imports.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from lakeboard.host.gateway.models import HelpBoard
from lakeboard.schemas.execution import ExecutionResult
from tests.e2e import scenarios
from tests.e2e.conftest import _sandbox_problem
from tests.support.cli import cli_env, copy_config, lakeboard_main

pytestmark = pytest.mark.timeout(600)


def client_for(config_file: Path, name: str, *, path: str, cwd: Path) -> Client:
    """The entry as Claude Desktop starts it: from its own folder, with a bare environment."""
    entry = json.loads(config_file.read_text())["mcpServers"][name]
    env = {"PATH": path, "HOME": str(cwd), **entry.get("env", {})}
    return Client(StdioTransport(entry["command"], entry["args"], env=env, cwd=str(cwd)), mode="legacy", timeout=180)


@pytest.fixture(scope="module")
def claude_config(demo_config: Path, tmp_path_factory) -> Path:
    """The demo indexed into Lakeboard's home (the session's index, where `lakeboard index lakes/demo` writes
    it), then `lakeboard servers lakes/demo --write ...claude_desktop_config.json` (its main() in this process:
    the command's own process is test_cli.py's)."""
    home = tmp_path_factory.mktemp("user")
    env = cli_env(home)
    copy_config(demo_config, home / "home" / "configs" / "demo")
    config_file = home / "Claude" / "claude_desktop_config.json"
    config_file.parent.mkdir()
    config_file.write_text(json.dumps({"mcpServers": {"files": {"command": "npx", "args": ["server-filesystem"]}}}))
    done = lakeboard_main(None, "servers", str(scenarios.DEMO_LAKE), "--write", str(config_file), cwd=home, env=env)
    assert done.returncode == 0, "lakeboard servers --write failed (its stderr is in the captured output)"
    assert str(home / "home" / "configs" / "demo") in config_file.read_text()  # the index in Lakeboard's home
    return config_file


async def test_the_pasted_entry_gives_a_client_the_blackboard_and_the_kernel(claude_config: Path, tmp_path: Path) -> None:
    servers = json.loads(claude_config.read_text())["mcpServers"]
    assert set(servers) == {"files", "lakeboard-demo"} and servers["lakeboard-demo"]["command"] == sys.executable
    async with client_for(claude_config, "lakeboard-demo", path="/usr/local/bin:/usr/bin:/bin", cwd=tmp_path) as client:
        query = scenarios.QUESTIONS["demo-medium-6"]["query"]  # service requests per 1,000 residents
        board = HelpBoard.model_validate((await client.call_tool("request_help", {"request": query})).structured_content)
        assert "services/service_requests_2024.jsonl" in board.files
        if _sandbox_problem() is None:
            ran = await client.call_tool("run_code", {"code": "import json\nprint(json.dumps({'answer': 6 * 7}))"})
            result = ExecutionResult.model_validate(ran.structured_content)
            assert result.sandboxed and result.stdout.strip() == '{"answer": 42}'


async def test_without_bubblewrap_run_code_says_what_to_do_and_the_rest_works(claude_config: Path, tmp_path: Path) -> None:
    (tmp_path / "no-bwrap").mkdir()  # as on a Mac: no bwrap on the PATH
    async with client_for(claude_config, "lakeboard-demo", path=str(tmp_path / "no-bwrap"), cwd=tmp_path) as client:
        refused = await client.call_tool("run_code", {"code": "1 + 1"}, raise_on_error=False)
        text = refused.content[0].text
        assert refused.is_error and "bubblewrap" in text and "--kernel-url URL" in text and "Traceback" not in text
        board = HelpBoard.model_validate((await client.call_tool(
            "request_help", {"request": scenarios.QUESTIONS["demo-easy-1"]["query"]})).structured_content)
        assert board.files[0] == "transit/ridership_2024.parquet"
