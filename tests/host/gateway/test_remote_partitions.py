"""Partitions of one lake served by file agents in other processes over streamable HTTP, each with its
own token (standing in for other machines), mounted into one gateway through servers.d/ (issue 28 item 5).

The gateway is served in this process over fastmcp's in-memory transport (test_gateway_helpers.py's
gateway_in_memory): the transport under test is the one between the gateway and the remote file agents."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from lakeboard.host.gateway.models import HelpBoard, Partitions
from tests.host.gateway.conftest import cli_env
from tests.host.gateway.conftest import gateway_in_memory
from tests.support.servers import free_port, wait_for_port

pytestmark = pytest.mark.timeout(300)
REQUEST = "How many passenger boardings did the city's transit network record in total in 2024?"
ANSWER = "transit/ridership_2024.parquet"


async def test_partitions_served_over_http_elsewhere_answer_through_the_gateway(gateway_config: Path,
                                                                                monkeypatch: pytest.MonkeyPatch):
    clusters = json.loads((gateway_config / "clusters.json").read_text())["clusters"]
    holding = next(c["name"] for c in clusters if ANSWER in c["files"])
    remote = [holding, next(c["name"] for c in clusters if c["name"] != holding)]
    agents, entries, ports = {}, {}, {}
    try:
        for part in remote:  # both started before either is waited for: their starts overlap
            port, token = free_port(), f"token-{uuid.uuid4().hex}"
            while port in ports.values():  # the first agent may not hold its port yet
                port = free_port()
            agents[part] = subprocess.Popen(
                [sys.executable, "-P", "-m", "lakeboard.servers.file_agent", "--config", str(gateway_config / "clusters.json"),
                 "--cluster", part, "--transport", "http", "--port", str(port)],
                env=cli_env(LAKEBOARD_AUTH_TOKEN=token), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
            ports[part] = port
            entries[f"demo-{part}"] = {"url": f"http://127.0.0.1:{port}/mcp", "headers": {"Authorization": f"Bearer {token}"}}
        for part in remote:
            wait_for_port(ports[part], agents[part], 60, label=f"file agent {part}")
        (gateway_config / "servers.d" / "remote.json").write_text(json.dumps({"mcpServers": entries}))

        async with gateway_in_memory(gateway_config, monkeypatch) as client:
            board = HelpBoard.model_validate((await client.call_tool("request_help", {"request": REQUEST})).structured_content)
            assert ANSWER in board.files and f"demo-{holding}" in {o.helper for o in board.responses}, board
            assert not board.notes, "the remote partitions count as served: no warning"
            listed = Partitions.model_validate((await client.call_tool("list_partitions", {})).structured_content)
            assert {p.name: p.server for p in listed.partitions}[holding] == f"demo-{holding}"

            agents[holding].kill()  # the remote process is the one answering: without it, the gateway says so
            agents[holding].wait()
            again = HelpBoard.model_validate((await client.call_tool("request_help", {"request": REQUEST})).structured_content)
            lost = {f.helper for f in again.failed + again.timed_out + again.skipped}
            assert f"demo-{holding}" in lost and f"demo-{holding}" not in {o.helper for o in again.responses}
    finally:
        for proc in agents.values():
            proc.kill()
