"""The kernel MCP server: a sandboxed Jupyter kernel behind a few tools.

Tools: execute, interrupt, restart, variables, save_notebook.
Resources: kernel://notebook.ipynb (the session so far), kernel://sandbox (the policy).
"""


import logging
from pathlib import PurePath
from typing import Annotated

from fastmcp import Context, FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.lifespan import lifespan
from fastmcp.tools.base import ToolResult
from mcp_types import TextContent, ToolAnnotations
from pydantic import Field

from lakeboard.common.execution_images import image_content
from lakeboard.schemas.execution import (
    IMAGE_TYPES,
    ExecutionResult,
    KernelActionResult,
    NotebookSaved,
    SandboxPolicy,
    VariablesResult,
)
from lakeboard.servers.kernel.config import KernelConfig
from lakeboard.servers.kernel.session import KernelStartError
from lakeboard.servers.kernel.session_kernels import PROCESS, SessionKernels
from lakeboard.servers.kernel.workdir_files import WorkdirPathError

log = logging.getLogger(__name__)

INSTRUCTIONS = """\
A Python (IPython) kernel with notebook semantics: variables persist between `execute` calls.
The lake is mounted read-only at its real absolute path; the working directory (cwd) is the
only writable place, and never an import path. There is no network. Each cell has a wall-clock timeout; long outputs are
truncated. Read kernel://sandbox for the exact limits."""


def render_text(result: ExecutionResult) -> str:
    """The result as plain text, for models that read the content rather than the structure."""
    parts: list[str] = []
    if result.stdout:
        parts.append(result.stdout.rstrip("\n"))
    if result.stderr:
        parts.append("[stderr]\n" + result.stderr.rstrip("\n"))
    for item in result.display:
        text = item.data.get("text/plain")
        if text and not any(mime in item.data for mime in IMAGE_TYPES):
            parts.append(str(text))
    if result.result is not None:
        parts.append(f"Out[{result.execution_count}]: {result.result}")
    if result.error is not None:
        tb = "\n".join(result.error.traceback)
        parts.append(f"{result.error.name}: {result.error.value}" + (f"\n{tb}" if tb else ""))
    if result.warning:
        parts.append(f"[warning] {result.warning}")
    return "\n".join(parts) if parts else "(no output)"


def to_tool_result(result: ExecutionResult) -> ToolResult:
    content = [TextContent(type="text", text=render_text(result)), *image_content(result)]
    return ToolResult(content=content, structured_content=result.model_dump(mode="json"))


def create_server(config: KernelConfig, transport: str = "stdio") -> FastMCP:
    """The server; over HTTP each client session gets its own kernel and workdir."""
    kernels = SessionKernels(config, per_session=transport != "stdio")

    @lifespan
    async def kernel_lifespan(server: FastMCP) -> object:
        if transport == "stdio":
            kernels.open(PROCESS)  # the one client's kernel starts during the MCP handshake
        try:
            yield {"kernels": kernels}
        finally:
            await kernels.close()

    mcp = FastMCP("lakeboard-kernel", instructions=INSTRUCTIONS, lifespan=kernel_lifespan)

    @mcp.tool(
        output_schema=ExecutionResult.model_json_schema(mode="serialization"),
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False),
    )
    async def execute(
        code: Annotated[str, Field(description="Python source of one cell (IPython syntax)")],
        ctx: Context,
        timeout_s: Annotated[
            float | None,
            Field(gt=0, le=24 * 3600, description=f"wall-clock limit for this cell (default {config.timeout_s:g} s)"),
        ] = None,
    ) -> ToolResult:
        """Run a cell in the kernel; variables persist across calls. Returns stdout, stderr, the
        last expression's repr, rich displays (images as image content), and any error."""
        async with kernels.use(ctx) as (session, note):
            result = await _guard(session.execute(code, timeout_s))
        if note is not None:
            result.warning = " ".join(filter(None, [note, result.warning]))
            result.restarted = True
        return to_tool_result(result)

    @mcp.tool
    async def interrupt(ctx: Context) -> KernelActionResult:
        """Interrupt the running cell (KeyboardInterrupt); variables are kept."""
        async with kernels.use(ctx) as (session, _):
            return await _guard(session.interrupt())

    @mcp.tool
    async def restart(ctx: Context) -> KernelActionResult:
        """Restart the kernel: all variables are lost (the recorded notebook is kept)."""
        async with kernels.use(ctx) as (session, _):
            return await _guard(session.restart())

    @mcp.tool
    async def variables(ctx: Context) -> VariablesResult:
        """List the user's variables: name, type, shape or length, dtype and a short preview."""
        async with kernels.use(ctx) as (session, _):
            try:
                return await session.variables()
            except (TimeoutError, RuntimeError) as exc:  # KernelStartError is a RuntimeError
                raise ToolError(str(exc)) from exc

    @mcp.tool
    async def save_notebook(
        path: Annotated[str, Field(description="where to write the .ipynb, inside the workdir; relative paths are under it")],
        ctx: Context,
    ) -> NotebookSaved:
        """Save every executed cell and its outputs so far as a Jupyter notebook (.ipynb)."""
        if PurePath(path).suffix != ".ipynb":
            raise ToolError(f"Give a file path ending in .ipynb (got {path!r}).")
        async with kernels.use(ctx) as (session, _):
            workdir = session.config.workdir
            try:
                written = session.notebook.save(path, workdir, config.lake)
            except WorkdirPathError as exc:
                raise ToolError(str(exc)) from None
            except OSError as exc:
                raise ToolError(f"Cannot write the notebook {path!r}: {exc.strerror or exc}.") from None
            return NotebookSaved(path=str(written), cells=session.notebook.cell_count,
                                 sandboxed=session.sandboxed, warning=session.warning)

    @mcp.resource("kernel://notebook.ipynb", mime_type="application/x-ipynb+json")
    async def notebook(ctx: Context) -> str:
        """The session so far as a Jupyter notebook (nbformat 4)."""
        async with kernels.use(ctx, resource=True) as (session, _):
            return session.notebook.to_json()

    @mcp.resource("kernel://sandbox", mime_type="application/json")
    async def sandbox(ctx: Context) -> str:
        """What the kernel may do: lake (read-only), workdir, network, limits."""
        async with kernels.use(ctx, resource=True) as (session, _):
            try:
                await session.ready()  # how the process limit is enforced is known once started
            except KernelStartError:
                pass
            policy: SandboxPolicy = session.policy()
            return policy.model_dump_json(indent=1)

    return mcp


async def _guard(awaitable):  # type: ignore[no-untyped-def]
    try:
        return await awaitable
    except KernelStartError as exc:
        raise ToolError(str(exc)) from exc
