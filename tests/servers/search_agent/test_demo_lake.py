"""Acceptance on the demo lake: the server started as `lakeboard index` configures it.

The local backend over `lakes/demo/docs` (sources relative to the lake root) answers a
knowledge request with the explainer as its source and declines a request for data files.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fastmcp import Client

from .conftest import REPO
from .test_server import request, stdio

DEMO = REPO / "lakes" / "demo"
DOCS = DEMO / "docs"

pytestmark = pytest.mark.skipif(
    not (DOCS / "air_quality_index.md").is_file(), reason="lakes/demo/docs is absent (generate it with lakes/make_demo.py)"
)


async def test_demo_lake_knowledge_request_and_data_request(tmp_path: Path) -> None:
    transport = stdio("--backend", "local", "--name", "demo-search", "--docs", str(DOCS), "--lake-root", str(DEMO),
                      "--cache-dir", str(tmp_path / "cache"))
    async with Client(transport) as client:
        knowledge = "How is the air quality index computed from pollutant concentrations?"
        decision = (await client.call_tool("can_help", request(knowledge))).structured_content
        response = (await client.call_tool("respond", request(knowledge))).structured_content
        data = (await client.call_tool("can_help", request(
            "Which files contain the hourly sensor readings for March 2024?"))).structured_content
        listing = (await client.read_resource("search-agent://documents"))[0].text

    assert decision["can_help"] and decision["agent_name"] == "demo-search"
    assert 0.5 <= decision["confidence"] <= 0.9
    assert response["can_help"] and "docs/air_quality_index.md" in response["sources"]
    assert response["sources"][0] == "docs/air_quality_index.md"
    assert "interpolation" in response["answer"] and "maximum" in response["answer"]
    assert not data["can_help"] and data["confidence"] <= 0.1
    assert '"docs/glossary.html"' in listing
