"""The fork server's control messages: the host asks it to start a server, it answers.

One request or reply is one message on an AF_UNIX SOCK_SEQPACKET socket; the descriptors
travel beside it (SCM_RIGHTS): the server's stdio socket and its stderr with a request, a
pidfd of the new server with a reply that has a pid.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ForkRequest(BaseModel):
    """Start `python -m module *args` with exactly this environment, in `cwd` (None: the fork server's)."""

    model_config = ConfigDict(extra="forbid")

    module: str = Field(min_length=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None


class ForkReply(BaseModel):
    """The new server's pid, or why there is none."""

    pid: int | None = None
    error: str | None = None
