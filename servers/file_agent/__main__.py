"""`python -m lakeboard.servers.file_agent --config configs/NAME/clusters.json --cluster CLUSTER`."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from lakeboard.common.private_files import keep_new_files_private
from lakeboard.common.process_exit import exit_now
from lakeboard.common.http_security import add_http_arguments, http_settings, serve_http, token_file
from lakeboard.common.gc_pauses import quick_imports

# At the top, not in main(): a fork server imports this module once for all its servers.
with quick_imports():
    from lakeboard.servers.file_agent.agent import FileAgent
    from lakeboard.servers.file_agent.analysis_store import AnalysisStore
    from lakeboard.servers.file_agent.server import build_server
    from lakeboard.common.stdio_transport import serve_stdio
    from lakeboard.servers.file_agent.warm_start import cluster_config, warm  # noqa: F401 - the fork server calls warm


def main(argv: list[str] | None = None) -> int:
    keep_new_files_private()  # what it writes (analyses, notebooks, workdir files) is its owner's alone
    ap = argparse.ArgumentParser(prog="python -m lakeboard.servers.file_agent", description=__doc__)
    ap.add_argument("--config", required=True, type=Path, help="clusters.json written by `lakeboard index`")
    ap.add_argument("--cluster", required=True, help="name of the cluster this agent serves")
    ap.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    add_http_arguments(ap, port=8000)
    ap.add_argument("--log-level", default="WARNING")
    args = ap.parse_args(argv)
    # stdout is the MCP channel over stdio: logs go to stderr only.
    logging.basicConfig(level=args.log_level, stream=sys.stderr)

    try:
        config = cluster_config(args.config)
        agent = FileAgent(config, args.cluster)
    except (OSError, ValueError, KeyError) as exc:
        print(f"file agent: cannot start: {exc}", file=sys.stderr)
        return 2
    server = build_server(agent, AnalysisStore(args.config.parent))
    if args.transport == "http":
        settings = http_settings(args)
        serve_http(server, settings, token_path=token_file("file_agent", settings.port, args.config.parent))
    else:
        serve_stdio(server)
    return 0


if __name__ == "__main__":
    exit_now(main())
