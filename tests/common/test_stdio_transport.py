"""Malformed and oversized messages on a stdio server get a JSON-RPC error, and the server reads on.

Real servers as subprocesses; raw bytes on their stdin (issue 17 items 8 and 9, issue 24 item 11).
"""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

import pytest

from lakeboard.common.stdio_transport import DEFAULT_MAX_BYTES, MAX_BYTES_ENV
from tests.conftest import DEMO_LAKE, REPO
from tests.support.raw_stdio import RawPeer, nested_lines


def _peer(args: list[str], env: dict[str, str] | None = None) -> RawPeer:
    return RawPeer([sys.executable, "-m", *args], env={**os.environ, **(env or {})}, cwd=REPO)


def _file_agent_args(config: Path) -> list[str]:
    cluster = json.loads((config / "clusters.json").read_text())["clusters"][0]["name"]
    return ["lakeboard.servers.file_agent", "--config", str(config / "clusters.json"), "--cluster", cluster]


@pytest.fixture(scope="module")
def file_agent(demo_config: Path) -> RawPeer:
    peer = _peer(_file_agent_args(demo_config), env={MAX_BYTES_ENV: "200000"})
    yield peer
    peer.close()


def _hostile_lines(count: int) -> list[bytes]:
    """Random lines that are not JSON: quotes, backslashes, braces, control and separator characters."""
    rng = random.Random(8)
    pieces = ['"', "\\", "{", "}", "[", "]", ":", ",", "\x00", "\r", "\u2028", "\u2029", "\u0085", '"""', "'", "é", "\t"]
    lines = []
    for _ in range(count):
        text = "".join(rng.choice(pieces + [rng.choice("abcxyz0123456789")]) for _ in range(rng.randint(1, 40)))
        lines.append(("{" + text).encode("utf-8"))
    return lines


def test_a_line_that_is_not_json_gets_a_parse_error(file_agent: RawPeer) -> None:
    fixed = [b"{not json", b"\xff\xfe\x00garbage", b'{"jsonrpc": "2.0", "id": 1, "method": ', b"}", b"\x00"]
    for n, line in enumerate(fixed + _hostile_lines(25)):
        file_agent.send(line + b"\n")
        reply = file_agent.reply()
        assert reply["error"]["code"] == -32700, (line, reply)
        assert reply["error"]["message"].startswith("Parse error")
    file_agent.still_serves(1000)


def test_a_cut_request_is_answered_under_its_own_id(file_agent: RawPeer) -> None:
    file_agent.send(b'{"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": {"name": "can_help", \n')
    reply = file_agent.reply()
    assert reply["id"] == 41 and reply["error"]["code"] == -32700
    file_agent.send(b'{"jsonrpc":"2.0","id":"req-\\"7","method":"tools/list","params":{\n')
    assert file_agent.reply()["id"] == 'req-"7'


def test_deeply_nested_brackets_get_an_error_and_the_next_request_is_served(file_agent: RawPeer) -> None:
    # A 2 KB line of "[[[[" made json.loads raise RecursionError, which ended the server (issue 24 item 11).
    for n, (line, request_id) in enumerate(nested_lines(12, seed=11)):
        file_agent.send(line + b"\n")
        reply = file_agent.reply()
        assert reply["error"]["code"] in (-32700, -32600) and reply["id"] == request_id, (line[:80], reply)
        file_agent.still_serves(2000 + n)


def test_json_that_is_not_a_jsonrpc_message_gets_an_invalid_request_error(file_agent: RawPeer) -> None:
    cases = [
        (b'{"jsonrpc": "1.0", "id": 5, "method": "tools/list"}', 5),
        (b'{"jsonrpc": "2.0", "id": "abc", "method": 12}', "abc"),
        (b'{"id": 6, "method": "tools/list"}', 6),
        (b"[1, 2, 3]", None),
        (b"42", None),
        (b'"a string"', None),
        (b"null", None),
    ]
    for line, request_id in cases:
        file_agent.send(line + b"\n")
        reply = file_agent.reply()
        assert reply["error"]["code"] == -32600 and reply["id"] == request_id, (line, reply)
    file_agent.still_serves(1001)


def test_a_request_over_the_cap_gets_an_error_and_the_next_is_served(file_agent: RawPeer) -> None:
    big = {"jsonrpc": "2.0", "id": 77, "method": "tools/call",
           "params": {"name": "can_help", "arguments": {"request": {"request": "x" * 300_000}}}}
    file_agent.send_json(big)
    reply = file_agent.reply()
    assert reply["id"] == 77 and reply["error"]["code"] == -32600
    assert "too large" in reply["error"]["message"] and MAX_BYTES_ENV in reply["error"]["message"]
    file_agent.still_serves(1002)
    # Just under the cap is a request like any other.
    file_agent.send_json({"jsonrpc": "2.0", "id": 78, "method": "tools/list", "params": {"pad": "p" * 190_000}})
    reply = file_agent.reply()
    assert reply["id"] == 78 and reply["result"]["tools"]


@pytest.mark.parametrize("server", ["search_agent", "kernel"])
def test_every_server_answers_malformed_lines(server: str, tmp_path: Path) -> None:
    args = {
        "search_agent": ["lakeboard.servers.search_agent", "--docs", str(DEMO_LAKE / "docs"), "--cache-dir", str(tmp_path / "c")],
        "kernel": ["lakeboard.servers.kernel", "--lake", str(DEMO_LAKE), "--workdir", str(tmp_path / "w"), "--unsafe-no-sandbox"],
    }[server]
    # The search agent runs with no cap configured (the default holds), the kernel with a small one.
    cap = {"search_agent": DEFAULT_MAX_BYTES, "kernel": 1000}[server]
    peer = _peer(args, env={MAX_BYTES_ENV: "" if cap == DEFAULT_MAX_BYTES else str(cap)})
    try:
        peer.send(b"{oops\n")
        assert peer.reply()["error"]["code"] == -32700
        peer.send(b'{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"pad":"' + b"z" * (cap + 10) + b'"}}\n')
        reply = peer.reply()
        assert reply["id"] == 2 and "too large" in reply["error"]["message"], reply
        peer.still_serves(3)
    finally:
        peer.close()
