"""What a baseline lists with the question: the helpers by name (master-slave), or files with
their profiles' summaries (rag, all-files). Lake text is data, so it is fenced (common/prompt_data.py)."""

from __future__ import annotations

from collections.abc import Sequence

from lakeboard.common.code_text import comment_text
from lakeboard.common.prompt_data import data_block
from lakeboard.schemas.profiles import FileEntry

FILES_CHARS = 60_000  # all-files: the listing stops here, saying how many files it left out


def helpers_context(helpers: Sequence[tuple[str, str]]) -> str:
    """The master-slave listing: each helper's name and what it knows (from the lake: data, fenced)."""
    lines = [f"- {comment_text(name, 120)}: {comment_text(about, 600)}" for name, about in helpers]
    return "The helpers you can ask by name:\n" + data_block("\n".join(lines))


def files_context(entries: Sequence[FileEntry], heading: str, limit: int = FILES_CHARS) -> str:
    """Files with their profiles' summaries, at most `limit` characters (lake text: data, fenced)."""
    lines, used = [], 0
    for i, e in enumerate(entries):
        line = f"- {comment_text(e.path, 500)} ({comment_text(e.format, 40)}): {comment_text(e.summary, 1000)}"
        if used + len(line) > limit:
            lines.append(f"- ... and {len(entries) - i} more files, left out for length")
            break
        lines.append(line)
        used += len(line)
    return heading + "\n" + data_block("\n".join(lines))
