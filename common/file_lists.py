"""Files as Markdown list lines, a family of same-layout files as one line: the file agents'
answers and the gateway's response board show lists of files the same way."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from lakeboard.common.code_text import comment_text


def markdown_inline(text: str, limit: int = 400) -> str:
    """Lake text for a Markdown line: on one line, with no backtick that would end a code span."""
    return comment_text(text, limit).replace("`", "'")


def copies_note(copies: list[str], show: Callable[[str], str], limit: int = 5) -> str:
    """" (the same bytes as a, b and N more)" after a file with `copies` (each written by `show`); "" for none."""
    if not copies:
        return ""
    more = f" and {len(copies) - limit} more" if len(copies) > limit else ""
    return " (the same bytes as " + ", ".join(show(c) for c in copies[:limit]) + more + ")"


def file_lines(paths: list[str], family_of: Mapping[str, str | None], limit: int = 12,
               copies_of: Mapping[str, list[str]] | None = None, notes: Mapping[str, str] | None = None) -> list[str]:
    """`- `path`` per file, most relevant first; a family appears once, at its first member, with a count;
    a file's copies (`copies_of`: other files with the same bytes) are named after it, and its note
    (`notes`: a few words of ours, such as "an answer template") after those."""
    size: dict[str, int] = {}
    for path in paths:
        family = family_of.get(path)
        if family is not None:
            size[family] = size.get(family, 0) + 1
    lines, shown = [], set()
    for path in paths:
        family = family_of.get(path)
        if family is not None:
            if family in shown:
                continue
            shown.add(family)
        more = size[family] - 1 if family is not None else 0
        note = (notes or {}).get(path)
        lines.append(f"- `{markdown_inline(path)}`" + (f" and {more} more files of the same layout" if more else "")
                     + copies_note((copies_of or {}).get(path, []), lambda c: f"`{markdown_inline(c)}`")
                     + (f" ({note})" if note else ""))
    return lines if len(lines) <= limit else lines[:limit] + [f"- ... and {len(lines) - limit} more"]
