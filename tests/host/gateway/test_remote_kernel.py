"""The kernel from another machine: a kernel server over streamable HTTP with its token, mounted by URL.

This is how a Claude Desktop user on macOS or Windows (no bubblewrap) runs code in a sandbox:
the kernel server runs on a Linux machine, and the gateway is given --kernel-url.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from fastmcp import Client, FastMCP

from lakeboard.common import stdio_transport
from lakeboard.common.http_security import TOKEN_ENV, bearer_headers
from lakeboard.host.lakes import Lake
from lakeboard.host.servers_config import HttpServerEntry
from lakeboard.schemas.execution import ExecutionResult
from tests.conftest import DEMO_LAKE
from tests.host.gateway.conftest import cli_env, gateway_in_memory, keep_only
from tests.support.cli import lakeboard_main
from tests.support.servers import kernel_over_http

pytestmark = pytest.mark.timeout(300)

TOKEN = "kernel-test-token-93ad10"


def remote_kernel(lake: Path, workdir: Path) -> contextlib.AbstractContextManager[str]:
    """The kernel server over HTTP with a token, as on the Linux machine (the gateway's token not inherited)."""
    return kernel_over_http(lake, workdir, TOKEN, {k: v for k, v in os.environ.items() if k != TOKEN_ENV})


@pytest.fixture(scope="module")
def demo_kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """One kernel server on the demo lake for the module (each client session gets its own kernel): (URL, workdir)."""
    workdir = tmp_path_factory.mktemp("remote-workdir")
    with remote_kernel(DEMO_LAKE, workdir) as url:
        yield url, workdir


def test_the_gateway_runs_code_on_a_kernel_given_by_url(gateway_config: Path, tmp_path: Path,
                                                         demo_kernel: tuple[str, Path], monkeypatch: pytest.MonkeyPatch,
                                                         capfd: pytest.CaptureFixture[str]) -> None:
    keep_only(gateway_config)  # no kernel of its own: only the remote one can run code (and no helpers to start)
    url, workdir = demo_kernel
    served = []

    async def ask(server: FastMCP) -> None:
        async with Client(server, mode="legacy", timeout=180) as client:
            ran = await client.call_tool("run_code", {"code": "import os\nprint(os.getcwd())\nsorted(os.listdir("
                                                              f"{str(DEMO_LAKE)!r}))[:1]"})
            result = ExecutionResult.model_validate(ran.structured_content)
            assert result.ok and result.sandboxed and result.warning is None
            # The remote server gives the gateway's session a folder of its own inside its workdir.
            session_folder = Path(result.stdout.strip())
            assert session_folder.parent == workdir and "air_quality" in result.result
            overview = (await client.read_resource("lakeboard://lake"))[0].text
            assert f"Kernel for run_code: at {url}." in overview
        served.append(server)

    # `lakeboard serve CONFIG --kernel-url URL` with the token in its environment, run by its main() in this
    # process and asked over the in-memory transport instead of stdio: what is tested is the way from the
    # command line to the remote kernel. `lakeboard serve` over stdio, as a process, is tested in
    # test_gateway_disk.py and tests/e2e/test_gateway.py; the kernel server here is a process over HTTP.
    monkeypatch.setattr(stdio_transport, "serve_stdio", lambda server, max_bytes=None: anyio.run(ask, server))
    done = lakeboard_main(capfd, "serve", str(gateway_config), "--kernel-url", url, cwd=tmp_path,
                          env=cli_env(LAKEBOARD_KERNEL_TOKEN=TOKEN))
    assert done.returncode == 0 and len(served) == 1, done.stderr[-2000:]

    # Without the token the kernel refuses the gateway, and run_code says why.
    async def refused_without_the_token() -> None:
        async with gateway_in_memory(gateway_config, monkeypatch, kernel=HttpServerEntry(url=url)) as client:
            refused = await client.call_tool("run_code", {"code": "1"}, raise_on_error=False)
            assert refused.is_error and "kernel did not start: could not connect" in refused.content[0].text
            assert f"a kernel server listens at {url}, and give the gateway the token" in refused.content[0].text

    anyio.run(refused_without_the_token)


async def test_a_kernel_that_mounts_the_lake_elsewhere_runs_code_and_says_so(
        gateway_config: Path, tmp_path: Path, demo_kernel: tuple[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    keep_only(gateway_config)
    # The module's kernel mounts the demo lake; this gateway's helpers would read a copy of it elsewhere.
    elsewhere = tmp_path / "copy-of-the-lake"
    elsewhere.mkdir()
    url, _ = demo_kernel
    kernel = HttpServerEntry(url=url, headers=bearer_headers(TOKEN))
    lake = Lake(config_dir=gateway_config, root=elsewhere)
    async with gateway_in_memory(gateway_config, monkeypatch, lake=lake, kernel=kernel) as client:
        ran = await client.call_tool("run_code", {"code": "1 + 1"})
    result = ExecutionResult.model_validate(ran.structured_content)
    assert result.result == "2"
    assert f"mounts the lake at {DEMO_LAKE}" in result.warning and f"--lake {elsewhere}" in result.warning
