"""The real server: `python -m lakeboard.servers.search_agent` over stdio and streamable HTTP.

Covers the tool contracts (structured HelpDecision / SearchAgentResponse), the documents
resource, the web backends end to end, and the model path: a real fastmcp Client whose
sampling handler returns scripted text, in both MCP protocol eras (handshake-era
server-initiated sampling, and the 2026 input-required round trips). A process is started
once per transport (stdio: the 2026-era sampling test; HTTP: the SearxNG test) and once for a
bad command line; the tool contracts and the fallback cases need no process of their own and
use fastmcp's in-memory transport to the server the same command line builds.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from tests.support.import_times import imported
from tests.support.servers import free_port, wait_for_port

from .conftest import AQI_QUESTION, BRAVE_KEY, DATA_QUESTION, REPO, from_command_line, module_command, server_env


def stdio(*args: str, **env: str) -> StdioTransport:
    command, *rest = module_command(*args)
    return StdioTransport(command, rest, env=server_env(**env), cwd=str(REPO), keep_alive=False)


def request(text: str) -> dict:
    return {"request": text, "reason": "the main agent needs it to write the program"}


class ScriptedModel:
    """A sampling handler: canned replies chosen by what each prompt asks for."""

    def __init__(self, replies: dict[str, str]) -> None:
        self.replies = replies
        self.prompts: list[str] = []
        self.systems: list[str] = []

    def __call__(self, messages, params, context) -> str:
        prompt = messages[-1].content.text
        self.prompts.append(prompt)
        self.systems.append(params.system_prompt or "")
        for marker, reply in self.replies.items():
            if marker in prompt:
                return reply
        return "I cannot tell."


def scripted_aqi_model() -> ScriptedModel:
    return ScriptedModel({
        "Decide whether you can help": '{"can_help": true, "reason": "scripted: the AQI method is domain knowledge", "confidence": 0.81}',
        "Write the first search query": 'Here you go:\n```json\n{"query": "air quality index breakpoints"}\n```',
        "Round 1 of": '{"action": "search", "query": "AQI sub-index linear interpolation"}',
        "Round 2 of": '{"action": "answer", "answer": "scripted answer: the AQI is the highest pollutant sub-index.", '
                      '"sources": [1], "confidence": 0.85}',
    })


async def test_local_backend_tools_resource_and_contracts(lake: Path, tmp_path: Path) -> None:
    """The server this command line builds, in memory: what its tools and resource return. The process
    itself is tried over stdio by test_sampling_path_uses_the_clients_model[auto], over HTTP by
    test_http_transport_with_searxng_on_loopback."""
    server = from_command_line("--docs", str(lake / "docs"), "--cache-dir", str(tmp_path / "cache"), "--name", "demo-search")
    async with Client(server) as client:
        tools = {tool.name: tool for tool in await client.list_tools()}
        assert set(tools) == {"can_help", "respond"}
        # `closest` is a file agent's, sent only when it declines with files that share the request's words
        assert set(tools["can_help"].output_schema["properties"]) == {"agent_name", "can_help", "reason", "confidence",
                                                                      "closest"}
        assert "sources" in tools["respond"].output_schema["properties"]
        assert tools["respond"].annotations.readOnlyHint

        yes = (await client.call_tool("can_help", request(AQI_QUESTION))).structured_content
        assert yes["can_help"] and yes["agent_name"] == "demo-search" and 0.6 <= yes["confidence"] <= 0.9
        no = (await client.call_tool("can_help", request(DATA_QUESTION))).structured_content
        assert not no["can_help"] and no["confidence"] <= 0.1

        answer = (await client.call_tool("respond", request(AQI_QUESTION))).structured_content
        assert answer["can_help"] and answer["sources"] == ["docs/air_quality_index.md"]
        assert "linear interpolation" in answer["answer"]

        listing = json.loads((await client.read_resource("search-agent://documents"))[0].text)
        assert sorted(d["path"] for d in listing["documents"]) == [
            "docs/air_quality_index.md", "docs/drift.pdf", "docs/glossary.html", "docs/more/retention.txt"]

        bad = await client.call_tool("can_help", {"request": ""}, raise_on_error=False)
        assert bad.is_error
    assert list((tmp_path / "cache" / "search_agent").glob("docs-*.json"))


async def test_http_transport_with_searxng_on_loopback(web) -> None:
    port = free_port()
    process = subprocess.Popen(
        module_command("--backend", "searxng", "--allow-private-fetch", "--transport", "http", "--port", str(port),
                       "--log-level", "WARNING", "--auth-token", "sa-token"),
        cwd=REPO, env=server_env(LAKEBOARD_SEARXNG_URL=web.base),  # the URL from the environment
    )
    try:
        wait_for_port(port, process, timeout_s=60.0, label="the search agent")
        async with Client(f"http://127.0.0.1:{port}/mcp", auth="sa-token") as client:
            decision = (await client.call_tool("can_help", request(AQI_QUESTION))).structured_content
            assert decision["can_help"] and "web (SearxNG)" in decision["reason"]
            response = (await client.call_tool("respond", request(AQI_QUESTION))).structured_content
        assert response["can_help"] and response["sources"][0] == f"{web.base}/pages/aqi.html"
        assert "linear interpolation between breakpoints" in response["answer"]
        assert web.paths_requested("/search") and "/pages/aqi.html" in web.paths_requested("/pages/")

        # The model path over HTTP in the 2026 era: every completion is a new tools/call leg,
        # yet each query reaches the search API once (results are cached between legs).
        web.requests.clear()
        model = ScriptedModel({
            "Write the first search query": '{"query": "air quality index"}',
            "Round 1 of": '{"action": "search", "query": "glossary humidity"}',
            "Round 2 of": '{"action": "answer", "answer": "scripted.", "sources": [2, 1, 99], "confidence": 0.9}',
        })
        async with Client(f"http://127.0.0.1:{port}/mcp", auth="sa-token", sampling_handler=model) as client:
            sampled = (await client.call_tool("respond", request(AQI_QUESTION))).structured_content
            assert client.protocol_version == "2026-07-28"
        assert sampled["answer"] == "scripted." and sampled["queries"] == ["air quality index", "glossary humidity"]
        # sources are numbered in the order pages were found; 99 names no source and is dropped
        assert sampled["sources"] == [f"{web.base}/pages/glossary.html", f"{web.base}/pages/aqi.html"]
        assert [r["params"]["q"] for r in web.requests if r["path"] == "/search"] == sampled["queries"]
    finally:
        process.terminate()
        process.wait(timeout=10)


async def test_server_starts_without_keys_and_declines_with_the_reason() -> None:
    async with Client(from_command_line("--backend", "brave", "--brave-base-url", "http://127.0.0.1:9")) as client:
        decision = (await client.call_tool("can_help", request(AQI_QUESTION))).structured_content
        assert not decision["can_help"] and "BRAVE_API_KEY" in decision["reason"]
        response = (await client.call_tool("respond", request(AQI_QUESTION))).structured_content
        assert not response["can_help"] and "BRAVE_API_KEY" in response["reason"]


async def test_brave_key_from_the_environment(web) -> None:
    server = from_command_line("--backend", "brave", "--brave-base-url", web.base, "--allow-fetch-network",
                               "127.0.0.1/32", BRAVE_API_KEY=BRAVE_KEY)
    async with Client(server) as client:
        response = (await client.call_tool("respond", request(AQI_QUESTION))).structured_content
    assert response["can_help"] and response["sources"][0] == f"{web.base}/pages/aqi.html"


def test_bad_command_line_exits_with_a_message(tmp_path: Path) -> None:
    done = subprocess.run(module_command("--docs", str(tmp_path / "nope")), cwd=REPO,
                          env=server_env(PYTHONPROFILEIMPORTTIME="1"), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "does not exist or is not a folder" in done.stderr and done.stdout == ""
    # Refused before the server's heavy part is imported: a refusal costs a tenth of a second, not over a second.
    loaded = imported(done.stderr)
    assert "lakeboard.servers.search_agent.settings" in loaded  # the measure works
    heavy = loaded & {"fastmcp", "mcp", "lakeboard.servers.search_agent.server"}
    assert not heavy, heavy


# handshake-era sampling, 2026-era input-required rounds; the 2026 era over stdio (the HTTP test has a real
# process in that era too), the handshake era on the same server object in memory.
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_sampling_path_uses_the_clients_model(lake: Path, tmp_path: Path, mode: str) -> None:
    model = scripted_aqi_model()
    if mode == "auto":
        transport = stdio("--docs", str(lake / "docs"), "--cache-dir", str(tmp_path / "cache"))
    else:
        transport = in_memory(lake, cache_dir=tmp_path / "cache")
    async with Client(transport, sampling_handler=model, mode=mode) as client:
        decision = (await client.call_tool("can_help", request(AQI_QUESTION))).structured_content
        response = (await client.call_tool("respond", request(AQI_QUESTION))).structured_content
        era = client.protocol_version
    assert era == ("2026-07-28" if mode == "auto" else "2025-11-25")
    assert decision == {"agent_name": "search_agent", "can_help": True,
                        "reason": "scripted: the AQI method is domain knowledge", "confidence": 0.81}
    assert response["queries"] == ["air quality index breakpoints", "AQI sub-index linear interpolation"]
    assert response["answer"] == "scripted answer: the AQI is the highest pollutant sub-index."
    assert response["sources"] == ["docs/air_quality_index.md"] and response["confidence"] == 0.85
    # The model saw the document list, then what each round found, under the paper-style system prompt.
    assert "Air Quality Index" in model.prompts[0]
    round_one = next(p for p in model.prompts if "Round 1 of" in p)
    assert "[1] Air Quality Index (docs/air_quality_index.md)" in round_one and "linear interpolation" in round_one
    assert all("You are the search agent" in system for system in model.systems)
    assert len(model.prompts) == 4  # decide, first query, round 1, round 2: each asked once


def in_memory(lake: Path, **settings) -> object:
    """The same server object, reached through fastmcp's in-memory transport (no process)."""
    from lakeboard.servers.search_agent.server import build_server
    from lakeboard.servers.search_agent.settings import SearchAgentSettings

    return build_server(SearchAgentSettings(docs=[lake / "docs"], **{"cache_dir": None, **settings}))


