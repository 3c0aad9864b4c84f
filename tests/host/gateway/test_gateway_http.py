"""`lakeboard serve --transport http`: the token (made when none is given) and Host checks, and one kernel per
client session."""

from __future__ import annotations

import asyncio
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
from tests.e2e import scenarios
from tests.host.gateway.conftest import cli_env, serve_command, serve_in_process
from tests.host.gateway.test_gateway_helpers import keep_only
from tests.support.servers import free_port, wait_for_port

pytestmark = pytest.mark.timeout(300)

TOKEN = "gateway-test-token-0c41f7"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}}
ACCEPT = {"Accept": "application/json, text/event-stream"}


def client(url: str, mode: str = "legacy") -> Client:
    return Client(StreamableHttpTransport(url, headers=bearer_headers(TOKEN)), mode=mode, timeout=180)


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


async def test_callers_are_checked_and_each_session_has_its_own_kernel(gateway_config: Path, tmp_path: Path) -> None:
    # The partitions that hold the two requests' files, and the kernel: the gateway starts sooner than with all
    # helpers (test_gateway_stdio.py ranks the files with every helper of the lake).
    keep_only(gateway_config, "demo-transit-weather", "demo-air-quality-services", "demo-kernel")
    port = free_port()
    # As on a Linux machine that others reach by its name (the name is allowed; the bind stays local here).
    gateway = subprocess.Popen(serve_command(gateway_config, "--transport", "http", "--port", str(port),
                                             "--auth-token", TOKEN, "--allowed-hosts", "linux-box"),
                               cwd=tmp_path, env=cli_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        wait_for_port(port, gateway, label="gateway over HTTP")
        async with httpx.AsyncClient() as http:
            assert (await http.post(url, json=INITIALIZE, headers=ACCEPT)).status_code == 401
            wrong = {**ACCEPT, **bearer_headers("not-the-token")}
            assert (await http.post(url, json=INITIALIZE, headers=wrong)).status_code == 401
            right = {**ACCEPT, **bearer_headers(TOKEN)}
            # A page on another site, or a name rebound to 127.0.0.1, is refused even with the token.
            assert (await http.post(url, json=INITIALIZE, headers={**right, "Host": "evil.example"})).status_code == 421
            assert (await http.post(url, json=INITIALIZE, headers={**right, "Origin": "http://evil.example"})).status_code == 403
            assert (await http.post(url, json=INITIALIZE, headers=right)).status_code == 200
            named = {**right, "Host": f"linux-box:{port}"}
            assert (await http.post(url, json=INITIALIZE, headers=named)).status_code == 200

        async with client(url) as first, client(url) as second:
            board = HelpBoard.model_validate((await second.call_tool(
                "request_help", {"request": scenarios.QUESTIONS["demo-easy-1"]["query"]})).structured_content)
            assert board.files[0] == "transit/ridership_2024.parquet"

            assert {p.name for p in await first.list_prompts()} == {"answer_question", "find_data"}
            protocol = (await first.get_prompt("answer_question", {"question": "How many boardings?"})).messages[0]
            assert "at most 10 actions" in protocol.content.text and "How many boardings?" in protocol.content.text

            set_x = await run(first, "x = 41")
            assert set_x.ok and set_x.sandboxed
            unknown = await run(second, "x")
            assert unknown.error is not None and unknown.error.name == "NameError"
            assert (await run(first, "x + 1")).result == "42"
            assert len(kernels_of(gateway)) == 2

        # A session that ends stops its kernel.
        deadline = time.monotonic() + 30
        while kernels_of(gateway):
            assert time.monotonic() < deadline, "the sessions' kernels were not stopped"
            await asyncio.sleep(0.05)

        # A stateless (2026-era) client gets the same blackboard.
        async with client(url, mode="auto") as stateless:
            result = await stateless.call_tool("request_help", {"request": "service requests per category in 2024"})
            assert HelpBoard.model_validate(result.structured_content).files[0] == "services/service_requests_2024.jsonl"
    finally:
        gateway.terminate()
        gateway.wait(30)


def test_listening_beyond_loopback_needs_a_token(gateway_config: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, stderr = serve_in_process(gateway_config, "--transport", "http", "--host", "0.0.0.0", "--port", "9",
                                    monkeypatch=monkeypatch, capsys=capsys)
    assert code == 2, stderr
    assert "needs a token: pass --auth-token TOKEN (or set LAKEBOARD_AUTH_TOKEN)" in stderr
    assert "Traceback" not in stderr


async def test_without_a_token_the_gateway_makes_one_owner_only(toy_config: Path, tmp_path: Path) -> None:
    # Without a token, every local account could post requests and run code (issue 24 item 7).
    port = free_port()
    stderr = tmp_path / "stderr.txt"
    with stderr.open("wb") as errors:
        gateway = subprocess.Popen(serve_command(toy_config, "--transport", "http", "--port", str(port)),
                                   cwd=tmp_path, env=cli_env(), stdout=subprocess.DEVNULL, stderr=errors)
    url = f"http://127.0.0.1:{port}/mcp"
    token_path = toy_config / "http-tokens" / f"gateway-{port}.token"
    try:
        wait_for_port(port, gateway, label="gateway over HTTP")
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
    finally:
        gateway.terminate()
        gateway.wait(30)
