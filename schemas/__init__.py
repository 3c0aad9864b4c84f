"""Pydantic contracts shared by the host and the servers.

Nothing else is shared between the two sides: servers never import host code and the
host never imports server internals. Every model here crosses a process boundary
(MCP tool input/output, files on disk, or the JSONL trace).
"""

from schemas.clusters import ClusterConfig, ClusterSpec, LakeVocabulary
from schemas.messages import (
    BlackboardRequest,
    FileAgentResponse,
    FileMatch,
    HelpDecision,
    SearchAgentResponse,
)
from schemas.profiles import ArrayProfile, ColumnProfile, FileProfile, TableProfile

__all__ = [
    "ArrayProfile",
    "BlackboardRequest",
    "ClusterConfig",
    "ClusterSpec",
    "ColumnProfile",
    "FileAgentResponse",
    "FileMatch",
    "FileProfile",
    "HelpDecision",
    "LakeVocabulary",
    "SearchAgentResponse",
    "TableProfile",
]
