"""What the gateway's tools return. Contracts with the servers stay in schemas/; these are
the gateway's own outputs to its MCP clients."""

from __future__ import annotations

from pydantic import BaseModel, Field

from lakeboard.schemas.board import ErrorKind, HelperOutcome, Phase


class Declined(BaseModel):
    helper: str
    reason: str
    confidence: float


class Failure(BaseModel):
    """A helper that did not answer: its phase, how it failed and the message."""

    helper: str
    phase: Phase
    kind: ErrorKind
    message: str


class HelpBoard(BaseModel):
    """One posting on the blackboard: every volunteer's response, and who declined, timed out, failed or was skipped."""

    request: str
    request_id: str
    files: list[str] = Field(default_factory=list,
                             description="the files the host ranks best across the volunteers' answers, best first")
    copies: dict[str, list[str]] = Field(default_factory=dict,
                                         description="for a file of `files`, the other files of the lake with the same bytes")
    ranked_next: list[str] = Field(default_factory=list,
                                   description="data files ranked after those, not chosen: a join's second table is often here")
    closest: list[str] = Field(default_factory=list,
                               description="when no file is chosen: the best files the declining helpers saw, each below "
                               "its helper's threshold, best first")
    responses: list[HelperOutcome] = Field(default_factory=list,
                                           description="each volunteer's decision and response, most confident first")
    declined: list[Declined] = Field(default_factory=list)
    timed_out: list[Failure] = Field(default_factory=list)
    failed: list[Failure] = Field(default_factory=list, description="helpers that errored, died or answered wrongly")
    skipped: list[Failure] = Field(default_factory=list,
                                   description="helpers not asked: they left a call unanswered and have not answered since")
    helpers: int = Field(0, description="how many helpers saw the request")
    elapsed_s: float = 0.0
    notes: list[str] = Field(default_factory=list, description="what a person should know, one sentence each: the "
                             "lake re-indexed before answering, problems with the servers files")


class Partition(BaseModel):
    name: str
    description: str
    files: int = Field(description="how many files it holds")
    server: str | None = Field(None, description="the file agent that serves it (None: no server is mounted)")


class Partitions(BaseModel):
    """The lake's partitions, for a person to see what the lake holds."""

    lake: str = Field(description="the lake's name")
    folder: str | None = Field(None, description="the lake folder")
    partitions: list[Partition] = Field(default_factory=list)
    other_helpers: list[str] = Field(default_factory=list, description="mounted helpers that serve no partition")
    notes: list[str] = Field(default_factory=list, description="problems with the servers files, one sentence each")
