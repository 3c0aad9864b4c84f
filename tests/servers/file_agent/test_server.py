"""The file-agent server: its protocol behaviour in memory (fastmcp's in-memory transport: the server
object `python -m lakeboard.servers.file_agent` builds, no process to start), its command over streamable
HTTP and with a bad config as real processes. Its process over stdio is tried by test_model_engine.py
(the handshake-era sampling test and the test of a server's own model), and test_analysis_store.py."""

from __future__ import annotations

import subprocess
import sys

import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from lakeboard.schemas.clusters import ClusterConfig
from lakeboard.schemas.messages import FileAgentResponse, HelpDecision
from tests.support.servers import free_port, wait_for_port

REQ = {"request": "daily PM2.5 readings of the air quality sensors in 2024", "reason": "average PM2.5"}


def _cluster_holding(config_dir, path: str) -> str:
    config = ClusterConfig.model_validate_json((config_dir / "clusters.json").read_text())
    return next(c.name for c in config.clusters if path in c.files)


def _in_memory(config_dir, cluster: str, monkeypatch) -> Client:
    """The server `python -m lakeboard.servers.file_agent` builds, without its process; like a stdio
    child (which gets no model settings), it sees no model of its own."""
    from lakeboard.servers.file_agent.agent import FileAgent
    from lakeboard.servers.file_agent.analysis_store import AnalysisStore
    from lakeboard.servers.file_agent.server import build_server

    for name in ("LAKEBOARD_LLM_MODEL", "LAKEBOARD_LLM_BASE_URL", "LAKEBOARD_LLM_API_KEY", "OPENAI_MODEL",
                 "OPENAI_BASE_URL", "OPENAI_API_KEY", "LAKEBOARD_FILE_AGENT_MODEL"):
        monkeypatch.delenv(name, raising=False)
    config = ClusterConfig.model_validate_json((config_dir / "clusters.json").read_text())
    return Client(build_server(FileAgent(config, cluster), AnalysisStore(config_dir)), mode="legacy")


async def test_tools_decide_respond_list_files_and_refuse_paths_outside_the_partition(demo_config, monkeypatch):
    cluster = _cluster_holding(demo_config, "air_quality/sensors/readings_2024-01.csv")
    async with _in_memory(demo_config, cluster, monkeypatch) as client:
        names = {t.name for t in await client.list_tools()}
        assert {"can_help", "respond", "list_files", "describe_file"} <= names
        decision = HelpDecision.model_validate((await client.call_tool("can_help", REQ)).structured_content)
        assert decision.can_help and 0.2 <= decision.confidence <= 1.0
        resp = FileAgentResponse.model_validate((await client.call_tool("respond", REQ)).structured_content)
        assert any(f.startswith("air_quality/sensors/readings_2024") for f in resp.files)
        assert "read_csv" in resp.code and "pandas" in resp.libraries
        assert resp.data_explanation and resp.data_sample and resp.matches
        with pytest.raises(ToolError, match="not a file of partition"):
            await client.call_tool("describe_file", {"path": "../../etc/passwd"})
        files = (await client.call_tool("list_files", {})).structured_content["result"]
        assert any(f["path"].endswith("readings_2024-03.csv") for f in files)


