"""Pydantic contracts shared by the host and the servers.

Nothing else is shared between the two sides: servers never import host code and the
host never imports server internals. Every model here crosses a process boundary
(MCP tool input/output, files on disk, or the JSONL trace).
"""

from schemas.board import (
    BoardEntry,
    HelperError,
    HelperOutcome,
    Posting,
    ServerStatus,
    TraceEvent,
)
from schemas.clusters import ClusterConfig, ClusterSpec, LakeVocabulary
from schemas.discovery import DiscoveryResult
from schemas.execution import (
    DisplayData,
    ExecutionError,
    ExecutionResult,
    KernelActionResult,
    NotebookSaved,
    SandboxPolicy,
    VariableInfo,
    VariablesResult,
)
from schemas.messages import (
    BlackboardRequest,
    FileAgentResponse,
    FileMatch,
    HelpDecision,
    SearchAgentResponse,
)
from schemas.profiles import ArrayProfile, ColumnProfile, FileProfile, TableProfile
from schemas.workload import WorkloadTask

__all__ = [
    "ArrayProfile",
    "BlackboardRequest",
    "BoardEntry",
    "ClusterConfig",
    "ClusterSpec",
    "ColumnProfile",
    "DiscoveryResult",
    "DisplayData",
    "ExecutionError",
    "ExecutionResult",
    "FileAgentResponse",
    "FileMatch",
    "FileProfile",
    "HelpDecision",
    "HelperError",
    "HelperOutcome",
    "KernelActionResult",
    "LakeVocabulary",
    "NotebookSaved",
    "Posting",
    "SandboxPolicy",
    "SearchAgentResponse",
    "ServerStatus",
    "TableProfile",
    "TraceEvent",
    "VariableInfo",
    "VariablesResult",
    "WorkloadTask",
]
