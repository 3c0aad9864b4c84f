"""The gateway's kernels over HTTP: a kernel and a folder per client session, none for a call
without a session, at most LAKEBOARD_MAX_KERNELS at once (all forks of one fork server), and an
idle session's kernel stopped after LAKEBOARD_KERNEL_IDLE_TIMEOUT (its next run_code says so)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from lakeboard.common.http_security import bearer_headers
from lakeboard.schemas.execution import ExecutionResult
from tests.host.gateway.conftest import cli_env, serve_command, serve_in_process
from tests.host.gateway.test_gateway_helpers import keep_only
from tests.host.gateway.test_gateway_http import kernels_of
from tests.support.servers import free_port, wait_for_port
from tests.support.shadow_modules import import_code, plant_code, shadows

pytestmark = pytest.mark.timeout(300)

TOKEN = "gateway-kernels-token-77c2"


@contextlib.contextmanager
def gateway_over_http(config: Path, cwd: Path, **env: str) -> Iterator[tuple[str, subprocess.Popen]]:
    port = free_port()
    gateway = subprocess.Popen(serve_command(config, "--transport", "http", "--port", str(port), "--auth-token", TOKEN),
                               cwd=cwd, env=cli_env(**env), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, gateway, timeout_s=60, label="gateway over HTTP")
        yield f"http://127.0.0.1:{port}/mcp", gateway
    finally:
        gateway.terminate()
        gateway.wait(30)


def session(url: str, mode: str = "legacy") -> Client:
    return Client(StreamableHttpTransport(url, headers=bearer_headers(TOKEN)), mode=mode, timeout=180)


async def run(client: Client, code: str) -> ExecutionResult:
    return ExecutionResult.model_validate((await client.call_tool("run_code", {"code": code})).structured_content)


def fork_servers_of(gateway: subprocess.Popen) -> list[psutil.Process]:
    found = []
    for process in psutil.Process(gateway.pid).children(recursive=True):
        try:
            if "lakeboard.servers.fork_server" in " ".join(process.cmdline()).split():
                found.append(process)
        except (psutil.NoSuchProcess, psutil.ZombieProcess):
            pass
    return found


async def until(condition, timeout_s: float = 30.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


async def test_sessions_get_their_own_kernel_and_folder_up_to_the_cap(gateway_config: Path, tmp_path: Path) -> None:
    names = shadows(seed=23)
    # Only code runs here: one helper (so the helpers' pool still has its fork server) starts sooner than six.
    keep_only(gateway_config, "demo-sensors", "demo-kernel")
    with gateway_over_http(gateway_config, tmp_path, LAKEBOARD_MAX_KERNELS="2") as (url, gateway):
        async with contextlib.AsyncExitStack() as stack:
            first = await stack.enter_async_context(session(url))
            second = await stack.enter_async_context(session(url))
            mine = await run(first, "import os\nx = 'first'\nopen('notes.txt', 'w').write('private')\nos.getcwd()")
            assert mine.error is None, mine.error
            folder = Path(eval(mine.result))
            assert folder.parent == gateway_config / "kernel-workdirs"
            assert (await run(first, plant_code(names))).error is None

            theirs = await run(second, "import os\n(os.getcwd(), os.path.exists('notes.txt'), 'x' in dir())")
            other, sees_notes, sees_x = eval(theirs.result)
            assert Path(other) != folder and Path(other).parent == folder.parent
            assert not sees_notes and not sees_x
            # The modules one session planted are imported neither by it nor by another session.
            assert (await run(second, import_code(names))).result == "([], [], [], True)"
            assert (await run(first, import_code(names))).result == "([], [], [], True)"

            # Both kernels are forks of one fork server (the kernels' pool's; the helpers' pool has its own).
            kernels = kernels_of(gateway)
            assert len(kernels) == 2
            (parent,) = {k.ppid() for k in kernels}
            assert parent in {p.pid for p in fork_servers_of(gateway)} and len(fork_servers_of(gateway)) == 2

            async with session(url) as third:
                refused = await third.call_tool("run_code", {"code": "1"}, raise_on_error=False)
                assert refused.is_error
                text = refused.content[0].text
                assert "2 kernels are running already, one per client session, which is the limit" in text
                assert "--max-kernels" in text and "LAKEBOARD_MAX_KERNELS" in text
                assert len(kernels_of(gateway)) == 2

                await stack.aclose()  # the first two sessions end: their kernels stop, their folders go
                assert await until(lambda: not kernels_of(gateway)), "the ended sessions' kernels were kept"
                assert await until(lambda: not folder.exists() and not Path(other).exists())
                assert (await run(third, "1 + 1")).result == "2"

        # A stateless (2026-era) call has no session to keep a kernel for: refused with a sentence.
        async with session(url, mode="auto") as stateless:
            refused = await stateless.call_tool("run_code", {"code": "1"}, raise_on_error=False)
            assert refused.is_error and "has no MCP session" in refused.content[0].text


async def test_an_idle_kernel_is_stopped_and_the_next_run_says_so(gateway_config: Path, tmp_path: Path) -> None:
    keep_only(gateway_config, "demo-kernel")  # no helper: only code runs here
    with gateway_over_http(gateway_config, tmp_path, LAKEBOARD_KERNEL_IDLE_TIMEOUT="1") as (url, gateway):
        async with session(url) as client:
            first = await run(client, "import os\nx = 1\nos.getcwd()")
            folder = Path(eval(first.result))
            assert kernels_of(gateway)
            assert await until(lambda: not kernels_of(gateway)), "the idle kernel was kept"
            assert await until(lambda: not os.path.lexists(folder))
            again = await run(client, "x")
            assert again.error is not None and again.error.name == "NameError"
            assert again.restarted is True and again.warning is not None
            assert "This session's kernel was stopped after 1 s without use" in again.warning
            assert (await run(client, "x = 2\nx")).warning is None


def test_a_bad_kernel_limit_is_refused_with_a_sentence(gateway_config: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    code, stderr = serve_in_process(gateway_config, "--max-kernels", "0", monkeypatch=monkeypatch, capsys=capsys)
    assert code == 2 and "--max-kernels (LAKEBOARD_MAX_KERNELS) is not valid" in stderr, stderr
    assert "Traceback" not in stderr
