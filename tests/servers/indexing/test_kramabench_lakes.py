"""Acceptance: every KramaBench lake indexes, and every helper it lists starts and answers."""

from __future__ import annotations

import json

import anyio
import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from threadpoolctl import threadpool_limits

from tests.conftest import KRAMA_DOMAINS, KRAMABENCH, krama_lake

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("domain", KRAMA_DOMAINS)
async def test_every_helper_of_the_indexed_lake_answers(domain, tmp_path):
    from lakeboard.servers.indexing import index_lake

    lake = krama_lake(domain)
    # Profiled in this process (workers=0), as the demo_config fixture does: the worker pool has tests of
    # its own, and its Python starts cost more here than they save. One BLAS thread for the embedding, as
    # the host and the fork server give theirs: on two busy cores more threads only spin (legal, with other
    # tests running: 7.6-9.4 s of indexing with them, 5.3 s without).
    with threadpool_limits(limits=1, user_api="blas"):
        res = index_lake(lake, name=domain, out=tmp_path, workers=0)
    query = json.loads((KRAMABENCH / "workload" / f"{domain}.json").read_text())[0]["query"]
    servers = json.loads((res.config_dir / "servers.json").read_text())["mcpServers"]
    helpers = {n: e for n, e in servers.items() if "lakeboard.servers.kernel" not in e["args"] and "lakeboard.host.gateway" not in e["args"]}
    # one file agent per cluster; no search agent, as these lakes hold no documents
    assert sorted(n for n, e in helpers.items() if "lakeboard.servers.file_agent" in e["args"]) == sorted(helpers)
    assert len(helpers) == res.n_clusters >= 1

    async def check(name: str, entry: dict) -> None:
        async with Client(StdioTransport(entry["command"], entry["args"], env=entry.get("env"))) as client:
            tools = {t.name for t in await client.list_tools()}
            assert {"can_help", "respond"} <= tools, name
            decision = await client.call_tool("can_help", {"request": query})
            assert isinstance(decision.structured_content["can_help"], bool)
            resp = await client.call_tool("respond", {"request": query})
            assert resp.structured_content["agent_name"]

    async with anyio.create_task_group() as tg:
        for name, entry in helpers.items():
            tg.start_soon(check, name, entry)
