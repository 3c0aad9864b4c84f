"""A tiny real blackboard helper: a fastmcp server with `can_help` and `respond`.

Tests and benchmarks start it as a subprocess, over stdio or streamable HTTP, to
exercise the host's pool and blackboard against real MCP sessions. Behaviour is set
by flags: how long each tool takes, whether it volunteers, and how it misbehaves.

    python -m tests.support.toy_helper --name a --delay-ms 200
    python -m tests.support.toy_helper --name b --transport http --port 8765
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
import warnings
from pathlib import Path

import anyio

# Run as a script (`python tests/support/toy_helper.py`) the repo root is not on the path.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from fastmcp import Context, FastMCP  # noqa: E402
from fastmcp.exceptions import ToolError  # noqa: E402

from mcp_types import SamplingMessage, TextContent  # noqa: E402

from lakeboard.schemas.messages import (  # noqa: E402
    FileAgentResponse,
    HelpDecision,
    SearchAgentResponse,
)

PHASES = ("can_help", "respond")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--name", required=True, help="agent_name reported in decisions and responses")
    p.add_argument("--delay-ms", type=float, default=0.0, help="sleep before answering each tool call")
    p.add_argument("--volunteer", choices=("yes", "no"), default="yes")
    p.add_argument("--confidence", type=float, default=0.5)
    p.add_argument("--kind", choices=("file", "search"), default="file", help="which response model respond returns")
    p.add_argument("--crash-on", choices=PHASES, help="exit the process (code 3) when this tool is called")
    p.add_argument("--hang-on", choices=PHASES, help="never answer this tool")
    p.add_argument("--hold-while", metavar="PATH",
                   help="can_help and respond answer only once PATH does not exist (pings are answered meanwhile)")
    p.add_argument("--error-on", choices=PHASES, help="raise a tool error from this tool")
    p.add_argument("--bad-output-on", choices=PHASES, help="return a dict that fails the host's validation")
    p.add_argument("--not-helper", action="store_true", help="expose no can_help tool (like the kernel server)")
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--block-cpu-ms", type=float, default=0.0, help="busy-loop (blocking the event loop) per call")
    p.add_argument("--mute", action="store_true", help="start, then never answer anything (not even initialize)")
    p.add_argument("--sample", action="store_true",
                   help="can_help asks the client's model first (MCP sampling, system prompt 'You are toy helper NAME')")
    return p.parse_args(argv)


def build_server(args: argparse.Namespace) -> FastMCP:
    mcp = FastMCP(f"toy-helper-{args.name}")

    async def misbehave(phase: str) -> None:
        if args.crash_on == phase:
            logging.getLogger(__name__).warning("crashing on %s as asked", phase)
            os._exit(3)
        if args.block_cpu_ms:
            end = time.perf_counter() + args.block_cpu_ms / 1000
            while time.perf_counter() < end:
                pass
        if args.delay_ms:
            await anyio.sleep(args.delay_ms / 1000)
        if args.hang_on == phase:
            await anyio.sleep_forever()
        while args.hold_while and os.path.exists(args.hold_while):
            await anyio.sleep(0.1)
        if args.error_on == phase:
            raise ToolError(f"{args.name} failed on purpose in {phase}")

    @mcp.tool
    async def whoami() -> dict:
        """Name, process id (tests kill it), working directory, the probe variables, every variable's name."""
        return {
            "name": args.name,
            "pid": os.getpid(),
            "cwd": os.getcwd(),
            "env": {k: v for k, v in os.environ.items() if k.startswith("LAKEBOARD_TOY_")},
            "env_names": sorted(os.environ),
        }

    if not args.not_helper:

        @mcp.tool
        async def can_help(request: str, ctx: Context, reason: str = "") -> HelpDecision:
            """Decide whether this helper can help with the request."""
            await misbehave("can_help")
            if args.sample:
                await ask_the_clients_model(ctx, f"You are toy helper {args.name}", request)
            if args.bad_output_on == "can_help":
                return {"agent_name": args.name}  # type: ignore[return-value]
            return HelpDecision(
                agent_name=args.name,
                can_help=args.volunteer == "yes",
                reason=f"{args.name} saw: {request}",
                confidence=args.confidence,
            )

        if args.kind == "file":

            @mcp.tool
            async def respond(request: str, reason: str = "") -> FileAgentResponse:
                """Answer the request with files."""
                await misbehave("respond")
                if args.bad_output_on == "respond":
                    return {"agent_name": args.name, "confidence": 7}  # type: ignore[return-value]
                return FileAgentResponse(
                    agent_name=args.name,
                    can_help=True,
                    reason=f"answering: {request}",
                    files=[f"{args.name}/data.csv"],
                    confidence=args.confidence,
                )

        else:

            @mcp.tool
            async def respond(request: str, reason: str = "") -> SearchAgentResponse:  # type: ignore[no-redef]
                """Answer the request with a search result."""
                await misbehave("respond")
                if args.bad_output_on == "respond":
                    return {"agent_name": args.name, "confidence": 7}  # type: ignore[return-value]
                return SearchAgentResponse(
                    agent_name=args.name,
                    can_help=True,
                    reason=f"answering: {request}",
                    answer=f"{args.name} found it",
                    sources=["https://example.org/doc"],
                    confidence=args.confidence,
                )

    return mcp


async def ask_the_clients_model(ctx: Context, system: str, text: str) -> str:
    """One completion from the client's model, asked while the tool call is open (handshake era)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = await ctx.session.create_message(
            [SamplingMessage(role="user", content=TextContent(type="text", text=text))],
            max_tokens=64, system_prompt=system, related_request_id=ctx.request_id,
        )
    return getattr(result.content, "text", "")


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    if args.mute:
        while True:
            time.sleep(3600)
    server = build_server(args)
    if args.transport == "stdio":
        server.run("stdio", show_banner=False)
    else:
        server.run("http", show_banner=False, host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
