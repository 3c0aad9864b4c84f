"""Snapshots of what each MCP server offers a client: tools, prompts, resources and resource templates.

Each server is built in-process and listed over fastmcp's in-memory transport, so nothing is started
(no kernel, no helper process, no model). The listing is compared with tests/snapshots/<server>.json:
tool names, input schemas, whether there is an output schema, annotations; prompt names and arguments;
resource URIs, URI templates and MIME types. Descriptions of tools and prompts are left out (a file
agent's descriptions quote its partition), a partition's name inside a URI becomes `<partition>`,
and listing must start no process (no kernel, no helper).

A changed surface fails with a diff of the snapshot. When the change is intended, rewrite the snapshots
with `LAKEBOARD_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_server_surfaces.py` and review the diff
of tests/snapshots/ like any other change of the protocol.
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path

import psutil
import pytest
from fastmcp import Client, FastMCP

from lakeboard.schemas.clusters import ClusterConfig
from tests.conftest import REPO

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE_ENV = "LAKEBOARD_UPDATE_SNAPSHOTS"
PARTITION = "<partition>"


async def surface(server: FastMCP, *, partition: str | None = None) -> dict:
    """What a client sees of `server`, with what varies between lakes replaced by placeholders."""
    before = {child.pid for child in psutil.Process().children(recursive=True)}
    async with Client(server) as client:
        tools = await client.list_tools()
        prompts = await client.list_prompts()
        resources = await client.list_resources()
        templates = await client.list_resource_templates()
        started = [c.cmdline() for c in psutil.Process().children(recursive=True) if c.pid not in before]
    assert not started, f"listing {server.name} started processes: {started}"
    listed = {
        "tools": sorted(({
            "name": t.name,
            "inputSchema": t.input_schema,
            "outputSchema": t.output_schema is not None,
            "annotations": t.annotations and t.annotations.model_dump(mode="json", by_alias=True, exclude_none=True),
        } for t in tools), key=lambda t: t["name"]),
        "prompts": sorted(({
            "name": p.name,
            # names and whether required: fastmcp writes its own text into argument descriptions
            "arguments": [{"name": a.name, "required": bool(a.required)} for a in p.arguments or []],
        } for p in prompts), key=lambda p: p["name"]),
        "resources": sorted(({"uri": str(r.uri), "name": r.name, "mimeType": r.mime_type} for r in resources),
                            key=lambda r: r["uri"]),
        "resourceTemplates": sorted(({"uriTemplate": t.uri_template, "name": t.name, "mimeType": t.mime_type}
                                     for t in templates), key=lambda t: t["uriTemplate"]),
    }
    text = json.dumps(listed, indent=1, sort_keys=True)
    if partition:
        text = text.replace(f"lakeboard://{partition}/", f"lakeboard://{PARTITION}/")
    return json.loads(text.replace(str(REPO), "<repo>"))


def check_snapshot(name: str, listed: dict) -> None:
    path = SNAPSHOTS / f"{name}.json"
    text = json.dumps(listed, indent=1, sort_keys=True) + "\n"
    if os.environ.get(UPDATE_ENV) == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
        return
    if not path.is_file():
        pytest.fail(f"no snapshot {path.relative_to(REPO)}: write it with {UPDATE_ENV}=1")
    stored = path.read_text()
    if stored != text:
        diff = "".join(difflib.unified_diff(stored.splitlines(keepends=True), text.splitlines(keepends=True),
                                            f"{path.relative_to(REPO)} (stored)", f"{name} (served now)"))
        pytest.fail(f"the MCP surface of {name} changed; if intended, rerun with {UPDATE_ENV}=1\n{diff}",
                    pytrace=False)


# -- the servers, built in-process ---------------------------------------------------------------

def file_agent(demo_config: Path, tmp_path: Path) -> tuple[FastMCP, str]:
    from lakeboard.servers.file_agent.agent import FileAgent
    from lakeboard.servers.file_agent.analysis_store import AnalysisStore
    from lakeboard.servers.file_agent.server import build_server

    config = ClusterConfig.model_validate_json((demo_config / "clusters.json").read_text())
    agent = FileAgent(config, config.clusters[0].name)
    return build_server(agent, AnalysisStore(tmp_path)), agent.name


def search_agent() -> FastMCP:
    from lakeboard.servers.search_agent.server import build_server
    from lakeboard.servers.search_agent.settings import SearchAgentSettings

    return build_server(SearchAgentSettings(docs=[], cache_dir=None))


def kernel(tmp_path: Path, transport: str) -> FastMCP:
    from lakeboard.servers.kernel.config import KernelConfig
    from lakeboard.servers.kernel.server import create_server

    return create_server(KernelConfig(lake=REPO / "lakes" / "demo", workdir=tmp_path / "work"), transport)


def gateway(tmp_path: Path) -> FastMCP:
    from lakeboard.host.gateway.gateway import Gateway
    from lakeboard.host.gateway.server import build_server
    from lakeboard.host.lakes import Lake

    # A config folder without helpers: starting the gateway mounts nothing, so no process starts.
    config = tmp_path / "configs" / "empty"
    config.mkdir(parents=True)
    (config / "servers.json").write_text(json.dumps({"mcpServers": {}}))
    return build_server(Gateway(Lake(config_dir=config, root=None)))


# -- the snapshots ---------------------------------------------------------------------------------

async def test_file_agent_surface(demo_config, tmp_path, monkeypatch):
    monkeypatch.setenv("LAKEBOARD_FILE_AGENT_MODEL", "off")  # no own model: nothing analyses ahead
    server, partition = file_agent(demo_config, tmp_path)
    check_snapshot("file_agent", await surface(server, partition=partition))


async def test_search_agent_surface():
    check_snapshot("search_agent", await surface(search_agent()))


async def test_kernel_surface(tmp_path):
    # Over HTTP the lifespan opens no kernel (each session would start its own, on first use);
    # the surface is the same over stdio, which the next test checks without listing.
    check_snapshot("kernel", await surface(kernel(tmp_path, "http")))


async def test_kernel_surface_does_not_depend_on_the_transport(tmp_path):
    stdio, http = kernel(tmp_path, "stdio"), kernel(tmp_path, "http")
    assert sorted(t.name for t in await stdio.list_tools()) == sorted(t.name for t in await http.list_tools())
    assert ([str(r.uri) for r in await stdio.list_resources()] == [str(r.uri) for r in await http.list_resources()])


async def test_gateway_surface(tmp_path):
    check_snapshot("gateway", await surface(gateway(tmp_path)))


# -- the check itself ------------------------------------------------------------------------------

async def test_a_renamed_tool_a_changed_argument_type_and_a_removed_resource_show_in_the_diff(tmp_path, monkeypatch):
    monkeypatch.delenv(UPDATE_ENV, raising=False)
    listed = await surface(gateway(tmp_path))
    changed = json.loads(json.dumps(listed))
    tool = next(t for t in changed["tools"] if t["name"] == "request_help")
    tool["name"] = "ask_for_help"
    tool["inputSchema"]["properties"]["reason"]["type"] = "integer"
    changed["resources"] = [r for r in changed["resources"] if r["uri"] != "lakeboard://lake"]
    with pytest.raises(pytest.fail.Exception) as failed:
        check_snapshot("gateway", changed)
    lines = [line.replace(" ", "") for line in str(failed.value).splitlines()]
    assert '-"name":"request_help",' in lines and '+"name":"ask_for_help",' in lines
    assert '-"type":"string"' in lines and '+"type":"integer"' in lines
    assert '-"uri":"lakeboard://lake"' in lines
