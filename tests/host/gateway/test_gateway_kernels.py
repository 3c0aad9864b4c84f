"""The gateway's kernels over HTTP: the callers checked (token, Host, Origin), a kernel and a folder per client
session, none for a call without a session, at most LAKEBOARD_MAX_KERNELS at once (all forks of one fork server).
An idle session's kernel stopped after LAKEBOARD_KERNEL_IDLE_TIMEOUT is checked in test_gateway_http.py."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil
import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from lakeboard.common.http_security import bearer_headers
from lakeboard.host.gateway.models import HelpBoard
from lakeboard.schemas.execution import ExecutionResult
from tests.e2e import scenarios
from tests.host.gateway.conftest import cli_env, serve_command, serve_in_process
from tests.host.gateway.conftest import keep_only
from tests.host.gateway.test_gateway_http import ACCEPT, INITIALIZE, kernels_of, until
from tests.support.servers import free_port, wait_for_port
from tests.support.shadow_modules import import_code, plant_code, shadows

pytestmark = pytest.mark.timeout(300)

TOKEN = "gateway-kernels-token-77c2"


@contextlib.contextmanager
def gateway_over_http(config: Path, cwd: Path, *flags: str, **env: str) -> Iterator[tuple[str, subprocess.Popen]]:
    port = free_port()
    gateway = subprocess.Popen(serve_command(config, "--transport", "http", "--port", str(port), "--auth-token", TOKEN,
                                             *flags),
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


async def test_callers_are_checked_and_sessions_get_their_own_kernel_and_folder_up_to_the_cap(
        gateway_config: Path, tmp_path: Path) -> None:
    # One gateway for the callers' checks and the kernels' sessions: each gateway start costs its helpers and kernels.
    names = shadows(seed=23)
    # The partitions that hold the two requests' files, and the kernel: the gateway starts sooner than with all
    # helpers (test_gateway_stdio.py ranks the files with every helper of the lake).
    keep_only(gateway_config, "demo-transit-weather", "demo-air-quality-services", "demo-kernel")
    # As on a Linux machine that others reach by its name (the name is allowed; the bind stays local here).
    with gateway_over_http(gateway_config, tmp_path, "--allowed-hosts", "linux-box",
                           LAKEBOARD_MAX_KERNELS="2") as (url, gateway):
        port = url.split(":")[-1].split("/")[0]
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

        async with contextlib.AsyncExitStack() as stack:
            first = await stack.enter_async_context(session(url))
            second = await stack.enter_async_context(session(url))
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

            # Both kernels are forks of the gateway's one fork server, the helpers' (not a second one of their own).
            kernels = kernels_of(gateway)
            assert len(kernels) == 2
            (parent,) = {k.ppid() for k in kernels}
            assert [p.pid for p in fork_servers_of(gateway)] == [parent]

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

        # A stateless (2026-era) client gets the same blackboard, but has no session to keep a kernel for:
        # run_code is refused with a sentence.
        async with session(url, mode="auto") as stateless:
            result = await stateless.call_tool("request_help", {"request": "service requests per category in 2024"})
            assert HelpBoard.model_validate(result.structured_content).files[0] == "services/service_requests_2024.jsonl"
            refused = await stateless.call_tool("run_code", {"code": "1"}, raise_on_error=False)
            assert refused.is_error and "has no MCP session" in refused.content[0].text


def test_a_bad_kernel_limit_is_refused_with_a_sentence(gateway_config: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    code, stderr = serve_in_process(gateway_config, "--max-kernels", "0", monkeypatch=monkeypatch, capsys=capsys)
    assert code == 2 and "--max-kernels (LAKEBOARD_MAX_KERNELS) is not valid" in stderr, stderr
    assert "Traceback" not in stderr
