"""File names as the system gives them: which of them JSON, SQLite, pydantic and MCP can carry;
and how a lake names the documents that describe its other files."""

from __future__ import annotations

# A file that describes others: its stem starts with one of these (README.md, notes.txt, codebook.pdf).
README_NAMES = ("readme", "read_me", "about", "description", "codebook", "metadata", "notes", "manifest")


def is_utf8(name: str) -> bool:
    """False for a name with surrogate escapes (bytes that are not UTF-8)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
