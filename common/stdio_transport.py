"""MCP over stdin and stdout, with a size cap per message and an answer to every malformed line.

The SDK's stdio transport reads a line of any size, and passes a line that is not a JSON-RPC
message on as an exception the server only logs, so the client waits for its own timeout.
Here a line longer than the cap (`LAKEBOARD_STDIO_MAX_BYTES`, 4 MiB by default) is skipped
without being held in memory, and it, a line that is not JSON (-32700, too deeply nested
brackets included) and one that is not a JSON-RPC message (-32600) each get a JSON-RPC error
carrying the request's id when it can be read; the server then reads on. Both sides serve
with it: the helpers (servers/) and the gateway (host/gateway/).

While serving, fd 0 reads the null device and fd 1 writes to stderr, so a child process or a
stray print can neither steal input nor corrupt the protocol (as in the SDK's transport).
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import TYPE_CHECKING, BinaryIO

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError, jsonrpc_message_adapter
from pydantic import ValidationError

if TYPE_CHECKING:
    from fastmcp import FastMCP

log = logging.getLogger(__name__)

MAX_BYTES_ENV = "LAKEBOARD_STDIO_MAX_BYTES"
DEFAULT_MAX_BYTES = 4 * 1024 * 1024
_HEAD_BYTES = 4096  # where an oversized request's id is looked for
_SKIP_CHUNK = 1 << 16

# The id of a request whose line cannot be parsed whole: clients write "jsonrpc", "id" and
# "method" before the params, so the id is found in the line's first bytes. A number is taken
# whole (a comma or brace after it) or not at all: its first digits would be another request's id.
_ID_AT = rb'\A\s*\{\s*(?:"(?:jsonrpc|method)"\s*:\s*"[^"\\]*"\s*,\s*)*"id"\s*:\s*'
_MAX_ID_DIGITS = 4300  # the longest integer Python's json reads (sys.get_int_max_str_digits)
_LEADING_ID = re.compile(_ID_AT + rb'(-?\d{1,%d}(?=\s*[,}])|"(?:[^"\\]|\\.){0,256}")' % _MAX_ID_DIGITS)
_LONG_NUMBER_ID = re.compile(_ID_AT + rb'-?(\d{%d,})' % (_MAX_ID_DIGITS + 1))


def max_bytes_from_env() -> int:
    """The cap per message: `LAKEBOARD_STDIO_MAX_BYTES` when it is a positive number of bytes, else 4 MiB."""
    value = os.environ.get(MAX_BYTES_ENV, "").strip()
    if not value:
        return DEFAULT_MAX_BYTES
    if value.isdigit() and int(value) > 0:
        return int(value)
    log.warning("%s=%r is not a positive number of bytes; using %d.", MAX_BYTES_ENV, value, DEFAULT_MAX_BYTES)
    return DEFAULT_MAX_BYTES


def serve_stdio(server: FastMCP, max_bytes: int | None = None) -> None:
    """Serve `server` over this process's stdin and stdout until stdin closes."""
    anyio.run(_serve, server, max_bytes or max_bytes_from_env())


async def _serve(server: FastMCP, max_bytes: int) -> None:
    from fastmcp.server.context import reset_transport, set_transport

    token = set_transport("stdio")
    try:
        async with stdio_streams(max_bytes) as (read_stream, write_stream):
            # fastmcp's own stdio and in-memory transports run the low-level server this way.
            low_level = server._mcp_server
            await low_level.run(read_stream, write_stream, low_level.create_initialization_options())
    finally:
        reset_transport(token)


@contextmanager
def _claimed(fd: int, divert: int) -> Iterator[int]:
    """A private copy of standard descriptor `fd` for the protocol; `fd` points at `divert` meanwhile."""
    private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    os.dup2(divert, fd)
    os.close(divert)
    try:
        yield private
    finally:
        # The private copy stays open: a reading thread may still block on it.
        os.dup2(private, fd)


@asynccontextmanager
async def stdio_streams(
    max_bytes: int,
) -> AsyncIterator[tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]]:
    """The read and write streams an MCP server runs on, over this process's stdin and stdout."""
    with _claimed(0, os.open(os.devnull, os.O_RDONLY)) as stdin_fd, _claimed(1, os.dup(2)) as stdout_fd:
        stdin = open(stdin_fd, "rb", closefd=False)  # never closed: see _claimed
        read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](0)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_read_messages, stdin, max_bytes, read_send, write_send.clone())
            tasks.start_soon(_write_messages, stdout_fd, write_receive)
            yield read_receive, write_send


