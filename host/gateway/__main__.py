"""`python -m lakeboard.host.gateway LAKE_OR_CONFIG`: the lake's blackboard as one MCP server (see command.py)."""

from lakeboard.host.gateway.command import main

if __name__ == "__main__":
    raise SystemExit(main())
