"""Kernel MCP server: a Jupyter kernel in a bubblewrap sandbox (read-only lake, no network).

Run it with `python -m lakeboard.servers.kernel --lake DIR [--workdir DIR]`; build it in-process with
`create_server(KernelConfig(...))`.
"""

from lakeboard.servers.kernel.config import KernelConfig

__all__ = ["KernelConfig", "create_server"]


def __getattr__(name: str):  # lazy: importing the package must not pull fastmcp/jupyter_client
    if name == "create_server":
        from lakeboard.servers.kernel.server import create_server

        return create_server
    raise AttributeError(name)
