"""The main agent's tests: a scripted model on 127.0.0.1, and a real kernel server over MCP.

`kernel` starts one kernel server (sandboxed with bubblewrap where it can run here) for the
module, on a tiny lake of its own, with no helpers: the blackboard has nobody to ask, so a
test scripts only the model's turns and the code that runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_asyncio

from lakeboard.host.blackboard import Blackboard
from lakeboard.host.kernel_session import KernelClient
from lakeboard.host.pool import ClientPool
from lakeboard.host.servers_config import ServersConfig, parse_entry
from lakeboard.host.trace import Trace
from tests.support.scripted_llm import scripted_llm  # noqa: F401  (fixture)

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def tiny_lake(tmp_path_factory) -> Path:
    lake = tmp_path_factory.mktemp("lake")
    (lake / "counts.csv").write_text("city,count\nAlba,3\nBoro,4\n")
    return lake


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def kernel(tiny_lake, tmp_path_factory):
    """(KernelClient, Blackboard, Trace) over one real kernel server."""
    from lakeboard.servers.kernel.sandbox import bwrap_problem

    args = ["-m", "lakeboard.servers.kernel", "--lake", str(tiny_lake), "--workdir", str(tmp_path_factory.mktemp("work"))]
    if bwrap_problem() is not None:
        args.append("--unsafe-no-sandbox")
    entry = parse_entry("kernel", {"command": sys.executable, "args": args, "cwd": str(REPO)})
    trace = Trace()
    async with ClientPool(ServersConfig(servers={"kernel": entry}), trace=trace) as pool:
        client = KernelClient.find(pool, trace=trace, timeout_s=60)
        yield client, Blackboard(pool, trace, can_help_timeout_s=5, respond_timeout_s=5), trace
