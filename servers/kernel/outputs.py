"""Turning a cell's IOPub messages into bounded outputs (for the result and the notebook)."""

from __future__ import annotations

import json
import re
from collections import deque
from typing import Any

from lakeboard.schemas.execution import IMAGE_TYPES, DisplayData, ExecutionError

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
TEXT_TYPES = ("text/plain", "text/html", "text/markdown", "text/latex", "image/svg+xml", "application/javascript")
MAX_DISPLAY_BYTES = 8 * 1024 * 1024  # all rich outputs of one cell, images included


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text)


def truncation_marker(dropped: int, limit: int) -> str:
    return f"\n[... {dropped:,} characters truncated (output limit {limit:,} characters) ...]\n"


class BoundedText:
    """Keeps the head and the tail of a stream, dropping the middle past `limit` characters."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.head_limit = limit * 4 // 5
        self.tail_limit = limit - self.head_limit
        self._head: list[str] = []
        self._head_len = 0
        self._tail: deque[str] = deque()
        self._tail_len = 0
        self.dropped = 0

    def append(self, text: str) -> None:
        if not text:
            return
        room = self.head_limit - self._head_len
        if room > 0:
            self._head.append(text[:room])
            self._head_len += min(room, len(text))
            text = text[room:]
            if not text:
                return
        self._tail.append(text)
        self._tail_len += len(text)
        while self._tail_len > self.tail_limit:
            excess = self._tail_len - self.tail_limit
            first = self._tail[0]
            if len(first) <= excess:
                self._tail.popleft()
                self._tail_len -= len(first)
                self.dropped += len(first)
            else:
                self._tail[0] = first[excess:]
                self._tail_len -= excess
                self.dropped += excess

    def clear(self) -> None:
        self.__init__(self.limit)  # type: ignore[misc]

    @property
    def truncated(self) -> bool:
        return self.dropped > 0

    def text(self) -> str:
        head = "".join(self._head)
        tail = "".join(self._tail)
        if self.dropped:
            return head + truncation_marker(self.dropped, self.limit) + tail
        return head + tail


def bound_text(text: str, limit: int) -> tuple[str, bool]:
    if len(text) <= limit:
        return text, False
    bounded = BoundedText(limit)
    bounded.append(text)
    return bounded.text(), True


class CellOutputs:
    """Accumulates one cell's outputs as they arrive, within the server's size limits."""

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self.streams = {"stdout": BoundedText(max_chars), "stderr": BoundedText(max_chars)}
        self.result: str | None = None
        self.display: list[DisplayData] = []
        self.error: ExecutionError | None = None
        self.execution_count: int | None = None
        self.truncated = False
        self.received_chars = 0  # everything the kernel sent, kept or not
        self._display_bytes = 0
        self._dropped_displays = 0
        # Notebook outputs in arrival order; a stream is a placeholder filled in at the end.
        self._nb: list[dict[str, Any] | str] = []

    # -- message intake ------------------------------------------------------------------
    def add(self, msg_type: str, content: dict[str, Any]) -> None:
        if msg_type == "stream":
            name = content.get("name", "stdout")
            name = name if name in self.streams else "stdout"
            text = content.get("text", "")
            self.received_chars += len(text)
            self.streams[name].append(text)
            if name not in self._nb:
                self._nb.append(name)
        elif msg_type == "execute_input":
            self.execution_count = content.get("execution_count")
        elif msg_type == "execute_result":
            self.execution_count = content.get("execution_count", self.execution_count)
            data = content.get("data", {})
            plain = data.get("text/plain")
            if plain is not None:
                self.received_chars += len(plain)
                self.result, cut = bound_text(strip_ansi(plain), self.max_chars)
                self.truncated |= cut
            bundle = self._bounded_bundle(data)
            if any(key in bundle for key in IMAGE_TYPES):  # e.g. an image as the last expression
                self._keep_display({k: v for k, v in bundle.items() if k != "text/plain"}, content.get("metadata", {}))
            self._nb.append({
                "output_type": "execute_result", "execution_count": self.execution_count,
                "data": bundle, "metadata": content.get("metadata", {}),
            })
        elif msg_type in ("display_data", "update_display_data"):
            bundle = self._bounded_bundle(content.get("data", {}))
            if bundle:
                metadata = content.get("metadata", {})
                self._keep_display(bundle, metadata)
                self._nb.append({"output_type": "display_data", "data": bundle, "metadata": metadata})
        elif msg_type == "error":
            traceback = [strip_ansi(line) for line in content.get("traceback", [])]
            joined, cut = bound_text("\n".join(traceback), self.max_chars)
            self.truncated |= cut
            self.error = ExecutionError(
                name=content.get("ename", "Error"),
                value=bound_text(strip_ansi(str(content.get("evalue", ""))), self.max_chars)[0],
                traceback=joined.split("\n") if traceback else [],
            )
            self._nb.append({
                "output_type": "error", "ename": self.error.name, "evalue": self.error.value,
                "traceback": self.error.traceback,
            })
        elif msg_type == "clear_output":
            for stream in self.streams.values():
                stream.clear()
            self.display.clear()
            self._nb = [item for item in self._nb if isinstance(item, dict) and item["output_type"] == "error"]

    def _bounded_bundle(self, data: dict[str, Any]) -> dict[str, Any]:
        bundle: dict[str, Any] = {}
        for mime, value in data.items():
            if isinstance(value, str):
                self.received_chars += len(value)
                if mime in TEXT_TYPES or mime.startswith("text/"):
                    value, cut = bound_text(strip_ansi(value) if mime == "text/plain" else value, self.max_chars)
                    self.truncated |= cut
                elif len(value) > MAX_DISPLAY_BYTES:
                    self._dropped_displays += 1
                    continue
            else:
                size = len(json.dumps(value, default=str))
                self.received_chars += size
                if size > self.max_chars:
                    self._dropped_displays += 1
                    continue
            bundle[mime] = value
        return bundle

    def _keep_display(self, bundle: dict[str, Any], metadata: dict[str, Any]) -> None:
        size = sum(len(v) if isinstance(v, str) else len(json.dumps(v, default=str)) for v in bundle.values())
        if self._display_bytes + size > MAX_DISPLAY_BYTES:
            self._dropped_displays += 1
            return
        self._display_bytes += size
        self.display.append(DisplayData(data=bundle, metadata=metadata))

    # -- results ---------------------------------------------------------------------------
    @property
    def any_truncated(self) -> bool:
        return self.truncated or self._dropped_displays > 0 or any(s.truncated for s in self.streams.values())

    def truncation_note(self) -> str | None:
        if self._dropped_displays:
            return (
                f"{self._dropped_displays} rich output(s) exceeded the size limit and were dropped; "
                "save large results to a file in the workdir instead of displaying them."
            )
        return None

    def notebook_outputs(self) -> list[dict[str, Any]]:
        outputs: list[dict[str, Any]] = []
        for item in self._nb:
            if isinstance(item, str):
                text = self.streams[item].text()
                if text:
                    outputs.append({"output_type": "stream", "name": item, "text": text})
            else:
                outputs.append(item)
        return outputs