async def test_unusable_model_replies_fall_back_to_offline(lake: Path) -> None:
    model = ScriptedModel({})  # never JSON
    async with Client(in_memory(lake), sampling_handler=model, mode="legacy") as client:
        decision = (await client.call_tool("can_help", request(AQI_QUESTION))).structured_content
        response = (await client.call_tool("respond", request(AQI_QUESTION))).structured_content
    assert model.prompts  # the model was asked
    assert decision["can_help"] and "covers it" in decision["reason"]  # the offline reason
    assert response["sources"] == ["docs/air_quality_index.md"] and "linear interpolation" in response["answer"]


async def test_sampling_off_never_asks_the_model(lake: Path) -> None:
    model = scripted_aqi_model()
    async with Client(in_memory(lake, sampling="off"), sampling_handler=model, mode="legacy") as client:
        response = (await client.call_tool("respond", request(AQI_QUESTION))).structured_content
    assert model.prompts == [] and response["queries"] == [AQI_QUESTION]


async def test_failing_sampling_handler_falls_back_to_offline(lake: Path) -> None:
    def refuse(messages, params, context):
        raise RuntimeError("the user declined to share the model")

    async with Client(in_memory(lake), sampling_handler=refuse, mode="legacy") as client:
        decision = (await client.call_tool("can_help", request(AQI_QUESTION))).structured_content
        response = (await client.call_tool("respond", request(AQI_QUESTION))).structured_content
    assert decision["can_help"] and "covers it" in decision["reason"]
    assert response["sources"] == ["docs/air_quality_index.md"]


