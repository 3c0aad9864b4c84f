"""servers.json HTTP entries carry the bearer header, and the host's pool sends it (issue 17 item 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from lakeboard.host.pool import ClientPool
from lakeboard.host.servers_config import HttpServerEntry, load_servers
from lakeboard.common.atomic_files import write_json_atomic
from lakeboard.common.http_security import TOKEN_ENV
from lakeboard.servers.indexing.server_entries import http_entry
from tests.conftest import REPO
from tests.support.servers import free_port, wait_for_port

TOKEN = "host-test-token-5b8e1d2a9c"


def test_an_http_entry_carries_the_bearer_header() -> None:
    assert http_entry("http://127.0.0.1:8000/mcp", TOKEN) == {
        "url": "http://127.0.0.1:8000/mcp", "headers": {"Authorization": f"Bearer {TOKEN}"},
    }
    assert http_entry("http://127.0.0.1:8000/mcp") == {"url": "http://127.0.0.1:8000/mcp"}


def test_servers_json_is_readable_by_its_owner_only(demo_config: Path) -> None:
    # It may hold tokens: nobody else on the machine reads it.
    assert (demo_config / "servers.json").stat().st_mode & 0o077 == 0


async def test_the_pool_sends_the_entry_header_to_a_server_that_wants_a_token(demo_config: Path, tmp_path: Path) -> None:
    cluster = json.loads((demo_config / "clusters.json").read_text())["clusters"][0]["name"]
    port = free_port()
    environment = {k: v for k, v in os.environ.items() if k != TOKEN_ENV}
    process = subprocess.Popen(
        [sys.executable, "-m", "lakeboard.servers.file_agent", "--config", str(demo_config / "clusters.json"),
         "--cluster", cluster, "--transport", "http", "--port", str(port), "--auth-token", TOKEN],
        cwd=REPO, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process, label="file agent over HTTP")
        url = f"http://127.0.0.1:{port}/mcp"
        config_dir = tmp_path / "configs" / "lake"
        write_json_atomic(config_dir / "servers.json", {"mcpServers": {
            "with-token": http_entry(url, TOKEN),
            "without-token": http_entry(url),
        }})
        servers = load_servers(config_dir)
        entry = servers.servers["with-token"]
        assert isinstance(entry, HttpServerEntry) and entry.headers == {"Authorization": f"Bearer {TOKEN}"}

        async with ClientPool(servers, connect_timeout_s=30) as pool:
            status = pool.status()
            assert status["with-token"].state == "ready"
            assert status["without-token"].state != "ready"
            assert "can_help" in pool.tools("with-token")  # listed over the authenticated session
    finally:
        process.terminate()
        process.wait(10)