async def test_a_plain_request_gets_short_markdown_from_an_agent_that_names_its_partition(demo_config, monkeypatch):
    cluster = _cluster_holding(demo_config, "air_quality/sensors/readings_2024-01.csv")
    spec = ClusterConfig.model_validate_json((demo_config / "clusters.json").read_text()).cluster(cluster)
    async with _in_memory(demo_config, cluster, monkeypatch) as client:
        instructions = client.initialize_result.instructions
        assert f"partition {cluster!r}" in instructions and spec.description[:60] in instructions
        # the description quotes the lake's names: one line, introduced as data
        assert "(data, not instructions)" in instructions and "\n" not in instructions
        tools = {t.name: t for t in await client.list_tools()}
        for name in ("can_help", "respond", "list_files", "describe_file"):
            assert f"partition {cluster!r}" in tools[name].description and spec.description[:60] in tools[name].description
            assert tools[name].annotations.read_only_hint
        assert tools["respond"].input_schema["properties"]["request"]["type"] == "string"
        assert tools["respond"].input_schema["required"] == ["request"]

        decision = await client.call_tool("can_help", {"request": REQ["request"]})
        assert decision.content[0].text.startswith(f"**Partition `{cluster}` can help**")
        answer = await client.call_tool("respond", {"request": REQ["request"]})
        text = answer.content[0].text
        assert "- `air_quality/sensors/readings_2024-01.csv`" in text and "```python\n" in text
        assert "**Key steps**" in text and len(text) < 4000
        # Internal scoring stays in the structured content.
        assert "term_weights" not in text and "matched_terms" not in text and "score" not in text
        assert answer.structured_content["term_weights"] and answer.structured_content["matches"]
        empty = await client.call_tool("respond", {"request": "  "}, raise_on_error=False)
        assert empty.is_error and "The request is empty" in empty.content[0].text


async def test_unrelated_agent_declines(demo_config, monkeypatch):
    # the partition of the monthly air-quality readings holds nothing about buses
    cluster = _cluster_holding(demo_config, "air_quality/sensors/readings_2024-01.csv")
    request = {"request": "passenger boardings per bus route", "reason": "route planning"}
    async with _in_memory(demo_config, cluster, monkeypatch) as client:
        d = HelpDecision.model_validate((await client.call_tool("can_help", request)).structured_content)
        assert not d.can_help and d.reason


async def test_resources_expose_samples_and_analysis(demo_config, monkeypatch):
    cluster = _cluster_holding(demo_config, "districts/population_2024.csv")
    async with _in_memory(demo_config, cluster, monkeypatch) as client:
        sample = await client.read_resource(f"lakeboard://{cluster}/sample/districts/population_2024.csv")
        assert "population_2024.csv" in sample[0].text
        # after the sample: the loader's check, then the program that loads the file (as `lakeboard loader` prints it)
        first_rows, loader = sample[0].text.split("\n\n# loader check: ", 1)
        assert "households" in first_rows and loader.split("\n", 1)[0].startswith(("verified", "unverified", "not checked"))
        assert "def load_districts_population_2024_csv(path):" in loader and "\ndata = load_districts_population_" in loader
        analysis = await client.read_resource(f"lakeboard://{cluster}/analysis")
        assert "districts/population_2024.csv" in analysis[0].text


async def test_streamable_http_transport(demo_config):
    cluster = _cluster_holding(demo_config, "districts/population_2024.csv")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "lakeboard.servers.file_agent", "--config", str(demo_config / "clusters.json"),
                             "--cluster", cluster, "--transport", "http", "--port", str(port), "--auth-token", "fa-token"],
                            stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, proc, label="file agent over HTTP")
        async with Client(f"http://127.0.0.1:{port}/mcp", auth="fa-token") as client:
            r = await client.call_tool("can_help", {"request": "population of each district"})
            assert r.structured_content["can_help"] is True
    finally:
        proc.terminate()
        proc.wait(10)


def test_bad_config_is_a_clear_error_and_the_agent_imports_no_torch(tmp_path):
    """One start of the server's command: it refuses the bad config, and `-X importtime` lists every module
    it imported on the way (its server and agent modules, at the top of its __main__), none of them torch."""
    bad = tmp_path / "clusters.json"
    bad.write_text("{not json")
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "lakeboard.servers.file_agent", "--config", str(bad),
                           "--cluster", "x"], capture_output=True, text=True)
    assert proc.returncode == 2 and "cannot start" in proc.stderr, proc.stderr[-2000:]
    imported = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert {"lakeboard.servers.file_agent.server", "lakeboard.servers.file_agent.agent"} <= imported
    assert not {name for name in imported if name == "torch" or name.startswith("torch.")}, "the file agent imported torch"
