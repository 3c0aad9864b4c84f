"""The JSONL trace: one TraceEvent per line, appended and flushed as it happens.

A run that crashes keeps every event written before the crash, so the trace is the
record of what each helper was asked, what it decided, answered, and how long it took.

A trace is a record, never a reason to fail: when its file cannot be opened or written (a
full disk, a read-only config folder), the run goes on, one warning says so, and the events
that could not be written are dropped. A write that fails leaves no partial line behind, and
later events are tried again (the disk may have room by then).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from contextlib import suppress
from pathlib import Path
from typing import Any

from lakeboard.schemas.board import TraceEvent

logger = logging.getLogger(__name__)


class Trace:
    """Appends events to a JSONL file, or keeps them in memory when no path is given."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self.events: list[TraceEvent] = []  # only filled for an in-memory trace
        self._fd: int | None = None
        self._closed = False
        self._warned = False
        self._lock = threading.Lock()  # events may come from worker threads too
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
            except OSError as exc:
                self._warn(exc)

    def emit(
        self,
        kind: str,
        *,
        request_id: str | None = None,
        server: str | None = None,
        elapsed_s: float | None = None,
        **data: Any,
    ) -> TraceEvent:
        """Build an event from keyword fields, write it and return it."""
        event = TraceEvent(kind=kind, request_id=request_id, server=server, elapsed_s=elapsed_s, data=data)
        self.write(event)
        return event

    def write(self, event: TraceEvent) -> None:
        line = (event.model_dump_json() + "\n").encode("utf-8")
        with self._lock:
            if self.path is None:
                self.events.append(event)
            elif self._closed:  # a late event from a background task after close(): keep going
                logger.warning("trace %s is closed; dropped a %s event", self.path, event.kind)
            elif self._fd is not None:
                try:
                    _append_line(self._fd, line)
                except OSError as exc:
                    self._warn(exc)

    def _warn(self, exc: OSError) -> None:
        if not self._warned:
            self._warned = True
            logger.warning("The trace %s cannot be written (%s); Lakeboard carries on without it, and drops the "
                           "events it cannot write. Free space or make the folder writable to keep a trace.",
                           self.path, _reason(exc))

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> Trace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _reason(exc: OSError) -> str:
    return f"{exc.strerror}: {exc.filename}" if exc.strerror and exc.filename else exc.strerror or str(exc)


def _append_line(fd: int, line: bytes) -> None:
    """Append `line` whole, or not at all: a reader (or a crash) never sees more than a partial last line,
    and a write that fails half-way (ENOSPC) is cut back off, so the next event starts a line of its own."""
    start = os.lseek(fd, 0, os.SEEK_END)
    view = memoryview(line)
    try:
        while view:
            view = view[os.write(fd, view):]
    except OSError:
        with suppress(OSError):
            os.ftruncate(fd, start)
        raise


def read_trace(path: str | Path) -> list[TraceEvent]:
    """Read a trace back. A truncated last line (a crash mid-write) is ignored."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    complete, tail = lines[:-1], lines[-1]  # tail is "" when the file ends with a newline
    events: list[TraceEvent] = []
    for number, line in enumerate(complete, start=1):
        if not line.strip():
            continue
        try:
            events.append(TraceEvent.model_validate(json.loads(line)))
        except ValueError as exc:
            raise ValueError(f"{path}, line {number}: not a trace event ({exc})") from None
    if tail.strip():
        try:
            events.append(TraceEvent.model_validate(json.loads(tail)))
        except ValueError:
            pass  # the writer was interrupted mid-line
    return events
