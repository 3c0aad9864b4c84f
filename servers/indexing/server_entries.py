"""`servers.json` entries in the `mcpServers` format MCP clients (Claude Desktop ...) read.

Paths are absolute and the command is this interpreter, so an entry pasted into a
client's configuration starts the same server from anywhere.
"""

from __future__ import annotations

import sys
from pathlib import Path

from schemas.clusters import ClusterConfig

DOC_FOLDERS = ("docs", "doc", "documentation", "documents")


def _entry(module: str, *args: str) -> dict:
    return {"command": sys.executable, "args": ["-m", module, *args], "env": {"HF_HUB_OFFLINE": "1"}}


def find_docs_folder(lake: Path) -> Path | None:
    for name in DOC_FOLDERS:
        cand = lake / name
        if cand.is_dir():
            return cand
    return None


def server_entries(config: ClusterConfig, config_path: Path, workdir: Path, docs: Path | None) -> dict:
    servers: dict[str, dict] = {}
    for cluster in config.clusters:
        servers[f"{config.name}-{cluster.name}"] = _entry(
            "servers.file_agent", "--config", str(config_path), "--cluster", cluster.name
        )
    search_args = ["--backend", "local", "--name", f"{config.name}-search"]
    if docs is not None:
        search_args += ["--docs", str(docs), "--lake-root", config.lake]
    servers[f"{config.name}-search"] = _entry("servers.search_agent", *search_args)
    servers[f"{config.name}-kernel"] = _entry("servers.kernel", "--lake", config.lake, "--workdir", str(workdir))
    return {"mcpServers": servers}
