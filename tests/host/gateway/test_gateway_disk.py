"""`lakeboard serve` on a config folder it cannot write: traces and logs are best effort (issue 24 item 6).

Tests run as root, for whom no file mode is read-only, so the folder is made unwritable another
way: the trace is a link to /dev/full (every write fails with "No space left on device"), or the
`traces` and `logs` folders are files, so nothing can be created in them.

The same `lakeboard serve` process over stdio is sent malformed, oversized and nested lines (issue 24 item 11):
one gateway start for both checks.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from lakeboard.common.stdio_transport import MAX_BYTES_ENV
from lakeboard.host.gateway.models import HelpBoard
from tests.host.gateway.conftest import cli_env, serve_command
from tests.support.raw_stdio import RawPeer, nested_lines

pytestmark = pytest.mark.timeout(120)


def _full_disk(config: Path) -> None:
    (config / "traces").mkdir()
    os.symlink("/dev/full", config / "traces" / "gateway.jsonl")
    os.symlink("/dev/full", config / "logs")  # not a folder: no helper's log can be opened in it


def _unwritable(config: Path) -> None:
    (config / "traces").write_text("a file where the traces folder should be")
    (config / "logs").write_text("a file where the logs folder should be")


def send_malformed_oversized_and_nested_lines(peer: RawPeer, cap: int) -> None:
    """The gateway used the SDK's stdio transport: no size cap, and no answer to a malformed line (issue 24
    item 11). Each line gets an error and the gateway serves on."""
    oversized = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                 "params": {"name": "request_help", "arguments": {"request": "x" * (3 * cap)}}}
    peer.send_json(oversized)
    reply = peer.reply()
    assert reply["id"] == 7 and reply["error"]["code"] == -32600 and "too large" in reply["error"]["message"]
    peer.still_serves(8)

    rng = random.Random(24)
    for _ in range(10):
        garbage = "".join(rng.choice('{}[]:,"\\\x00\r\u2028é') for _ in range(rng.randint(1, 60)))
        peer.send(("{" + garbage).encode() + b"\n")
        assert peer.reply()["error"]["code"] in (-32700, -32600)  # "{}" is JSON, not a request
    for line, request_id in nested_lines(4, seed=25):
        peer.send(line + b"\n")
        reply = peer.reply()
        assert reply["error"]["code"] in (-32700, -32600) and reply["id"] == request_id, reply
    peer.still_serves(9)


@pytest.mark.parametrize("break_it", [_full_disk, _unwritable], ids=["full", "unwritable"])
def test_request_help_answers_when_traces_and_logs_cannot_be_written_and_malformed_lines_get_errors(
    break_it, toy_config: Path, tmp_path: Path
) -> None:
    break_it(toy_config)
    stderr = tmp_path / "gateway-stderr.txt"
    cap = 50_000
    peer = RawPeer(serve_command(toy_config), env=cli_env(**{MAX_BYTES_ENV: str(cap)}), cwd=tmp_path, stderr=stderr)
    try:
        send_malformed_oversized_and_nested_lines(peer, cap)
        for request_id, request in enumerate(("rainfall per station", "bus boardings per month", "sensor readings"), 10):
            peer.send_json({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                            "params": {"name": "request_help", "arguments": {"request": request}}})
            board = HelpBoard.model_validate(peer.reply()["result"]["structuredContent"])
            assert board.helpers == 2 and board.failed == [] and [r.helper for r in board.responses] == ["toy-a"]
    finally:
        peer.close()
    said = stderr.read_text()
    assert "Traceback" not in said
    # One clear sentence each, not one per event.
    assert said.count("The trace ") == 1 and said.count("Lakeboard carries on without it") == 1, said
    assert said.count("The helpers' logs cannot be written") == 1, said
