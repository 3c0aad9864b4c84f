"""`lakeboard serve` on a config folder it cannot write: traces and logs are best effort (issue 24 item 6).

Tests run as root, for whom no file mode is read-only, so the folder is made unwritable another
way: the trace is a link to /dev/full (every write fails with "No space left on device"), or the
`traces` and `logs` folders are files, so nothing can be created in them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from lakeboard.host.gateway.models import HelpBoard
from tests.host.gateway.conftest import cli_env, serve_command

pytestmark = pytest.mark.timeout(120)


def _full_disk(config: Path) -> None:
    (config / "traces").mkdir()
    os.symlink("/dev/full", config / "traces" / "gateway.jsonl")
    os.symlink("/dev/full", config / "logs")  # not a folder: no helper's log can be opened in it


def _unwritable(config: Path) -> None:
    (config / "traces").write_text("a file where the traces folder should be")
    (config / "logs").write_text("a file where the logs folder should be")


@pytest.mark.parametrize("break_it", [_full_disk, _unwritable], ids=["full", "unwritable"])
async def test_request_help_answers_when_traces_and_logs_cannot_be_written(
    break_it, toy_config: Path, tmp_path: Path
) -> None:
    break_it(toy_config)
    stderr = tmp_path / "gateway-stderr.txt"
    command, *args = serve_command(toy_config)
    transport = StdioTransport(command, args, env=cli_env(), cwd=str(tmp_path), log_file=stderr)
    async with Client(transport, mode="legacy", timeout=60) as client:
        for request in ("rainfall per station", "bus boardings per month", "sensor readings"):
            board = HelpBoard.model_validate((await client.call_tool(
                "request_help", {"request": request})).structured_content)
            assert board.helpers == 2 and board.failed == [] and [r.helper for r in board.responses] == ["toy-a"]
    said = stderr.read_text()
    assert "Traceback" not in said
    # One clear sentence each, not one per event.
    assert said.count("The trace ") == 1 and said.count("Lakeboard carries on without it") == 1, said
    assert said.count("The helpers' logs cannot be written") == 1, said
