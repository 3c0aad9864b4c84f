"""Sessions stay apart: the workdir is never an import path (unsandboxed here, on a server served in
this process, where every answer says so; the sandboxed case runs on test_sandbox.py's shared server),
and over HTTP each client session has its own kernel and its own folder; a call without a session is
refused; the number of kernels is capped, and an idle session's kernel is stopped (its next call says so)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import time
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from fastmcp.exceptions import ToolError

from lakeboard.schemas.execution import KernelActionResult, VariablesResult
from tests.servers.kernel.conftest import SECRET, in_memory_client, require_sandbox, run, server_env
from tests.support.servers import kernel_over_http
from tests.support.shadow_modules import import_code, plant_code, shadows

pytestmark = pytest.mark.timeout(300)

TOKEN = "kernel-sessions-token-4be1"


async def assert_never_an_import_path(client: Client, names: list[str]) -> KernelActionResult:
    """Plants shadows of real modules in the workdir, then imports the real ones, before and after
    a restart; returns the restart's answer."""
    planted = await run(client, plant_code(names))
    assert planted.error is None, planted.error
    result = await run(client, import_code(names), timeout_s=120)
    assert result.error is None, ("same kernel", result.error)
    assert result.result == "([], [], [], True)", ("same kernel", result.result)
    action = KernelActionResult.model_validate((await client.call_tool("restart", {})).structured_content)
    result = await run(client, import_code(names), timeout_s=120)
    assert result.error is None, ("after a restart", result.error)
    assert result.result == "([], [], [], True)", ("after a restart", result.result)
    return action


@pytest.mark.asyncio
async def test_unsafe_mode_says_so_in_every_result_and_keeps_the_workdir_off_the_import_path(
    kernel_dirs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One unsandboxed server: every kind of answer says UNSAFE, and even unconfined the kernel
    neither imports from its workdir nor inherits the server's environment (this process's, with a key
    planted in it)."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    async with in_memory_client(kernel_dirs["lake"], tmp_path, "--unsafe-no-sandbox") as client:
        result = await run(client, "import os\nos.getcwd()")
        assert result.sandboxed is False and result.warning and "UNSAFE" in result.warning
        assert result.result == repr(str(tmp_path))
        listing = VariablesResult.model_validate((await client.call_tool("variables", {})).structured_content)
        assert listing.sandboxed is False and "UNSAFE" in (listing.warning or "")
        action = await assert_never_an_import_path(client, shadows(seed=len(str(tmp_path)) + 1))
        assert action.sandboxed is False and "UNSAFE" in (action.warning or "")
        env = await run(client, "import os\n'OPENAI_API_KEY' in os.environ")
        assert env.result == "False" and "UNSAFE" in (env.warning or "")


# -- over HTTP: one kernel and one folder per client session ------------------------------------

def kernel_server(lake: Path, workdir: Path, home: Path, *flags: str):  # type: ignore[no-untyped-def]
    return kernel_over_http(lake, workdir, TOKEN, server_env(home), *flags)


def session(url: str, mode: str = "legacy") -> Client:
    transport = StreamableHttpTransport(url, headers={"Authorization": f"Bearer {TOKEN}"})
    return Client(transport, mode=mode, timeout=120)


async def gone(path: Path, timeout_s: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while os.path.lexists(path):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.1)
    return True


@pytest.mark.asyncio
async def test_each_http_session_has_its_own_kernel_and_folder(kernel_dirs: dict[str, Path], tmp_path: Path) -> None:
    require_sandbox()
    d = kernel_dirs
    workdir = tmp_path / "shared"
    workdir.mkdir()
    names = shadows(seed=7)
    with kernel_server(d["lake"], workdir, d["home"], "--max-kernels", "2") as url:
        async with contextlib.AsyncExitStack() as stack:
            # The first client authenticates with fastmcp's own bearer `auth`, the second with the header.
            first = await stack.enter_async_context(Client(url, auth=TOKEN, mode="legacy", timeout=120))
            second = await stack.enter_async_context(session(url))
            mine = await run(first, "import os\nx = 'first'\nopen('notes.txt', 'w').write('private')\nos.getcwd()")
            assert mine.error is None, mine.error
            assert mine.sandboxed is True and mine.warning is None
            folder = Path(eval(mine.result))
            assert folder.parent == workdir and stat.S_IMODE(folder.stat().st_mode) == 0o700
            assert (await run(first, plant_code(names))).error is None

            theirs = await run(second, "x")
            assert theirs.error is not None and theirs.error.name == "NameError"
            seen = await run(second, "import os\n(os.getcwd(), os.path.exists('notes.txt'))")
            other = Path(eval(seen.result)[0])
            assert other != folder and other.parent == workdir and eval(seen.result)[1] is False
            # Another session's planted modules are neither visible nor importable, nor are one's own.
            assert (await run(second, import_code(names), timeout_s=120)).result == "([], [], [], True)"
            assert (await run(first, import_code(names), timeout_s=120)).result == "([], [], [], True)"
            assert (await run(first, "x + '!'")).result == "'first!'"  # each session's state carries over
            notebook = (await second.read_resource("kernel://notebook.ipynb"))[0].text
            assert "write('private')" not in notebook and "os.path.exists" in notebook

            # A stateless (2026-era) call cannot be told apart from another client's: refused.
            async with session(url, mode="auto") as stateless:
                with pytest.raises(ToolError, match="has no MCP session"):
                    await stateless.call_tool("execute", {"code": "x"})

            # Two kernels run: a third session is refused with a sentence, until one ends.
            async with session(url) as third:
                with pytest.raises(ToolError, match="2 kernels are running already, one per client session"):
                    await third.call_tool("execute", {"code": "1"})
                await stack.aclose()  # both sessions end: their kernels stop, their folders go
                assert await gone(folder) and await gone(other)
                assert (await run(third, "x = 3\nx")).result == "3"


@pytest.mark.asyncio
async def test_an_idle_sessions_kernel_is_stopped(kernel_dirs: dict[str, Path], tmp_path: Path) -> None:
    require_sandbox()
    d = kernel_dirs
    with kernel_server(d["lake"], tmp_path, d["home"], "--idle-timeout-s", "1") as url:
        async with session(url) as client:
            first = await run(client, "import os\nx = 1\nos.getcwd()")
            folder = Path(eval(first.result))
            assert await gone(folder, timeout_s=20), "the idle session's kernel and folder were kept"
            again = await run(client, "x")
            assert again.error is not None and again.error.name == "NameError"
            assert again.restarted is True
            assert again.warning is not None and "stopped after 1 s without use" in again.warning
            assert "earlier variables are gone" in again.warning
            assert (await run(client, "2 + 2")).warning is None
