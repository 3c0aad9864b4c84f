"""The search agent as a fastmcp server: two tools and one resource over `SearchAgent`.

- `can_help(request)` -> HelpDecision: the agent's own decision (general knowledge: yes;
  the lake's files and data: no).
- `respond(request)` -> SearchAgentResponse: up to `rounds` rounds of queries, `k` pages
  per query, an answer with its sources. Runtime failures (search API down, nothing
  found, missing API keys) come back as `can_help=false` with the reason as a sentence.
- resource `search-agent://documents`: the indexed local documents (JSON).

When the client supports MCP sampling, its model writes the queries and the answer (see
`servers/llm/client_model.py` for both protocol eras); otherwise, or with `--sampling off`, the agent
works offline.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Annotated

import mcp_types as types
from fastmcp import Context, FastMCP
from fastmcp.server.lifespan import lifespan
from pydantic import Field

from lakeboard.common.llm_settings import DEFAULT_TEMPERATURE
from lakeboard.schemas.messages import BlackboardRequest, HelpDecision, SearchAgentResponse
from lakeboard.servers.llm.client_model import InputNeeded, Model, sampling_model
from lakeboard.servers.search_agent.agent import SearchAgent
from lakeboard.servers.search_agent.settings import SearchAgentSettings

log = logging.getLogger(__name__)

DOCUMENTS_URI = "search-agent://documents"

Request = Annotated[str, Field(min_length=1, description="what is needed, in plain words")]
Reason = Annotated[str, Field(description="why it is needed: context that helps decide")]


def build_server(settings: SearchAgentSettings, agent: SearchAgent | None = None) -> FastMCP:
    agent = agent if agent is not None else SearchAgent(settings)

    @lifespan
    async def agent_lifespan(server: FastMCP) -> AsyncIterator[dict]:
        agent.start()
        try:
            yield {"agent": agent}
        finally:
            await agent.aclose()

    mcp = FastMCP(
        settings.name,
        instructions=(
            "Search agent of a Lakeboard blackboard: answers general-knowledge requests (definitions, methods, "
            f"formulas, how a value is computed) by searching {agent.backend.describe()}. Call can_help first; "
            "it declines requests about the lake's data files."
        ),
        lifespan=agent_lifespan,
    )

    def model_for(ctx: Context) -> Model | None:
        # The paper's temperature, as every agent samples.
        return None if settings.sampling == "off" else sampling_model(ctx, temperature=DEFAULT_TEMPERATURE)

    read_only = types.ToolAnnotations(readOnlyHint=True, openWorldHint=settings.backend != "local")

    @mcp.tool(annotations=read_only)
    async def can_help(request: Request, ctx: Context, reason: Reason = "") -> HelpDecision | types.InputRequiredResult:
        """Decide whether the search agent can help with a blackboard request.

        Yes (with a confidence in [0, 1]) for general-knowledge requests: what a term means,
        how an index or metric is computed, which method or formula applies. No for requests
        to find or load data files, datasets, tables or columns.
        """
        try:
            return await agent.decide(BlackboardRequest(request=request, reason=reason), model_for(ctx))
        except InputNeeded as need:
            return need.as_result()

    @mcp.tool(annotations=read_only)
    async def respond(
        request: Request, ctx: Context, reason: Reason = ""
    ) -> SearchAgentResponse | types.InputRequiredResult:
        """Search for the knowledge a blackboard request needs and answer with sources.

        Runs up to 3 rounds of queries, reading the top 3 pages (or local documents) per
        query, and returns the answer, its source URLs or document paths, and the queries.
        """
        try:
            return await agent.respond(BlackboardRequest(request=request, reason=reason), model_for(ctx))
        except InputNeeded as need:
            return need.as_result()

    @mcp.resource(DOCUMENTS_URI, name="documents", mime_type="application/json",
                  description="The local documents the search agent has indexed (path, title, kind, size).")
    async def documents() -> str:
        return (await agent.documents()).model_dump_json(indent=1)

    return mcp
