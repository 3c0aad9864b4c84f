"""The kernel from another machine: a kernel server over streamable HTTP with its token, mounted by URL.

This is how a Claude Desktop user on macOS or Windows (no bubblewrap) runs code in a sandbox:
the kernel server runs on a Linux machine, and the gateway is given --kernel-url.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastmcp import Client

from lakeboard.common.http_security import TOKEN_ENV, bearer_headers
from lakeboard.host.gateway.gateway import Gateway
from lakeboard.host.gateway.server import build_server
from lakeboard.host.lakes import Lake, resolve_lake
from lakeboard.host.servers_config import HttpServerEntry
from lakeboard.schemas.execution import ExecutionResult
from tests.conftest import DEMO_LAKE
from tests.host.gateway.conftest import cli_env, stdio_client
from tests.host.gateway.test_gateway_helpers import keep_only
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


def gateway_in_process(config: Path, kernel: HttpServerEntry, lake: Lake | None = None) -> Client:
    """The gateway of `config` (or of `lake`) with `kernel`, served in this process over fastmcp's in-memory
    transport."""
    return Client(build_server(Gateway(lake or resolve_lake(config, quiet=True), kernel=kernel)), timeout=180)


async def test_the_gateway_runs_code_on_a_kernel_given_by_url(gateway_config: Path, tmp_path: Path,
                                                               demo_kernel: tuple[str, Path]) -> None:
    keep_only(gateway_config)  # no kernel of its own: only the remote one can run code (and no helpers to start)
    url, workdir = demo_kernel
    async with stdio_client(gateway_config, "--kernel-url", url, cwd=tmp_path,
                            env=cli_env(LAKEBOARD_KERNEL_TOKEN=TOKEN)) as client:
        ran = await client.call_tool("run_code", {"code": "import os\nprint(os.getcwd())\nsorted(os.listdir("
                                                          f"{str(DEMO_LAKE)!r}))[:1]"})
        result = ExecutionResult.model_validate(ran.structured_content)
        assert result.ok and result.sandboxed and result.warning is None
        # The remote server gives the gateway's session a folder of its own inside its workdir.
        session_folder = Path(result.stdout.strip())
        assert session_folder.parent == workdir and "air_quality" in result.result
        overview = (await client.read_resource("lakeboard://lake"))[0].text
        assert f"Kernel for run_code: at {url}." in overview

    # Without the token the kernel refuses the gateway, and run_code says why (a gateway in this process:
    # the one above showed the command line's way to the kernel).
    async with gateway_in_process(gateway_config, HttpServerEntry(url=url)) as client:
        refused = await client.call_tool("run_code", {"code": "1"}, raise_on_error=False)
        assert refused.is_error and "kernel did not start: could not connect" in refused.content[0].text
        assert f"a kernel server listens at {url}, and give the gateway the token" in refused.content[0].text


async def test_a_kernel_that_mounts_the_lake_elsewhere_runs_code_and_says_so(gateway_config: Path, tmp_path: Path,
                                                                            demo_kernel: tuple[str, Path]) -> None:
    keep_only(gateway_config)
    # The module's kernel mounts the demo lake; this gateway's helpers would read a copy of it elsewhere.
    elsewhere = tmp_path / "copy-of-the-lake"
    elsewhere.mkdir()
    url, _ = demo_kernel
    kernel = HttpServerEntry(url=url, headers=bearer_headers(TOKEN))
    async with gateway_in_process(gateway_config, kernel, Lake(config_dir=gateway_config, root=elsewhere)) as client:
        ran = await client.call_tool("run_code", {"code": "1 + 1"})
    result = ExecutionResult.model_validate(ran.structured_content)
    assert result.result == "2"
    assert f"mounts the lake at {DEMO_LAKE}" in result.warning and f"--lake {elsewhere}" in result.warning
