"""`lakeboard serve LAKE_OR_CONFIG` (also `python -m lakeboard.host.gateway`): the gateway's command line.

Over stdio (the default) an MCP client starts it as a subprocess, and it speaks the helpers'
transport (common/stdio_transport.py). Over streamable HTTP it checks its callers as every
Lakeboard HTTP server does (common/http_security.py): given no token it makes one, written to
CONFIG/http-tokens/gateway-PORT.token, and to listen beyond loopback it needs one given, since
run_code runs code.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from lakeboard.common.http_security import add_http_arguments, bearer_headers, http_settings
from lakeboard.common.private_files import keep_new_files_private
from lakeboard.host.servers_config import HttpServerEntry

KERNEL_TOKEN_ENV = "LAKEBOARD_KERNEL_TOKEN"
DEFAULT_PORT = 8760
HELPER_TIMEOUT_S = 20.0
INDEX_CHECK_S = 5.0  # a walk of the lake: milliseconds for a thousand files


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("lake", help="a lake folder (indexed on first use) or a config folder")
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    parser.add_argument("--kernel-url", metavar="URL",
                        help="run code on a kernel server elsewhere, e.g. http://linux-box:8765/mcp (a kernel "
                        "server started with --transport http), instead of the config's own kernel")
    parser.add_argument("--kernel-token", metavar="TOKEN",
                        help=f"the remote kernel's --auth-token (env {KERNEL_TOKEN_ENV}, which keeps it out of "
                        "process listings)")
    parser.add_argument("--timeout", type=float, default=HELPER_TIMEOUT_S,
                        help=f"per-helper timeout in seconds, for can_help and again for respond (default "
                        f"{HELPER_TIMEOUT_S:g}: a request_help then ends well within the 60 s MCP clients commonly wait)")
    parser.add_argument("--index-check", type=float, default=INDEX_CHECK_S, metavar="SECONDS",
                        help="look for files added, changed or removed in the lake at most this often, before a "
                        f"request_help, and re-index when it changed (default {INDEX_CHECK_S:g}; 0: before every one)")
    parser.add_argument("--cell-timeout", type=float, default=120.0, help="per-cell timeout in seconds (default 120)")
    parser.add_argument("--max-kernels", type=int, default=None,
                        help="kernels run at once, one per client session; beyond it run_code is refused "
                        "(env LAKEBOARD_MAX_KERNELS; default 4)")
    parser.add_argument("--kernel-idle-timeout", type=float, default=None, metavar="SECONDS",
                        help="stop a session's kernel unused this long (env LAKEBOARD_KERNEL_IDLE_TIMEOUT; default 1800)")
    parser.add_argument("--configs", type=Path,
                        help="where lake configs are written when a lake folder is given (default: "
                        "$LAKEBOARD_HOME/configs, else configs/ in the user data folder)")
    add_http_arguments(parser, port=DEFAULT_PORT)


def serve(args: argparse.Namespace) -> int:
    """Serve until the client goes away (stdio) or the process is stopped (HTTP). Returns the exit code."""
    from lakeboard.host.gateway.kernels import KernelLimits
    from lakeboard.host.lakes import LakeError, resolve_lake

    settings = http_settings(args)
    if args.transport == "http":
        problem = settings.token_problem("gateway (its run_code runs code)")
        if problem is not None:
            print(f"lakeboard serve: {problem}", file=sys.stderr)
            return 2
    try:
        # quiet: over stdio, stdout is the MCP channel; the indexer's messages go to stderr.
        lake = resolve_lake(args.lake, configs=args.configs, quiet=True)
        kernel = _remote_kernel(args)
        kernel_limits = KernelLimits.from_settings(args.max_kernels, args.kernel_idle_timeout)
    except (LakeError, ValueError) as exc:
        print(f"lakeboard serve: {exc}", file=sys.stderr)
        return 2

    from lakeboard.host.gateway.gateway import Gateway
    from lakeboard.host.gateway.server import build_server
    from lakeboard.host.trace import Trace

    with Trace(lake.output(lake.config_dir / "traces" / "gateway.jsonl")) as trace:
        gateway = Gateway(lake, kernel=kernel, helper_timeout_s=args.timeout, cell_timeout_s=args.cell_timeout,
                          trace=trace, kernel_limits=kernel_limits, index_check_s=args.index_check)
        server = build_server(gateway)
        if args.transport == "http":
            from lakeboard.common.http_security import serve_http, token_file

            serve_http(server, settings, token_path=token_file("gateway", settings.port, lake.config_dir))
        else:
            from lakeboard.common.stdio_transport import serve_stdio

            serve_stdio(server)  # the helpers' transport: a size cap, and an answer to every malformed line
    return 0


def _remote_kernel(args: argparse.Namespace) -> HttpServerEntry | None:
    if not args.kernel_url:
        return None
    token = args.kernel_token if args.kernel_token is not None else os.environ.get(KERNEL_TOKEN_ENV)
    try:
        return HttpServerEntry(url=args.kernel_url, headers=bearer_headers(token) if token else {})
    except ValueError:
        raise ValueError(f"--kernel-url {args.kernel_url!r} is not an http:// or https:// address") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m lakeboard.host.gateway",
        description="Serve a lake's blackboard as one MCP server, lakeboard: request_help, run_code, list_partitions.")
    add_arguments(parser)
    parser.add_argument("--log-level", default="WARNING")
    args = parser.parse_args(argv)
    keep_new_files_private()  # traces, logs, and what the servers it starts write
    # stdout is the MCP channel over stdio: logs go to stderr only.
    logging.basicConfig(level=args.log_level, stream=sys.stderr)
    return serve(args)
