"""Fixtures for the kernel server tests: a small lake, a planted secret, real servers over MCP."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from lakeboard.schemas.execution import ExecutionResult
from lakeboard.servers.kernel.sandbox import bwrap_problem

REPO = Path(__file__).resolve().parents[3]
SECRET = "sk-planted-secret-5f1e0c"  # must never be readable from inside the kernel


def require_sandbox() -> None:
    """Skip sandbox tests where bwrap cannot run, unless CI demands the sandbox."""
    problem = bwrap_problem()
    if problem is None:
        return
    if os.environ.get("LAKEBOARD_REQUIRE_SANDBOX") == "1":
        pytest.fail(f"LAKEBOARD_REQUIRE_SANDBOX=1 but the sandbox cannot run: {problem}")
    pytest.skip(f"bubblewrap sandbox unavailable here: {problem}")


def make_lake(root: Path) -> Path:
    lake = root / "lake"
    (lake / "sub").mkdir(parents=True)
    (lake / "data.csv").write_text("city,population\nOslo,709000\nBergen,291000\n")
    (lake / "sub" / "notes.txt").write_text("keep me\n")
    return lake


def plant_secrets(root: Path) -> Path:
    """A HOME-like directory with credentials, outside the lake and the workdir."""
    home = root / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(f"-----BEGIN KEY-----\n{SECRET}\n")
    (home / ".netrc").write_text(f"machine example.com login me password {SECRET}\n")
    return home


def server_env(home: Path) -> dict[str, str]:
    return {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "OPENAI_API_KEY": SECRET,
        "LAKEBOARD_TEST_SECRET": SECRET,
        "PYTHONPATH": str(REPO),
    }


def stdio_client(lake: Path, workdir: Path, home: Path, *extra: str) -> Client:
    transport = StdioTransport(
        sys.executable,
        ["-m", "lakeboard.servers.kernel", "--lake", str(lake), "--workdir", str(workdir), *extra],
        env=server_env(home), cwd=str(REPO), keep_alive=False,
    )
    return Client(transport, timeout=120)


async def run(client: Client, code: str, timeout_s: float | None = None) -> ExecutionResult:
    args: dict[str, object] = {"code": code}
    if timeout_s is not None:
        args["timeout_s"] = timeout_s
    result = await client.call_tool("execute", args)
    return ExecutionResult.model_validate(result.structured_content)


@pytest.fixture(scope="module")
def kernel_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("kernel")
    workdir = root / "work"
    workdir.mkdir()
    return {"root": root, "lake": make_lake(root), "workdir": workdir, "home": plant_secrets(root)}


# Limits small enough for quick abuse tests, big enough for pandas; an interrupt the kernel ignores
# is waited out for 1.5 s, not the default 3.
BATTERY_LIMITS = (
    "--memory-mb", "1024", "--max-procs", "64", "--timeout-s", "20", "--max-output-chars", "5000",
    "--file-size-mb", "16", "--tmp-mb", "32", "--interrupt-grace-s", "1.5",
)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def kernel(kernel_dirs: dict[str, Path]) -> AsyncIterator[Client]:
    """One sandboxed server shared by a test module (state carries over between tests)."""
    require_sandbox()
    d = kernel_dirs
    async with stdio_client(d["lake"], d["workdir"], d["home"], *BATTERY_LIMITS) as client:
        yield client


@contextlib.asynccontextmanager
async def in_memory_client(lake: Path, workdir: Path, *flags: str) -> AsyncIterator[Client]:
    """A client of the server `python -m lakeboard.servers.kernel --lake LAKE --workdir WORKDIR FLAGS` builds,
    served in this process over fastmcp's in-memory transport: no interpreter to start and import for the
    server. Its kernel is started as the server's own would be, with the same limits."""
    from lakeboard.servers.kernel.config import parse_args
    from lakeboard.servers.kernel.limits import limits_problem
    from lakeboard.servers.kernel.server import create_server

    config, options = parse_args(["--lake", str(lake), "--workdir", str(workdir), *flags])
    assert limits_problem(config) is None  # where the command would refuse to start
    async with Client(create_server(config, options.transport), timeout=120) as client:
        yield client
