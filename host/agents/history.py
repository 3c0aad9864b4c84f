"""The main agent's conversation, shortened when the model's context cannot hold it.

Any message can grow past a model's context: an observation, a reply with a long program, a
question pasted with its data. `compact` keeps the system prompt whole, keeps the question and
the latest exchange long, and clips every older message; a clipped message keeps its head
and its tail (where a traceback or a printed answer usually is). A tool call's arguments are
clipped value by value, so they stay a JSON object.
"""

from __future__ import annotations

import json
from typing import Any

from lakeboard.common.prompt_data import open_fence
from lakeboard.host.llm import ChatMessage

KEEP_RECENT = 2  # the latest action and its observation
OLDER_CHARS = 600
RECENT_CHARS = 8000
_CUT = "\n... [{n} characters left out to fit the model's context] ...\n"


def clip(text: str, limit: int) -> str:
    """`text` within about `limit` characters: its head and its tail, with a note of the cut.

    A cut inside a fenced block (a helper's code or sample: lake text) closes that block before
    the note and reopens the block the tail starts in, so no line of data lands outside its fence.
    """
    if len(text) <= limit + len(_CUT) + 10:
        return text
    head = limit * 2 // 3
    tail = limit - head
    tail_at = len(text) - tail
    # The tail starts at a line (the next one, when it is near), so a part of a line can never
    # read as a fence; a tail that starts inside a long line is marked with "…" instead.
    line_start = text.find("\n", tail_at - 1) + 1
    inside_line = not 0 < line_start - tail_at <= tail // 2 and line_start != tail_at
    if not inside_line:
        tail_at = line_start
    start, end = text[:head], ("…" if inside_line else "") + text[tail_at:]
    open_at_cut = open_fence(start)
    if open_at_cut is not None:
        start += "\n" + open_at_cut
    open_at_tail = open_fence(text[:tail_at])
    if open_at_tail is not None:
        end = open_at_tail + "\n" + end
    return start + _CUT.format(n=tail_at - head) + end


def compact(messages: list[ChatMessage]) -> bool:
    """Shorten `messages` in place; False when nothing could be shortened.

    The system prompt (first) stays whole; the question (second) and the last `KEEP_RECENT`
    messages keep `RECENT_CHARS`; every other message keeps `OLDER_CHARS`.
    """
    shrunk = False
    recent_from = len(messages) - KEEP_RECENT
    for i, message in enumerate(messages):
        if i == 0 and message.role == "system":
            continue
        limit = RECENT_CHARS if i == 1 or i >= recent_from else OLDER_CHARS
        update: dict[str, Any] = {}
        shorter = clip(message.content, limit)
        if shorter != message.content:
            update["content"] = shorter
        calls = [c.model_copy(update={"arguments": _clip_arguments(c.arguments, limit)}) for c in message.tool_calls]
        if any(len(new.arguments) < len(old.arguments) for new, old in zip(calls, message.tool_calls)):
            update["tool_calls"] = calls
        if update:
            messages[i] = message.model_copy(update=update)
            shrunk = True
    return shrunk


def _clip_arguments(arguments: str, limit: int) -> str:
    """A tool call's JSON arguments with each string value clipped (still JSON); unchanged when short."""
    if len(arguments) <= limit:
        return arguments
    try:
        data = json.loads(arguments)
    except ValueError:
        return json.dumps({"arguments": clip(arguments, limit)})
    return json.dumps(_clip_values(data, limit))


def _clip_values(value: Any, limit: int) -> Any:
    if isinstance(value, str):
        return clip(value, limit)
    if isinstance(value, dict):
        return {k: _clip_values(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [_clip_values(v, limit) for v in value]
    return value


def size(messages: list[ChatMessage]) -> int:
    """Characters of the conversation (tool calls' arguments included), for the trace."""
    return sum(len(m.content) + sum(len(c.arguments) for c in m.tool_calls) for m in messages)
