"""`python -m lakeboard.servers.kernel --lake DIR [--workdir DIR]`: the sandboxed kernel MCP server."""

from __future__ import annotations

import logging
import sys

from lakeboard.common.private_files import keep_new_files_private
from lakeboard.common.process_exit import exit_now
from lakeboard.common.http_security import serve_http, token_file
from lakeboard.servers.kernel.config import parse_args
from lakeboard.servers.kernel.limits import limits_problem
from lakeboard.servers.kernel.sandbox import UNSAFE_WARNING, bwrap_problem
from lakeboard.common.gc_pauses import quick_imports


def preload():
    """The server's heavy part (fastmcp, mcp, jupyter_client), imported once its arguments are found good, so
    that a refusal costs a tenth of a second, not over a second; a fork server calls it at its start."""
    with quick_imports():
        from lakeboard.servers.kernel.server import create_server
        from lakeboard.common.stdio_transport import serve_stdio
    return create_server, serve_stdio


def main(argv: list[str] | None = None) -> int:
    keep_new_files_private()  # what it writes (analyses, notebooks, workdir files) is its owner's alone
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    config, options = parse_args(argv)
    log = logging.getLogger("lakeboard.servers.kernel")
    if options.transport == "http":
        # The kernel runs code: beyond loopback, a caller must prove who it is.
        problem = options.http.token_problem("kernel server")
        if problem is not None:
            print(f"lakeboard kernel server: {problem}", file=sys.stderr)
            return 2
    if config.unsafe_no_sandbox:
        log.warning(UNSAFE_WARNING)
    else:
        problem = bwrap_problem()
        if problem is not None:
            print(
                f"lakeboard kernel server: refusing to start without a sandbox: {problem}.\n"
                "Install bubblewrap, or pass --unsafe-no-sandbox to run the kernel unconfined "
                "(every result will say so).",
                file=sys.stderr,
            )
            return 2
    problem = limits_problem(config)
    if problem is not None:
        if not config.unsafe_no_limits:
            print(f"lakeboard kernel server: refusing to start: {problem} Pass --unsafe-no-limits to run "
                  "without them (every result will say so).", file=sys.stderr)
            return 2
        log.warning("UNSAFE (--unsafe-no-limits): %s", problem)
    create_server, serve_stdio = preload()
    server = create_server(config, options.transport)
    log.info("lake %s (read-only), workdir %s", config.lake, config.workdir)
    if options.transport == "stdio":
        serve_stdio(server)
    else:
        serve_http(server, options.http, token_path=token_file("kernel", options.http.port))
    return 0


if __name__ == "__main__":
    exit_now(main())
