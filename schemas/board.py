"""The blackboard's records: what one posting produced, what the board holds, the trace.

These cross process boundaries as files (the JSONL trace, saved eval results), so they
are plain pydantic models. The host builds them; nothing on the server side reads them.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import BaseModel, Field, computed_field, model_validator

from lakeboard.schemas.messages import BlackboardRequest, FileAgentResponse, HelpDecision, SearchAgentResponse

Phase = Literal["can_help", "respond"]
ErrorKind = Literal["timeout", "died", "unavailable", "tool_error", "protocol", "invalid_output", "skipped"]
"""How a call to a server went wrong.

- timeout: no answer within the per-server timeout (the server may still be alive)
- died: the connection was lost mid-call or the server could not be reached
- unavailable: the call was never sent (the server failed to start or is restarting)
- tool_error: the server answered with a tool error (it raised)
- protocol: the server answered with a JSON-RPC error (unknown tool, bad arguments)
- invalid_output: the answer did not validate against the contract in schemas/messages.py
- skipped: not asked: it left a call unanswered before and has not answered since (pool's slow mark)
"""
ResponseKind = Literal["file", "search"]
ServerState = Literal["starting", "ready", "restarting", "dead", "closed"]

_RESPONSE_MODELS: dict[str, type[FileAgentResponse] | type[SearchAgentResponse]] = {
    "file": FileAgentResponse,
    "search": SearchAgentResponse,
}
_FILE_ONLY_FIELDS = FileAgentResponse.model_fields.keys() - SearchAgentResponse.model_fields.keys()
_SEARCH_ONLY_FIELDS = SearchAgentResponse.model_fields.keys() - FileAgentResponse.model_fields.keys()


def response_kind_of(raw: dict[str, Any]) -> ResponseKind:
    """Tell a SearchAgentResponse from a FileAgentResponse by the fields it carries."""
    if raw.keys() & _SEARCH_ONLY_FIELDS and not raw.keys() & _FILE_ONLY_FIELDS:
        return "search"
    return "file"


def parse_response(raw: dict[str, Any]) -> FileAgentResponse | SearchAgentResponse:
    """Validate a helper's `respond` result as the model its fields say it is."""
    return _RESPONSE_MODELS[response_kind_of(raw)].model_validate(raw)


def _utcnow() -> datetime:
    return datetime.now(timezone.utc)


class HelperError(BaseModel):
    """Why a helper was skipped in a posting."""

    phase: Phase
    kind: ErrorKind
    message: str


class _CarriesResponse(BaseModel):
    """A response with its kind, so it reloads from JSON as the right model."""

    response_kind: ResponseKind | None = None
    response: FileAgentResponse | SearchAgentResponse | None = None

    @model_validator(mode="before")
    @classmethod
    def _parse_by_kind(cls, data: Any) -> Any:
        # A plain union would let SearchAgentResponse swallow a file response (extra
        # fields are ignored), so the kind decides which model parses the dict.
        if not isinstance(data, dict):
            return data
        response = data.get("response")
        if isinstance(response, dict):
            data = dict(data)
            kind = data.get("response_kind") or response_kind_of(response)
            # An unknown kind is parsed as a file response, then fails response_kind's validation.
            data["response"] = _RESPONSE_MODELS.get(kind, FileAgentResponse).model_validate(response)
            data["response_kind"] = kind
        elif isinstance(response, BaseModel) and data.get("response_kind") is None:
            data = {**data, "response_kind": "search" if isinstance(response, SearchAgentResponse) else "file"}
        return data


class HelperOutcome(_CarriesResponse):
    """Everything one helper did for one posting."""

    helper: str = Field(description="server name in the pool (servers.json key)")
    decision: HelpDecision | None = None
    response_raw: dict[str, Any] | None = Field(None, description="respond's structured content as received")
    error: HelperError | None = None
    can_help_s: float | None = Field(None, description="seconds can_help took (None: not called)")
    respond_s: float | None = Field(None, description="seconds respond took (None: not called)")
    respond_started_s: float | None = Field(None, description="when respond was sent, seconds after the post")

    @property
    def volunteered(self) -> bool:
        return self.decision is not None and self.decision.can_help

    @property
    def responded(self) -> bool:
        return self.response is not None


class Posting(BaseModel):
    """The result of posting one request to the blackboard."""

    request: BlackboardRequest
    started_at: datetime = Field(default_factory=_utcnow)
    elapsed_s: float = Field(0.0, description="wall time of the whole posting")
    can_help_phase_s: float = Field(0.0, description="wall time until every can_help answered or timed out")
    outcomes: list[HelperOutcome] = Field(default_factory=list)

    def outcome(self, helper: str) -> HelperOutcome:
        for o in self.outcomes:
            if o.helper == helper:
                return o
        raise KeyError(f"helper {helper!r} took no part in posting {self.request.id}")

    @property
    def volunteers(self) -> list[HelperOutcome]:
        return [o for o in self.outcomes if o.volunteered]

    @property
    def responses(self) -> list[HelperOutcome]:
        return [o for o in self.outcomes if o.responded]

    @property
    def errors(self) -> list[HelperOutcome]:
        return [o for o in self.outcomes if o.error is not None]


class BoardEntry(_CarriesResponse):
    """One response on the response board (read by the main agent only)."""

    request_id: str
    request: str
    helper: str
    posted_at: datetime = Field(default_factory=_utcnow)
    response_raw: dict[str, Any] = Field(default_factory=dict)


class ServerStatus(BaseModel):
    """A pool member as the host sees it."""

    name: str
    transport: Literal["stdio", "http", "sse", "memory"]
    state: ServerState
    tools: list[str] = Field(default_factory=list)
    restarts: int = Field(0, description="successful reconnects after the first connect")
    last_error: str | None = None
    slow: str | None = Field(None, description="why broadcasts skip it until it answers again, when they do")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def is_helper(self) -> bool:
        return "can_help" in self.tools


class TraceEvent(BaseModel):
    """One line of the JSONL trace.

    Kinds the host writes: server_started, server_failed, server_died,
    server_restarted (pool); post, decision, response, helper_error, posting
    (blackboard). Other host components may add their own kinds.
    """

    ts: datetime = Field(default_factory=_utcnow)
    kind: str
    request_id: str | None = None
    server: str | None = Field(None, description="server (helper) the event is about")
    elapsed_s: float | None = None
    data: dict[str, Any] = Field(default_factory=dict)
