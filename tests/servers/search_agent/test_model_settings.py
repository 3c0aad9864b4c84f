"""The search agent samples with the paper's settings (temperature 0.1, up to 8,192 tokens).

Chain: fastmcp Client --in memory--> the server `python -m lakeboard.servers.search_agent` builds from
its command line --sampling--> the host's SamplingHandler --> ChatProvider --HTTP--> ScriptedLLM on
127.0.0.1. Sampling over stdio, from a process, is tested in test_server.py.
"""

from __future__ import annotations

from fastmcp import Client

from lakeboard.host.llm import ChatProvider
from lakeboard.host.sampling_handler import SamplingHandler
from tests.support.scripted_llm import ScriptedLLM

from .conftest import AQI_QUESTION, from_command_line

SEARCH_MARKER = "You are the search agent"


async def test_the_search_agent_samples_with_the_papers_settings(lake):
    with ScriptedLLM() as model:
        model.route(SEARCH_MARKER, '{"can_help": true, "reason": "a method, not a file", "confidence": 0.8}')
        server = from_command_line("--docs", str(lake / "docs"), "--name", "search")
        async with ChatProvider(model.settings()) as llm:
            handler = SamplingHandler(llm, label="sampling:search")
            async with Client(server, sampling_handler=handler, mode="legacy", timeout=60) as client:
                decision = await client.call_tool("can_help", {"request": AQI_QUESTION, "reason": "to compute it"})
        assert decision.structured_content["can_help"]
        [asked] = model.requests_for(SEARCH_MARKER)
        assert asked.temperature == 0.1 and asked.max_tokens == 8192