async def test_server_object_serves_session_after_session(web) -> None:
    """The lifespan closes HTTP clients when a session ends; the next session reopens them."""
    from lakeboard.servers.search_agent.server import build_server
    from lakeboard.servers.search_agent.settings import SearchAgentSettings

    server = build_server(SearchAgentSettings(backend="searxng", searxng_url=web.base, allow_private_fetch=True))
    for attempt in range(2):
        async with Client(server) as client:
            response = (await client.call_tool("respond", request(f"{AQI_QUESTION} ({attempt})"))).structured_content
        assert response["can_help"] and response["sources"][0] == f"{web.base}/pages/aqi.html"
    assert len(web.paths_requested("/search")) == 2


async def test_replies_with_think_blocks_and_python_literals_are_understood(lake: Path) -> None:
    # A reasoning model thinks aloud (braces included) before its answer; a small one writes Python.
    model = ScriptedModel({
        "Decide whether you can help": '<think>Maybe {"can_help": false}? No, it is a method.</think>\n'
                                       "{'can_help': True, 'reason': 'scripted: a method question', 'confidence': 0.7,}",
    })
    async with Client(in_memory(lake), sampling_handler=model, mode="legacy") as client:
        decision = (await client.call_tool("can_help", request(AQI_QUESTION))).structured_content
    assert decision == {"agent_name": "search_agent", "can_help": True,
                        "reason": "scripted: a method question", "confidence": 0.7}
