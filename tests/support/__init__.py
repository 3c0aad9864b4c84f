"""Real MCP servers and fixtures that tests (and benchmarks) start as subprocesses."""
