"""`lakeboard serve --transport http`: the token made when none is given, and an idle session's kernel stopped
after LAKEBOARD_KERNEL_IDLE_TIMEOUT (its next run_code says so). The callers' checks with a given token and the
kernel per client session are in test_gateway_kernels.py."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
import time
from pathlib import Path

import httpx
import psutil
import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from lakeboard.host.gateway.models import HelpBoard
from lakeboard.schemas.execution import ExecutionResult
from lakeboard.common.http_security import bearer_headers
from tests.host.gateway.conftest import cli_env, serve_command, serve_in_process
from tests.support.servers import free_port, toy_entry, wait_for_port

pytestmark = pytest.mark.timeout(300)

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}}
ACCEPT = {"Accept": "application/json, text/event-stream"}


async def run(c: Client, code: str) -> ExecutionResult:
    return ExecutionResult.model_validate((await c.call_tool("run_code", {"code": code})).structured_content)


def kernels_of(gateway: subprocess.Popen) -> list[psutil.Process]:
    """The kernel servers the gateway runs (the ones that have exited are not counted)."""
    kernels = []
    for process in psutil.Process(gateway.pid).children(recursive=True):
        try:
            # A forked server's title is its whole command line as one string.
            command = " ".join(process.cmdline()).split()
            if "lakeboard.servers.kernel" in command and "lakeboard.servers.fork_server" not in command:
                kernels.append(process)
        except (psutil.NoSuchProcess, psutil.ZombieProcess):
            pass
    return kernels


def test_listening_beyond_loopback_needs_a_token(gateway_config: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, stderr = serve_in_process(gateway_config, "--transport", "http", "--host", "0.0.0.0", "--port", "9",
                                    monkeypatch=monkeypatch, capsys=capsys)
    assert code == 2, stderr
    assert "needs a token: pass --auth-token TOKEN (or set LAKEBOARD_AUTH_TOKEN)" in stderr
    assert "Traceback" not in stderr


async def until(condition, timeout_s: float = 30.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


async def test_without_a_token_the_gateway_makes_one_owner_only_and_an_idle_kernel_is_stopped(
        gateway_config: Path, tmp_path: Path) -> None:
    # One gateway for both checks: each start costs its helpers and a kernel. Toy helpers and the kernel only
    # (no file agent): only the token, the broadcast and code run here.
    path = gateway_config / "servers.json"
    kernel = json.loads(path.read_text())["mcpServers"]["demo-kernel"]
    toys = {"toy-a": toy_entry("toy-a"), "toy-b": toy_entry("toy-b", "--volunteer", "no")}
    path.write_text(json.dumps({"mcpServers": {"demo-kernel": kernel, **toys}}))
    # Without a token, every local account could post requests and run code (issue 24 item 7).
    port = free_port()
    stderr = tmp_path / "stderr.txt"
    with stderr.open("wb") as errors:
        gateway = subprocess.Popen(serve_command(gateway_config, "--transport", "http", "--port", str(port)), cwd=tmp_path,
                                   env=cli_env(LAKEBOARD_KERNEL_IDLE_TIMEOUT="1"), stdout=subprocess.DEVNULL, stderr=errors)
    url = f"http://127.0.0.1:{port}/mcp"
    token_path = gateway_config / "http-tokens" / f"gateway-{port}.token"
    try:
        wait_for_port(port, gateway, timeout_s=60, label="gateway over HTTP")
        token = token_path.read_text().strip()
        assert stat.S_IMODE(token_path.stat().st_mode) == 0o600 and len(token) >= 32
        assert str(token_path) in stderr.read_text()
        async with httpx.AsyncClient() as http:
            assert (await http.post(url, json=INITIALIZE, headers=ACCEPT)).status_code == 401
            wrong = {**ACCEPT, **bearer_headers(token[:-1])}
            assert (await http.post(url, json=INITIALIZE, headers=wrong)).status_code == 401
        async with Client(StreamableHttpTransport(url, headers=bearer_headers(token)), timeout=60) as caller:
            result = await caller.call_tool("request_help", {"request": "rainfall per station"})
            assert [r.helper for r in HelpBoard.model_validate(result.structured_content).responses] == ["toy-a"]

        # An idle session's kernel is stopped, its folder goes, and its next run_code says so.
        async with Client(StreamableHttpTransport(url, headers=bearer_headers(token)), mode="legacy",
                          timeout=180) as session:
            first = await run(session, "import os\nx = 1\nos.getcwd()")
            folder = Path(eval(first.result))
            assert kernels_of(gateway)
            assert await until(lambda: not kernels_of(gateway)), "the idle kernel was kept"
            assert await until(lambda: not os.path.lexists(folder))
            again = await run(session, "x")
            assert again.error is not None and again.error.name == "NameError"
            assert again.restarted is True and again.warning is not None
            assert "This session's kernel was stopped after 1 s without use" in again.warning
            assert (await run(session, "x = 2\nx")).warning is None
    finally:
        gateway.terminate()
        gateway.wait(30)

