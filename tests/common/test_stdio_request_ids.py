"""Request ids of every length over stdio: answered under exactly the id sent, or refused with a
sentence under no id, never under another id (a 5,000-digit id was answered as its first 18
digits: issue 24 item 15)."""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

import pytest

from lakeboard.common.stdio_transport import MAX_BYTES_ENV
from tests.conftest import REPO
from tests.support.raw_stdio import RawPeer


@pytest.fixture(scope="module")
def peer(demo_config: Path) -> RawPeer:
    cluster = json.loads((demo_config / "clusters.json").read_text())["clusters"][0]["name"]
    command = [sys.executable, "-m", "lakeboard.servers.file_agent", "--config", str(demo_config / "clusters.json"),
               "--cluster", cluster]
    server = RawPeer(command, env={**os.environ, MAX_BYTES_ENV: "100000"}, cwd=REPO)
    yield server
    server.close()


def _number(rng: random.Random, digits: int) -> str:
    return rng.choice(["", "-"]) + rng.choice("123456789") + "".join(rng.choice("0123456789") for _ in range(digits - 1))


def test_long_numeric_ids_are_echoed_exactly_or_refused_under_no_id(peer: RawPeer) -> None:
    rng = random.Random(24)
    readable = [rng.randint(19, 4300) for _ in range(6)]  # what JSON parsers here read back exactly
    unreadable = [4301, 5000] + [rng.randint(4302, 50_000) for _ in range(4)]
    for digits in readable + unreadable:
        number = _number(rng, digits)
        methods = [b'"method": "tools/list"', b'"method": "tools/call", "params": {"name": "nope"}']
        peer.send(b'{"jsonrpc": "2.0", "id": ' + number.encode() + b", " + rng.choice(methods) + b"}\n")
        reply = peer.reply()
        if digits in readable:
            assert str(reply["id"]) == number, (digits, str(reply)[:200])
        else:
            assert reply["id"] is None, (digits, str(reply)[:200])
            assert reply["error"]["code"] == -32600
            assert f"{len(number.lstrip('-')):,} digits" in reply["error"]["message"], reply
            assert "use a string" in reply["error"]["message"]
    peer.still_serves(3000)


def test_a_long_numeric_id_of_an_oversized_or_cut_request_is_never_shortened(peer: RawPeer) -> None:
    rng = random.Random(25)
    for digits in (19, 40, 1000, 5000):
        number = _number(rng, digits).encode()
        oversized = b'{"jsonrpc": "2.0", "id": ' + number + b', "method": "tools/list", "params": {"p": "'
        cut = b'{"jsonrpc": "2.0", "id": ' + number + b', "method": "tools/call", "params": {'
        for line in (oversized + b"x" * 150_000 + b'"}}', cut):
            peer.send(line + b"\n")
            request_id = peer.reply()["id"]
            # Its own id when the server can read it whole (it is in the line's head), else none.
            assert request_id is None or (digits <= 4000 and str(request_id) == number.decode()), (digits, request_id)
    peer.still_serves(3001)
