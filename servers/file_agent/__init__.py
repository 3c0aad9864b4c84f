"""The file-agent MCP server: one per partition of the lake."""
