"""The only ways text from a lake may enter generated code, a prompt or a terminal.

File names, column names, sheet names, titles, notes and values are written by whoever
filled the lake. In generated code they are either an escaped literal (`literal`), or a
comment on one line with every line break and control character taken out (`comment`).
In text a model or a person reads, a name is one line (`comment_text`), a block of several
lines keeps only plain line breaks (`block_text`), and a terminal gets control characters
escaped (`printable`).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable
from typing import Any

_ASCII_WORD = re.compile(r"[^0-9A-Za-z]+")


_UNSAFE = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))  # control, format, surrogate, line/paragraph separators


def _replaced(text: str, replace: Callable[[str], str], keep: str = "") -> str:
    """`text` with each control or format character not in `keep` replaced by `replace(ch)`."""
    return "".join(replace(ch) if ch not in keep and unicodedata.category(ch) in _UNSAFE else ch for ch in text)


def _blank(ch: str) -> str:
    # A lone surrogate (an undecodable byte of a file name) becomes U+FFFD, so the text can be written as UTF-8.
    return "\ufffd" if unicodedata.category(ch) == "Cs" else " "


def comment_text(text: Any, limit: int = 300) -> str:
    """`text` made safe for a comment: one line, no control or format characters, at most `limit` chars.

    Line and paragraph separators, control characters (NUL, \\r, U+0085 ...) and format
    characters (bidirectional overrides) become spaces; a lone surrogate (an undecodable
    byte of a file name) becomes U+FFFD, so the code can be written as UTF-8.
    """
    one_line = " ".join(_replaced(str(text), _blank).split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"


def block_text(text: Any) -> str:
    """`text` made safe for a block of several lines (a sample, an explanation, code): every line
    break (\\r\\n, \\r, U+2028, U+0085 ...) becomes \\n, tabs stay, and other control and format
    characters become spaces as in `comment_text`."""
    return "\n".join(_replaced(line, _blank, keep="\t") for line in str(text).splitlines())


def printable(text: Any, limit: int = 300, *, lines: bool = False) -> str:
    """`text` for a terminal: each control or format character (an escape sequence, a line break,
    a bidirectional override) written escaped as in a Python literal, so the user still sees it and
    the terminal never acts on it. `lines` keeps \\n (for a block of text); at most `limit` chars."""

    def escaped(ch: str) -> str:
        code = ord(ch)
        return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"

    shown = _replaced(str(text), escaped, keep="\n" if lines else "")
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def comment(text: Any, limit: int = 300, indent: str = "") -> str:
    """A comment line holding `text` (see `comment_text`)."""
    return f"{indent}# {comment_text(text, limit)}"


def literal(value: Any) -> str:
    """Python source that evaluates to `value`: plain data only (str, numbers, bool, None and
    lists, tuples and dicts of them). Anything else is refused, never written as its repr."""
    if value is None or isinstance(value, (bool, int, str, bytes)):
        return repr(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f"float({str(value)!r})"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + "".join(literal(v) + ", " for v in value).rstrip(" ") + ")" if value else "()"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"{type(value).__name__} is not plain data and cannot be written into code")


def identifier(text: str, prefix: str) -> str:
    """A Python name: `prefix` (itself a name), then the ASCII letters and digits of `text`
    joined by underscores, or "file" when `text` has none."""
    stem = _ASCII_WORD.sub("_", text.lower()).strip("_")
    return f"{prefix}{stem or 'file'}"


def docstring(text: str) -> str:
    """`text` as a triple-quoted literal: its line breaks kept, anything that could end the
    literal or act as an escape (quotes, backslashes, other control characters) escaped."""
    out = []
    for ch in text:
        if ch == "\n":
            out.append(ch)
        elif ch in '\\"':
            out.append("\\" + ch)
        elif unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp"):
            out.append(f"\\u{ord(ch):04x}" if ord(ch) > 0xFF else f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"""' + "".join(out) + '"""'
