"""The gateway over MCP: one server named `lakeboard`, thin declarations over `Gateway`.

Tools: request_help (the blackboard), run_code (the sandboxed kernel, one per client
session), list_partitions. Prompts: answer_question, find_data. Resources: the lake's
overview, each partition, and file samples with their loaders, read from the file agents.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Annotated

from fastmcp import Context, FastMCP
from fastmcp.exceptions import ResourceError, ToolError
from fastmcp.server.lifespan import lifespan
from fastmcp.tools.base import ToolResult
from mcp_types import ImageContent, TextContent, ToolAnnotations
from pydantic import Field

from lakeboard.common.client_sessions import NO_SESSION, client_session, when_session_ends
from lakeboard.common.execution_images import image_content
from lakeboard.common.live_sessions import SessionRefused
from lakeboard.host.gateway import mcp_prompts
from lakeboard.host.gateway.gateway import Gateway, NotAvailable, describe
from lakeboard.host.gateway.models import HelpBoard, Partitions
from lakeboard.host.kernel_session import KernelUnavailable, render_execution
from lakeboard.schemas.execution import ExecutionResult

log = logging.getLogger(__name__)


def instructions(gateway: Gateway) -> str:
    lake = gateway.lake
    return (
        f"Lakeboard: the blackboard of the data lake at {lake.root or lake.config_dir}. Call request_help with what "
        "data you need, in plain words: every helper agent (a file agent per partition of the lake, and a search "
        "agent when there is one) decides by itself whether it can help, and the volunteers answer with the files, "
        "code that loads them, an explanation and the necessary steps. run_code runs Python in a sandboxed kernel "
        "where the lake is read-only at its real path. The answer_question prompt gives the whole protocol; "
        "lakeboard://lake says what the lake holds."
    )


def build_server(gateway: Gateway) -> FastMCP:
    @lifespan
    async def gateway_lifespan(server: FastMCP) -> AsyncIterator[dict]:
        await gateway.start()
        try:
            yield {"gateway": gateway}
        finally:
            await gateway.close()

    mcp = FastMCP("lakeboard", instructions=instructions(gateway), lifespan=gateway_lifespan)

    @mcp.tool(
        output_schema=HelpBoard.model_json_schema(mode="serialization"),
        annotations=ToolAnnotations(read_only_hint=True),
    )
    async def request_help(
        request: Annotated[str, Field(min_length=1, description="what you need, in plain words: quantities, places, period")],
        reason: Annotated[str, Field(description="why you need it (context that helps the helpers decide)")] = "",
    ) -> ToolResult:
        """Post a request on the lake's blackboard. Every helper sees it at once and decides by itself whether it
        can help; the volunteers answer with files, code that loads them, an explanation, a sample and the
        necessary steps. Returns the response board: every response, and who declined, timed out or failed."""
        if not request.strip():
            raise ToolError("The request is empty: say in plain words what data you need.")
        answer = await gateway.request_help(request, reason)
        return ToolResult(answer.text, answer.board.model_dump(mode="json"))

    @mcp.tool(
        output_schema=ExecutionResult.model_json_schema(mode="serialization"),
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False),
    )
    async def run_code(
        code: Annotated[str, Field(description="Python source of one cell (IPython syntax)")],
        ctx: Context,
        timeout_s: Annotated[float | None, Field(gt=0, le=24 * 3600, description="wall-clock limit for this cell")] = None,
    ) -> ToolResult:
        """Run Python in this session's sandboxed kernel: the lake is read-only at its real path, there is no
        network, and variables persist between calls. Returns stdout, the last expression's value and any error."""
        try:
            result = await gateway.run_code(_session_of(ctx, gateway), code, timeout_s)
        except (KernelUnavailable, SessionRefused) as exc:
            raise ToolError(str(exc)) from None
        return ToolResult(_content(result), result.model_dump(mode="json"))

    @mcp.tool(
        output_schema=Partitions.model_json_schema(mode="serialization"),
        annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False),
    )
    async def list_partitions() -> ToolResult:
        """The lake's partitions: each one's name, what it holds and how many files, and the file agent serving it."""
        partitions = await gateway.partitions()
        return ToolResult(describe(partitions), partitions.model_dump(mode="json"))

    @mcp.prompt
    def answer_question(question: Annotated[str, Field(description="the question about the lake's data")]) -> str:
        """Answer a question about the lake as the paper's main agent: plan, reason, ask the blackboard, run code,
        and answer with a self-contained program that prints its answer as JSON (at most 10 actions)."""
        return mcp_prompts.answer_question(question, *_lake_words(gateway))

    @mcp.prompt
    def find_data(need: Annotated[str, Field(description="the data you need, in plain words")]) -> str:
        """Find the files of the lake that hold some data, and the code that loads them."""
        return mcp_prompts.find_data(need, *_lake_words(gateway))

    @mcp.resource("lakeboard://lake", mime_type="text/markdown")
    async def lake() -> str:
        """The lake: its folder, its partitions and what each holds, the other helpers and the kernel."""
        return await gateway.overview()

    @mcp.resource("lakeboard://partitions/{name}", mime_type="text/markdown")
    def partition(name: str) -> str:
        """One partition of the lake: what it holds, why its files belong together, and its files."""
        try:
            return gateway.partition_page(name)
        except NotAvailable as exc:
            raise ResourceError(str(exc)) from None

    @mcp.resource("lakeboard://files/{path*}", mime_type="text/plain")
    async def file_sample(path: str) -> str:
        """A file's first rows or leading text (lake-relative path), then the code that loads it and whether that
        code was checked on the file, all from the file agent that holds it."""
        try:
            return await gateway.sample(path)
        except NotAvailable as exc:
            raise ResourceError(str(exc)) from None

    return mcp


def _session_of(ctx: Context, gateway: Gateway) -> str:
    """The client session a call belongs to; its kernel stops when the session's connection closes.

    Over stdio the gateway has one client. Over HTTP a handshake-era session is one; a 2026-era
    call has no session, and cannot be told apart from another client's: it gets no kernel.
    """
    session = client_session(ctx)
    if session is None:
        raise ToolError(NO_SESSION.format(what="kernel and its files"))
    when_session_ends(ctx, session, gateway.end_session)
    return session


def _content(result: ExecutionResult) -> list[TextContent | ImageContent]:
    return [TextContent(type="text", text=render_execution(result)), *image_content(result)]


def _lake_words(gateway: Gateway) -> tuple[str, str]:
    """The lake's name and folder, for the prompts."""
    lake = gateway.lake
    return lake.config_dir.name, str(lake.root or "(the folder the kernel mounts)")
