"""Two `ask` sessions at once on one lake: each kernel works in a folder of its own, removed at
the end, although the lake's servers file gives every kernel the same --workdir."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path

import pytest

from lakeboard.host.agents.session import AskSession
from lakeboard.host.lakes import Lake
from lakeboard.host.servers_config import ServersConfig, parse_entry
from tests.conftest import REPO

pytestmark = pytest.mark.timeout(300)


async def test_concurrent_asks_never_share_a_workdir(tiny_lake: Path, tmp_path: Path) -> None:
    from lakeboard.servers.kernel.sandbox import bwrap_problem

    config_dir = tmp_path / "config"
    config_dir.mkdir()
    shared = tmp_path / "shared-workdir"  # what the servers file says
    args = ["-m", "lakeboard.servers.kernel", "--lake", str(tiny_lake), "--workdir", str(shared)]
    if bwrap_problem() is not None:
        args.append("--unsafe-no-sandbox")
    servers = ServersConfig(servers={"kernel": parse_entry("kernel", {"command": sys.executable, "args": args,
                                                                      "cwd": str(REPO)})})
    lake = Lake(config_dir=config_dir, root=tiny_lake)
    async with contextlib.AsyncExitStack() as stack:
        first, second = await asyncio.gather(
            stack.enter_async_context(AskSession(lake, None, servers=servers)),
            stack.enter_async_context(AskSession(lake, None, servers=servers)),
        )
        assert first.kernel is not None and second.kernel is not None
        wrote = await first.kernel.execute("import os\nopen('mine.txt', 'w').write('first')\nos.getcwd()")
        folder = Path(eval(wrote.result))
        seen = await second.kernel.execute("import os\n(os.getcwd(), os.path.exists('mine.txt'))")
        other, sees = eval(seen.result)
        assert folder != Path(other) and not sees
        assert folder.parent == Path(other).parent == config_dir / "kernel-workdirs"
        assert not (shared / "mine.txt").exists()
    assert not folder.exists() and not Path(other).exists()
