"""`servers.json` entries in the `mcpServers` format MCP clients (Claude Desktop ...) read.

Paths are absolute and the command is this interpreter, so an entry pasted into a
client's configuration starts the same server from anywhere.
"""

from __future__ import annotations

from pathlib import Path

from lakeboard.common.child_processes import python_module_command
from lakeboard.schemas.clusters import ClusterConfig
from lakeboard.common.http_security import bearer_headers
from lakeboard.servers.search_agent.settings import BACKENDS as SEARCH_BACKENDS

DOC_FOLDERS = ("docs", "doc", "documentation", "documents")
GATEWAY_MODULE = "lakeboard.host.gateway"  # the host's blackboard as one MCP server; the host drops it from its own pool


def _entry(module: str, *args: str) -> dict:
    # -P: a client may start it from any folder, a lake's too, and nothing there may be imported.
    command, *python_args = python_module_command(module, *args)
    return {"command": command, "args": python_args, "env": {"HF_HUB_OFFLINE": "1"}}


def http_entry(url: str, auth_token: str | None = None) -> dict:
    """An entry for a server running over streamable HTTP, with the header its `--auth-token` asks for.

    The token sits in servers.json as clients read it; the file is written owner-only (0600).
    """
    return {"url": url, "headers": bearer_headers(auth_token)} if auth_token else {"url": url}


def find_docs_folder(lake: Path) -> Path | None:
    for name in DOC_FOLDERS:
        cand = lake / name
        if cand.is_dir():
            return cand
    return None


def search_backend_for(docs: Path | None, requested: str | None) -> str | None:
    """The search agent's backend, or None for no search agent.

    A search agent needs a source of knowledge: the lake's documents (local backend) or
    a web backend the user asked for (its URL or keys come from the server's environment).
    Without either it would decline every request, so it is not started at all.
    """
    if requested is None:
        return "local" if docs is not None else None
    if requested not in SEARCH_BACKENDS:
        raise ValueError(f"unknown search backend {requested!r}; choose one of {', '.join(SEARCH_BACKENDS)}")
    if requested == "local" and docs is None:
        raise ValueError("the local search backend needs documents: pass --docs DIR (no docs/ folder in the lake)")
    return requested


def gateway_name(lake_name: str) -> str:
    return f"lakeboard-{lake_name}"


def server_entries(
    config: ClusterConfig, config_path: Path, workdir: Path, docs: Path | None, search_backend: str | None
) -> dict:
    """The gateway first (the one entry an MCP client needs: `lakeboard serve` over this config folder),
    then the servers it mounts: file agents, the search agent (when it has a backend, see
    search_backend_for) and the kernel."""
    servers: dict[str, dict] = {gateway_name(config.name): _entry(GATEWAY_MODULE, str(config_path.parent))}
    for cluster in config.clusters:
        servers[f"{config.name}-{cluster.name}"] = _entry(
            "lakeboard.servers.file_agent", "--config", str(config_path), "--cluster", cluster.name
        )
    if search_backend is not None:
        search_args = ["--backend", search_backend, "--name", f"{config.name}-search"]
        if docs is not None:
            search_args += ["--docs", str(docs), "--lake-root", config.lake]
        servers[f"{config.name}-search"] = _entry("lakeboard.servers.search_agent", *search_args)
    servers[f"{config.name}-kernel"] = _entry("lakeboard.servers.kernel", "--lake", config.code_root, "--workdir", str(workdir))
    return {"mcpServers": servers}
