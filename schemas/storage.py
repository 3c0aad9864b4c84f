"""The serialisation context of Lakeboard's own files (the profile cache, clusters.json).

A model dumped with `context=STORED` may write a more compact form of itself, which validating
reads back as the usual one. What reaches a client or a person (MCP answers, resources) is
dumped without it, in the usual form.
"""

from __future__ import annotations

from pydantic import SerializationInfo

STORED = {"stored": True}


def is_stored(info: SerializationInfo) -> bool:
    """Whether a dump is for Lakeboard's own files (made with context=STORED)."""
    return bool((info.context or {}).get("stored"))
