"""Mounting without a restart: the gateway's helpers follow servers.json and servers.d/ as they change."""

from __future__ import annotations

import json
from pathlib import Path

import psutil
import pytest

from lakeboard.host.blackboard import Blackboard
from lakeboard.host.gateway.mounting import Mounts
from lakeboard.host.pool import ClientPool
from lakeboard.schemas.messages import BlackboardRequest
from tests.support.servers import toy_entry

pytestmark = pytest.mark.timeout(120)


def write(path: Path, servers: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers}))


async def helpers_answering(pool: ClientPool) -> list[str]:
    posting = await Blackboard(pool, can_help_timeout_s=30, respond_timeout_s=30).post(BlackboardRequest(request="q"))
    return sorted(o.helper for o in posting.responses)


async def test_mounted_helpers_follow_servers_files_added_removed_changed_or_half_written(tmp_path: Path) -> None:
    # One pool for every change: each pool starts a fork server of its own for its helpers.
    config = tmp_path / "lake"
    kernel_and_gateway = {
        "kernel": {"command": "python", "args": ["-m", "lakeboard.servers.kernel", "--lake", str(tmp_path)]},
        "lakeboard-lake": {"command": "python", "args": ["-m", "lakeboard.host.gateway", str(config)]},
    }
    write(config / "servers.json", {"a": toy_entry("a"), **kernel_and_gateway})
    async with ClientPool({}) as pool:
        mounts = Mounts(config, pool)
        assert await mounts.refresh() == []
        # The gateway is never its own helper, and the kernel is kept apart for run_code.
        assert pool.names == ["a"] and mounts.kernel is not None and "lakeboard.servers.kernel" in mounts.kernel.args
        assert await helpers_answering(pool) == ["a"]

        write(config / "servers.d" / "b.json", {"b": toy_entry("b")})
        await mounts.refresh()
        assert await helpers_answering(pool) == ["a", "b"]
        b_pid = (await pool.call("b", "whoami", timeout_s=10)).json()["pid"]

        (config / "servers.d" / "b.json").unlink()
        await mounts.refresh()
        assert pool.names == ["a"] and await helpers_answering(pool) == ["a"]
        assert not psutil.pid_exists(b_pid) or psutil.Process(b_pid).status() == psutil.STATUS_ZOMBIE

        # A changed entry restarts its server.
        before = (await pool.call("a", "whoami", timeout_s=10)).json()
        write(config / "servers.json", {"a": toy_entry("a", env={"LAKEBOARD_TOY_VERSION": "2"}), **kernel_and_gateway})
        await mounts.refresh()
        after = (await pool.call("a", "whoami", timeout_s=10)).json()
        assert after["pid"] != before["pid"] and after["env"] == {"LAKEBOARD_TOY_VERSION": "2"}

        # A broken file is skipped with a sentence, and the helpers are kept.
        (config / "servers.d" / "half-written.json").write_text('{"mcpServers": {"c": ')
        (problem,) = await mounts.refresh()
        assert "half-written.json is not valid JSON" in problem and "skipped" in problem
        assert pool.names == ["a"] and await helpers_answering(pool) == ["a"]

        # A file that gave a helper, caught half-written, keeps that helper mounted as it was.
        write(config / "servers.d" / "half-written.json", {"c": toy_entry("c")})
        assert await mounts.refresh() == [] and await helpers_answering(pool) == ["a", "c"]
        c_pid = (await pool.call("c", "whoami", timeout_s=10)).json()["pid"]
        (config / "servers.d" / "half-written.json").write_text('{"mcpServers": {"c": ')
        (problem,) = await mounts.refresh()
        assert "not valid JSON" in problem and "the helpers it gave before are kept" in problem
        assert await helpers_answering(pool) == ["a", "c"]
        assert (await pool.call("c", "whoami", timeout_s=10)).json()["pid"] == c_pid
