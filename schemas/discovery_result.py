"""What `lakeboard discover` returns: the request, every response, the chosen files and the next ones."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from lakeboard.schemas.messages import FileMatch


class DiscoveryResult(BaseModel):
    request: str
    files: list[str] = Field(default_factory=list, description="lake-relative paths, most relevant first")
    matches: list[FileMatch] = Field(default_factory=list, description="the chosen files with their evidence")
    ranked_next: list[FileMatch] = Field(
        default_factory=list, description="files ranked after the chosen ones, not chosen, dictionaries aside (at most nine)"
    )
    closest: list[FileMatch] = Field(
        default_factory=list,
        description="when no file is chosen: the declining file agents' best files (dictionaries aside), each below its agent's "
        "threshold, best first (at most ten)",
    )
    responses: list[dict[str, Any]] = Field(default_factory=list, description="volunteers' responses as received")
    volunteers: list[str] = Field(default_factory=list)
    errors: dict[str, str] = Field(default_factory=dict, description="helper -> what went wrong")
    broadcast_s: float = 0.0
