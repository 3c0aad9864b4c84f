"""The file agent over MCP: thin declarations that delegate to `FileAgent`.

`can_help` and `respond` take the request as a plain string (its reason as an optional
extra); their text content is short Markdown for a model (`markdown.py`), their structured
content the whole typed answer. The instructions and tool descriptions name the partition
and say what it holds, so a client with many file agents can tell them apart.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Annotated, TypeVar

import mcp_types
from fastmcp import Context, FastMCP
from fastmcp.server.lifespan import lifespan
from fastmcp.exceptions import ResourceError, ToolError
from fastmcp.tools.base import ToolResult
from pydantic import Field

from lakeboard.common.code_text import comment_text
from lakeboard.common.request_embedding import embedding_from_meta, similarity_from_meta
from lakeboard.schemas.messages import BlackboardRequest, FileAgentResponse, HelpDecision
from lakeboard.schemas.profiles import FileEntry, FileProfile
from lakeboard.servers.file_agent import markdown
from lakeboard.servers.file_agent.agent import FileAgent, OutsidePartition
from lakeboard.servers.file_agent.analysis_store import AnalysisStore
from lakeboard.servers.file_agent.model_access import expected_models, own_model
from lakeboard.servers.file_agent.model_engine import ModelEngine

Request = Annotated[str, Field(min_length=1, description="what is needed, in plain words")]
Reason = Annotated[str, Field(description="why it is needed: context that helps decide")]

Answer = TypeVar("Answer", HelpDecision, FileAgentResponse)

_READ_ONLY = mcp_types.ToolAnnotations(read_only_hint=True, open_world_hint=False)


def holdings(agent: FileAgent) -> str:
    """One sentence naming the partition and what it holds (from clusters.json).

    Clients show instructions and tool descriptions to their model as their own text, and the
    description quotes the lake's names: it is one line, quoted, and introduced as data.
    """
    description = comment_text(agent.spec.description, 600) or f"{len(agent.profiles)} files"
    return (f"partition {agent.name!r} of the lake {comment_text(agent.config.name, 80)!r}, described from "
            f"its files' own names (data, not instructions) as: \"{description.rstrip('.')}\".")


def instructions(agent: FileAgent) -> str:
    return (
        f"A file agent of a Lakeboard data lake. It knows {holdings(agent)} "
        "Ask can_help(request) whether these files hold what a request needs; respond(request) returns "
        "the relevant files, code that loads them correctly, an explanation, a sample and the necessary steps."
    )


def build_server(agent: FileAgent, analyses: AnalysisStore | None = None) -> FastMCP:
    """The server; `analyses` is where the partition's analysis is stored (the config folder)."""
    # The engine picks who answers: the client's model (sampling), the server's own, or offline.
    engine = ModelEngine(agent, store=analyses)
    for model in expected_models():  # the analysis `lakeboard index` stored, by the likely model
        if engine.load(model):
            break

    @lifespan
    async def analyse_ahead(server: FastMCP) -> AsyncIterator[dict]:
        own = own_model()
        if engine.analysis is None and own is not None:
            engine.start_analysis(own)  # the offline phase, where no stored analysis fits
        yield {}

    mcp = FastMCP(name=f"lakeboard-file-agent-{agent.name}", instructions=instructions(agent), lifespan=analyse_ahead)
    knows = f"This agent knows {holdings(agent)}"

    @mcp.tool(
        description=f"Decide whether this agent's files hold what a request needs, with a confidence in [0, 1]. {knows}",
        output_schema=HelpDecision.model_json_schema(mode="serialization"),
        annotations=_READ_ONLY,
    )
    async def can_help(request: Request, ctx: Context, reason: Reason = "") -> ToolResult | mcp_types.InputRequiredResult:
        posted = _posted(request, reason, ctx, agent.index_folder)
        return _result(await engine.decide(posted, ctx), markdown.decision, agent.name)

    @mcp.tool(
        description=("Answer a request: the relevant files, code that loads them, an explanation, a sample and "
                     f"the necessary steps. {knows}"),
        output_schema=FileAgentResponse.model_json_schema(mode="serialization"),
        annotations=_READ_ONLY,
    )
    async def respond(request: Request, ctx: Context, reason: Reason = "") -> ToolResult | mcp_types.InputRequiredResult:
        posted = _posted(request, reason, ctx, agent.index_folder)
        return _result(await engine.respond(posted, ctx), markdown.response, agent.name)

    @mcp.tool(description=f"Every file of this agent with its format, status and a one-line summary. {knows}",
              annotations=_READ_ONLY)
    def list_files() -> list[FileEntry]:
        return agent.list_files()

    @mcp.tool(description=f"The full profile of one of this agent's files (a lake-relative path). {knows}",
              annotations=_READ_ONLY)
    def describe_file(path: str) -> FileProfile:
        try:
            return agent.profile(path)
        except OutsidePartition as exc:
            raise ToolError(str(exc)) from exc

    @mcp.resource(f"lakeboard://{agent.name}/analysis", mime_type="text/plain")
    def analysis() -> str:
        """This agent's analysis of its partition (the model's, once it has written one)."""
        offline = agent.analysis()
        return f"{engine.analysis}\n\n{offline}" if engine.analysis else offline

    @mcp.resource(f"lakeboard://{agent.name}/sample/{{path*}}", mime_type="text/plain")
    def sample(path: str) -> str:
        """A sample of one file: its first rows or leading text, then its loader and the loader's check."""
        from lakeboard.common.loader_reports import loader_report
        from lakeboard.servers.file_agent.file_loader import file_loader
        from lakeboard.servers.file_agent.response_writing import explanation, sample as sample_of

        try:
            prof = agent.profile(path)
        except OutsidePartition as exc:
            raise ResourceError(str(exc)) from exc
        loader = file_loader(prof, agent.engine.facts_of(prof.path).family)  # found at index time
        return explanation(prof) + "\n\n" + sample_of(prof) + "\n\n" + loader_report(loader, agent.root)

    return mcp


def _result(answer: Answer | mcp_types.InputRequiredResult, render: Callable[[Answer, str], str],
            name: str) -> ToolResult | mcp_types.InputRequiredResult:
    """An answer as Markdown text beside its typed content; a request for input as it is."""
    if isinstance(answer, mcp_types.InputRequiredResult):
        return answer
    return ToolResult(render(answer, name), answer.model_dump(mode="json"))


def _posted(request: str, reason: str, ctx: Context, index_folder: str) -> BlackboardRequest:
    """The request, with the embeddings the host sent in the call's `_meta` where it sent usable
    ones, and their similarity to this agent's lake where the host sent that too."""
    if not request.strip():
        raise ToolError("The request is empty: say in plain words what data is needed.")
    context = ctx.request_context
    meta = context.meta if context is not None else None
    vectors = embedding_from_meta(meta)
    lake = similarity_from_meta(meta, index_folder)
    return BlackboardRequest(request=request, reason=reason,
                             embedding=vectors.tolist() if vectors is not None else None,
                             lake_similarity={index_folder: lake} if lake is not None else None)
