"""Which client session an MCP call belongs to, for servers that keep something per session.

A handshake-era connection (the initialize handshake: stdio, or a streamable HTTP session
with its Mcp-Session-Id) is one session, ended when its connection closes. Over stdio the
whole process serves one client, whatever the protocol era. A 2026-era call over HTTP
carries no session at all: with one shared token, nothing tells two such clients apart, so
it belongs to none (the caller refuses what needs a session).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from mcp_types.version import MODERN_PROTOCOL_VERSIONS

if TYPE_CHECKING:
    from fastmcp import Context

PROCESS = "process"  # the one client of a stdio server
_REGISTERED = "lakeboard_session_end"

NO_SESSION = (
    "This call has no MCP session (a stateless, 2026-era request over HTTP), so it cannot be told apart from "
    "other clients' calls and would share their {what}: connect with a session instead (the initialize "
    "handshake, protocol 2025-11-25 or earlier; fastmcp's Client(mode='legacy')), or over stdio."
)


def client_session(ctx: Context) -> str | None:
    """The key of the client session `ctx`'s call belongs to, or None where it has none."""
    if ctx.transport not in ("streamable-http", "sse"):
        return PROCESS  # stdio (or in memory): one client for the process's life
    return None if _stateless(ctx) else ctx.session_id


def _stateless(ctx: Context) -> bool:
    connection = getattr(ctx.session, "_connection", None)  # mcp keeps it private; fastmcp reads it too
    return connection is None or connection.protocol_version in MODERN_PROTOCOL_VERSIONS


def when_session_ends(ctx: Context, key: str, callback: Callable[[str], Awaitable[None]]) -> None:
    """Call `callback(key)` once `ctx`'s connection closes (an HTTP session's DELETE, or the
    server's idle timeout for it); the process's own session ends with the server."""
    if key == PROCESS or _stateless(ctx):
        return
    connection = ctx.session._connection
    if not connection.state.get(_REGISTERED):
        connection.state[_REGISTERED] = True
        connection.exit_stack.push_async_callback(callback, key)
