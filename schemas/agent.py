"""The main agent's contracts: the five actions it may take, its final answer, a run's record.

The model replies with one JSON object per turn, `{"action": ..., ...}`; `Action` is the
discriminated union those objects validate against. `AgentResponse` is the structured
answer in KramaBench's system-output shape (`id`, `query`, `data_sources`, `subtasks`,
`answer`). `RunResult` is what `lakeboard ask` prints and `lakeboard eval` scores; it is
written to disk as JSON, so it stays plain data.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, Field, field_validator

from lakeboard.schemas.execution import ExecutionResult

RunStatus = Literal["answered", "max_steps", "model_error", "failed", "offline"]
"""How a run ended.

- answered: the final program ran in the kernel and printed the JSON answer
- max_steps: the action budget ran out before a working answer
- model_error: the model endpoint failed (after its retries) and the run stopped
- failed: something other than the model failed (kernel unavailable, ...)
- offline: no model; the result is a verified program that loads the relevant data
"""


class _ActionBase(BaseModel):
    thought: str = Field("", description="the model's short reasoning before acting (optional)")


class PlanAction(_ActionBase):
    """Lay out (or revise) the steps to answer the question."""

    action: Literal["plan"]
    plan: list[str] = Field(min_length=1, description="the steps, in order")

    @field_validator("plan", mode="before")
    @classmethod
    def _lines(cls, value: Any) -> Any:
        # Models often send the plan as one numbered string.
        if isinstance(value, str):
            return [line.strip() for line in value.splitlines() if line.strip()] or [value]
        return value


class ReasonAction(_ActionBase):
    """Think about what is known so far, without touching data or helpers."""

    action: Literal["reason"]
    reasoning: str = Field(min_length=1)


class RunCodeAction(_ActionBase):
    """Run Python in the sandboxed kernel; variables persist between runs."""

    action: Literal["run_code"]
    code: str = Field(min_length=1)
    timeout_s: float | None = Field(None, gt=0, le=3600)


class RequestHelpAction(_ActionBase):
    """Post a request on the blackboard; helpers that can help answer it."""

    action: Literal["request_help"]
    request: str = Field(min_length=1, description="what is needed, in plain words")
    reason: str = Field("", description="why it is needed")
    helper: str = Field("", description="master-slave baseline only: the helper that must answer, by name")


class SubtaskResponse(BaseModel):
    id: str
    query: str
    data_sources: list[str] = Field(default_factory=list)
    answer: Any = None


class AgentResponse(BaseModel):
    """The structured answer, in KramaBench's system-output shape."""

    id: str = "main-task"
    query: str = ""
    data_sources: list[str] = Field(default_factory=list, description="lake-relative paths the program reads")
    subtasks: list[SubtaskResponse] = Field(default_factory=list)
    answer: Any = None

    @field_validator("data_sources", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("subtasks", mode="before")
    @classmethod
    def _subtask_ids(cls, value: Any) -> Any:
        # Subtasks without ids (or given as plain strings) are numbered.
        if not isinstance(value, list):
            return value
        out = []
        for i, item in enumerate(value, start=1):
            if isinstance(item, str):
                item = {"query": item}
            if isinstance(item, dict):
                item = {"id": f"subtask-{i}", "query": "", **item}
                item["id"] = str(item["id"])
            out.append(item)
        return out


class AnswerAction(_ActionBase):
    """The final program (it prints the answer as JSON) and the structured response."""

    action: Literal["answer"]
    code: str = Field(min_length=1, description="a complete Python program that prints the answer as JSON")
    response: AgentResponse = Field(default_factory=AgentResponse)


Action = Annotated[
    Union[PlanAction, ReasonAction, RunCodeAction, RequestHelpAction, AnswerAction],
    Field(discriminator="action"),
]


class AgentStep(BaseModel):
    """One action the main agent took and what it observed."""

    index: int = Field(description="1-based action number")
    action: Action
    observation: str = ""
    ok: bool = True
    elapsed_s: float = 0.0
    reasks: int = Field(0, description="malformed replies re-asked before this action")


class RunResult(BaseModel):
    """Everything one `ask` produced."""

    question: str
    status: RunStatus
    answer: Any = None
    response: AgentResponse | None = None
    program: str | None = Field(None, description="the final program (it ran in the kernel)")
    execution: ExecutionResult | None = Field(None, description="the final program's run")
    data_sources: list[str] = Field(default_factory=list, description="lake-relative files the answer rests on")
    summary: Any = Field(None, description="offline runs: what the verified program loaded (its JSON output)")
    steps: list[AgentStep] = Field(default_factory=list)
    error: str | None = None
    model: str | None = Field(None, description="the model that drove the run (None: offline)")
    usage: dict[str, Any] = Field(default_factory=dict, description="token usage: total and per label")
    elapsed_s: float = 0.0
    notes: list[str] = Field(default_factory=list, description="what the user should know about this run")

    @property
    def answered(self) -> bool:
        return self.status == "answered"
