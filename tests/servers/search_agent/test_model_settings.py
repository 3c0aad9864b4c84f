"""The search agent samples with the paper's settings (temperature 0.1, up to 8,192 tokens).

Chain: fastmcp Client --stdio--> `python -m lakeboard.servers.search_agent` --sampling--> the host's
SamplingHandler --> ChatProvider --HTTP--> ScriptedLLM on 127.0.0.1.
"""

from __future__ import annotations

from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from lakeboard.host.llm import ChatProvider
from lakeboard.host.sampling_handler import SamplingHandler
from tests.support.scripted_llm import ScriptedLLM

from .conftest import AQI_QUESTION, REPO, module_command, server_env

SEARCH_MARKER = "You are the search agent"


async def test_the_search_agent_samples_with_the_papers_settings(lake):
    with ScriptedLLM() as model:
        model.route(SEARCH_MARKER, '{"can_help": true, "reason": "a method, not a file", "confidence": 0.8}')
        command, *args = module_command("--docs", str(lake / "docs"), "--name", "search")
        transport = StdioTransport(command, args, env=server_env(), cwd=str(REPO), keep_alive=False)
        async with ChatProvider(model.settings()) as llm:
            handler = SamplingHandler(llm, label="sampling:search")
            async with Client(transport, sampling_handler=handler, mode="legacy", timeout=60) as client:
                decision = await client.call_tool("can_help", {"request": AQI_QUESTION, "reason": "to compute it"})
        assert decision.structured_content["can_help"]
        [asked] = model.requests_for(SEARCH_MARKER)
        assert asked.temperature == 0.1 and asked.max_tokens == 8192