def read_line(stream: BinaryIO, max_bytes: int) -> tuple[bytes, int] | None:
    """The next line (whole when it fits in `max_bytes`, else its head) and its size; None at the end.

    A longer line is read to its end in chunks and dropped, so it never sits in memory.
    """
    line = stream.readline(max_bytes + 1)
    if not line:
        return None
    if len(line) <= max_bytes or line.endswith(b"\n"):
        return line, len(line.rstrip(b"\r\n"))
    size = len(line)
    while True:
        chunk = stream.readline(_SKIP_CHUNK)
        size += len(chunk.rstrip(b"\r\n"))
        if not chunk or chunk.endswith(b"\n"):
            return line[:_HEAD_BYTES], size


async def _read_messages(
    stdin: BinaryIO,
    max_bytes: int,
    messages: MemoryObjectSendStream[SessionMessage | Exception],
    replies: MemoryObjectSendStream[SessionMessage],
) -> None:
    async with messages, replies:
        while True:
            item = await anyio.to_thread.run_sync(read_line, stdin, max_bytes, abandon_on_cancel=True)
            if item is None:
                return
            line, size = item
            if size > max_bytes:
                error = ErrorData(code=INVALID_REQUEST, message=(
                    f"Request too large: {size:,} bytes is over this server's limit of {max_bytes:,} bytes "
                    f"per message; send less, or raise {MAX_BYTES_ENV} where the server starts."))
                await replies.send(_error(_leading_id(line), error))
                continue
            if not line.strip():
                continue
            try:
                message = jsonrpc_message_adapter.validate_json(line, by_name=False)
            except ValidationError:
                reply = _invalid_line_reply(line)
                if reply is not None:
                    await replies.send(reply)
                continue
            await messages.send(SessionMessage(message))


async def _write_messages(stdout_fd: int, outgoing: MemoryObjectReceiveStream[SessionMessage]) -> None:
    async with outgoing:
        async for session_message in outgoing:
            data = session_message.message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"
            await anyio.to_thread.run_sync(_write_all, stdout_fd, data)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _invalid_line_reply(line: bytes) -> SessionMessage | None:
    """The error for a line that is not a JSON-RPC message; None for a malformed reply (nothing awaits it)."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError) as exc:
        # json.loads recurses once per bracket: a line of a few KB of "[[[[" is a RecursionError.
        if isinstance(exc, RecursionError):
            reason = "nested too deeply"
        elif not isinstance(exc, json.JSONDecodeError) and (long_id := _LONG_NUMBER_ID.match(line)):
            error = ErrorData(code=INVALID_REQUEST, message=(
                f"Invalid request: its id is a number of {len(long_id.group(1)):,} digits, more than this server "
                f"can read back exactly ({_MAX_ID_DIGITS:,}); use a string id, or a shorter number."))
            return _error(None, error)
        elif isinstance(exc, json.JSONDecodeError):
            reason = exc.msg
        else:
            reason = "not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else f"a number of over {_MAX_ID_DIGITS:,} digits"
        error = ErrorData(code=PARSE_ERROR, message=f"Parse error: the message is not valid JSON ({reason}).")
        return _error(_leading_id(line), error)
    if isinstance(value, dict) and "method" not in value and ("result" in value or "error" in value):
        log.warning("Dropped a malformed JSON-RPC reply from the client (id %r).", value.get("id"))
        return None
    error = ErrorData(code=INVALID_REQUEST, message="Invalid request: the message is not a JSON-RPC 2.0 request, "
                      "notification or reply (it needs \"jsonrpc\": \"2.0\" and a \"method\" or an \"id\").")
    request_id = value.get("id") if isinstance(value, dict) else None
    return _error(request_id if _is_id(request_id) else None, error)


def _leading_id(line: bytes) -> int | str | None:
    match = _LEADING_ID.match(line[:_HEAD_BYTES])
    if match is None:
        return None
    try:
        value = json.loads(match.group(1))
    except ValueError:
        return None
    return value if _is_id(value) else None


def _is_id(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _error(request_id: int | str | None, error: ErrorData) -> SessionMessage:
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id, error=error))
