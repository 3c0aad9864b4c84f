"""`python -m lakeboard.servers.search_agent`: run the search agent over stdio or streamable HTTP."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence

from lakeboard.common.private_files import keep_new_files_private
from lakeboard.common.process_exit import exit_now
from lakeboard.common.http_security import http_settings, serve_http, token_file
from lakeboard.common.gc_pauses import quick_imports
from lakeboard.servers.search_agent.settings import settings_from_argv


def preload():
    """The server's heavy part (fastmcp, mcp, the agent), imported once its arguments are found good, so
    that a refusal costs a tenth of a second, not over a second; a fork server calls it at its start."""
    with quick_imports():
        from lakeboard.servers.search_agent.server import build_server
        from lakeboard.common.stdio_transport import serve_stdio
    return build_server, serve_stdio


def main(argv: Sequence[str] | None = None) -> None:
    keep_new_files_private()  # what it writes (analyses, notebooks, workdir files) is its owner's alone
    settings, args = settings_from_argv(argv)
    # stdout is the MCP channel over stdio: logs go to stderr.
    logging.basicConfig(stream=sys.stderr, level=args.log_level,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    log = logging.getLogger("lakeboard.servers.search_agent")
    shown = {k: v for k, v in settings.sources.items() if v != "default" or k in ("backend", "sampling")}
    log.info("search agent %r: backend=%s, docs=%s; settings from %s", settings.name, settings.backend,
             [str(d) for d in settings.docs], shown)
    problem = settings.problem()
    if problem:
        log.warning("%s The server starts, but declines every request until this is fixed.", problem)

    build_server, serve_stdio = preload()
    server = build_server(settings)
    if args.transport == "stdio":
        serve_stdio(server)
    else:
        http = http_settings(args)
        serve_http(server, http, token_path=token_file("search_agent", http.port), log_level=args.log_level.lower())


if __name__ == "__main__":
    main()
    exit_now(0)
