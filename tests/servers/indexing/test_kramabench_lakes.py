"""Acceptance: every KramaBench lake indexes, and every helper it lists starts and answers.

The helpers start as the host starts them, in a `ClientPool`: each is a process of its own, forked
by one fork server from the entry's `python -P -m MODULE ARGS`, speaking MCP over its stdio. One
pool serves the helpers of all the lakes, so the module pays fastmcp's imports and the
embedding model's load once instead of once per helper. The entry's command run as a plain
process is tested for the file agent in tests/servers/file_agent/test_server.py
(test_tools_decide_and_respond_over_stdio).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import jsonschema
import pytest
from fastmcp import Client
from threadpoolctl import threadpool_limits

from lakeboard.host.forked_servers import forked_run
from lakeboard.host.pool import ClientPool
from lakeboard.host.servers_config import parse_entry
from tests.conftest import KRAMA_DOMAINS, KRAMABENCH, krama_lake

pytestmark = pytest.mark.slow


@dataclass
class Answers:
    """What one helper's process said: its tools' output schemas, and its two answers to the lake's first question."""

    output_schemas: dict[str, dict | None]
    decision: dict
    response: dict


@dataclass
class IndexedLake:
    n_clusters: int
    query: str
    helpers: dict[str, dict]  # the servers.json entries that are neither the kernel nor the gateway
    answers: dict[str, Answers | BaseException] = field(default_factory=dict)


def _index(domain: str, out: Path) -> IndexedLake:
    from lakeboard.servers.indexing import index_lake

    lake = krama_lake(domain)
    # Profiled in this process (workers=0), as the demo_config fixture does: the worker pool has tests of
    # its own, and its Python starts cost more here than they save. One BLAS thread for the embedding, as
    # the host and the fork server give theirs: on two busy cores more threads only spin (legal, with other
    # tests running: 7.6-9.4 s of indexing with them, 5.3 s without).
    with threadpool_limits(limits=1, user_api="blas"):
        res = index_lake(lake, name=domain, out=out, workers=0)
    query = json.loads((KRAMABENCH / "workload" / f"{domain}.json").read_text())[0]["query"]
    servers = json.loads((res.config_dir / "servers.json").read_text())["mcpServers"]
    helpers = {n: e for n, e in servers.items()
               if "lakeboard.servers.kernel" not in e["args"] and "lakeboard.host.gateway" not in e["args"]}
    return IndexedLake(res.n_clusters, query, helpers)


async def _ask_every_helper(lakes: list[IndexedLake], logs: Path) -> None:
    """Starts every helper of every lake in one pool, as the host does (one fork server for them all),
    and records what each answers (or why it could not)."""
    entries = {name: parse_entry(name, raw) for lake in lakes for name, raw in lake.helpers.items()}
    async with ClientPool(entries, fork_servers=True, connect_timeout_s=120, default_timeout_s=120,
                          log_dir=logs) as pool:

        async def ask(lake: IndexedLake, name: str) -> None:
            try:
                assert forked_run(entries[name]) is not None, \
                    f"{name}: not a `python -P -m MODULE` entry of this Python: {lake.helpers[name]}"
                status = pool.status(name)[name]
                assert status.state == "ready", f"{name}: {status.last_error}"
                schemas = {t.name: t.outputSchema for t in await pool.client(name).list_tools()}
                decision = await pool.call(name, "can_help", {"request": lake.query})
                response = await pool.call(name, "respond", {"request": lake.query})
                lake.answers[name] = Answers(schemas, decision.json(), response.json())
            except Exception as exc:  # noqa: BLE001 - said by the lake's own test
                lake.answers[name] = exc

        async with anyio.create_task_group() as tg:
            for lake in lakes:
                for name in lake.helpers:
                    tg.start_soon(ask, lake, name)


@pytest.fixture(scope="module")
def indexed_lakes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, IndexedLake | BaseException]:
    """Every lake indexed, then every helper of every lake asked the lake's first question; a lake that
    fails to index is recorded, and fails its own test only."""
    out = tmp_path_factory.mktemp("krama-configs")
    lakes: dict[str, IndexedLake | BaseException] = {}
    for domain in KRAMA_DOMAINS:
        try:
            lakes[domain] = _index(domain, out)
        except Exception as exc:  # noqa: BLE001 - said by the lake's own test
            lakes[domain] = exc
    logs = tmp_path_factory.mktemp("krama-logs")
    anyio.run(_ask_every_helper, [lake for lake in lakes.values() if isinstance(lake, IndexedLake)], logs)
    return lakes


@pytest.mark.parametrize("domain", KRAMA_DOMAINS)
def test_every_helper_of_the_indexed_lake_answers(domain, indexed_lakes):
    lake = indexed_lakes[domain]
    if isinstance(lake, BaseException):
        raise lake
    helpers = lake.helpers
    # one file agent per cluster; no search agent, as these lakes hold no documents
    assert sorted(n for n, e in helpers.items() if "lakeboard.servers.file_agent" in e["args"]) == sorted(helpers)
    assert len(helpers) == lake.n_clusters >= 1
    assert sorted(lake.answers) == sorted(helpers)
    for name, answers in lake.answers.items():
        if isinstance(answers, BaseException):
            raise answers
        assert {"can_help", "respond"} <= set(answers.output_schemas), name
        assert isinstance(answers.decision["can_help"], bool)
        assert answers.response["agent_name"]
        # what a plain MCP client checks of a result: it matches the tool's output schema
        jsonschema.validate(answers.decision, answers.output_schemas["can_help"])
        jsonschema.validate(answers.response, answers.output_schemas["respond"])
