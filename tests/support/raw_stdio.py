"""Test support: an MCP server process spoken to in raw bytes over stdio, one line per message.

What a protocol test needs that an MCP client hides: malformed, oversized and deeply nested lines.
"""

from __future__ import annotations

import json
import os
import queue
import random
import subprocess
import threading
from pathlib import Path
from typing import Any

INITIALIZE = {
    "jsonrpc": "2.0", "id": 0, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
REPLY_TIMEOUT_S = 120  # a reply that never comes fails the test instead of hanging it


class RawPeer:
    """A server started with `command`, initialized, then spoken to in raw lines."""

    def __init__(self, command: list[str], *, env: dict[str, str], cwd: Path, stderr: Path | None = None) -> None:
        """`stderr`: a file the server's stderr is written to (else it is dropped)."""
        with open(stderr, "wb") if stderr is not None else open(os.devnull, "wb") as err:
            self.process = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=err)
        self._lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.send_json(INITIALIZE)
        assert "result" in self.reply()
        self.send_json({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(b"")  # the server closed its stdout: it has ended

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send_json(self, message: dict[str, Any]) -> None:
        self.send(json.dumps(message).encode() + b"\n")

    def reply(self) -> dict[str, Any]:
        try:
            line = self._lines.get(timeout=REPLY_TIMEOUT_S)
        except queue.Empty:
            raise AssertionError(f"no reply within {REPLY_TIMEOUT_S}s") from None
        if not line:
            self._lines.put(b"")
            raise AssertionError(f"the server ended (exit code {self.process.wait(15)}) instead of replying")
        return json.loads(line)

    def still_serves(self, request_id: int) -> None:
        self.send_json({"jsonrpc": "2.0", "id": request_id, "method": "tools/list"})
        reply = self.reply()
        assert reply["id"] == request_id and reply["result"]["tools"], reply

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def nested_lines(count: int, seed: int, *, min_bytes: int = 2048) -> list[tuple[bytes, int | None]]:
    """Lines of brackets nested deeper than any parser recurses, each with the request id a
    server can read from its head (None when it has none): bare runs of `[`, `{"a":` and mixes
    of both, closed or cut off, alone or as the params of a request."""
    rng = random.Random(seed)
    lines: list[tuple[bytes, int | None]] = []
    for _ in range(count):
        depth = rng.randint(min_bytes // 2, 4 * min_bytes)
        opens = [rng.choice(["[", '{"a":', "[", '{"\\u0000":']) for _ in range(depth)]
        closes = "".join("]" if o == "[" else "}" for o in reversed(opens)) if rng.random() < 0.7 else ""
        body = "".join(opens) + "1" + closes
        if rng.random() < 0.5:
            request_id = rng.randint(1, 10**9)
            line = f'{{"jsonrpc": "2.0", "id": {request_id}, "method": "tools/list", "params": {{"x": {body}}}}}'
            lines.append((line.encode(), request_id))
        else:
            lines.append((body.encode(), None))
    return lines
