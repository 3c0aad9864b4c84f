"""The main agent: a ReAct loop over the paper's five actions, at most T actions per question.

Each turn the model takes one action: a call of the action's tool where the endpoint supports
OpenAI tool calling (action_tools.py), else one JSON object in text (main_agent_prompts.py):
- plan / reason: noted, nothing runs;
- request_help: posted on the blackboard; the volunteers' responses come back compactly;
- run_code: run in the kernel server; the outputs come back;
- answer: the final program runs in a fresh kernel; an error or a missing JSON answer goes
  back to the model, a JSON answer ends the run.

A malformed reply is re-asked (up to `max_reasks` times per action) and costs no action. A
model endpoint that fails for good ends the run with status `model_error`; nothing else
does: kernel and helper failures become observations the model can react to.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from lakeboard.common.code_text import comment
from lakeboard.common.json_replies import validation_problems
from lakeboard.host.agents import action_tools, history, main_agent_prompts
from lakeboard.host.agents.observations import render_posting
from lakeboard.host.agents.programs import (
    NoJSONOutput,
    answer_of,
    data_sources_in,
    parse_program_output,
    subtask_answers,
)
from lakeboard.host.baselines.modes import AgentMode
from lakeboard.host.blackboard import Blackboard
from lakeboard.host.kernel_session import KernelClient, KernelUnavailable, render_execution
from lakeboard.host.llm import (
    ChatMessage,
    ChatProvider,
    Completion,
    JSONReplyError,
    LLMContextLengthError,
    LLMError,
    LLMRequestError,
    ToolCall,
    extract_json_object,
)
from lakeboard.host.trace import Trace
from lakeboard.schemas.agent import (
    Action,
    AgentResponse,
    AgentStep,
    AnswerAction,
    PlanAction,
    ReasonAction,
    RequestHelpAction,
    RunCodeAction,
    RunResult,
    SubtaskResponse,
)
from lakeboard.schemas.execution import ExecutionResult
from lakeboard.schemas.messages import BlackboardRequest

logger = logging.getLogger(__name__)

_ACTION = TypeAdapter(Action)
_REJECTED_CHARS = 2000  # of a rejected reply, shown back to the model once
_ACTION_ALIASES = {
    "plan": "plan",
    "planning": "plan",
    "reason": "reason",
    "reasoning": "reason",
    "think": "reason",
    "request_help": "request_help",
    "requesthelp": "request_help",
    "help": "request_help",
    "ask_for_help": "request_help",
    "run_code": "run_code",
    "runcode": "run_code",
    "code": "run_code",
    "execute": "run_code",
    "python": "run_code",
    "answer": "answer",
    "final_answer": "answer",
    "final": "answer",
}


class MainAgent:
    """Answers questions about one lake with a model, the blackboard and the kernel.

    Args:
        provider: the chat model (shared with sampling, so usage is counted once).
        blackboard: posts requests to the pool's helpers.
        kernel: runs code in the kernel server.
        lake_root: the lake folder (shown to the model; the kernel mounts it at this path).
        lake_paths: the lake's files, lake-relative (to name data sources a program reads).
        max_steps: T, the most actions per question (the paper uses 10).
        max_reasks: re-asks per action after a malformed reply.
        fresh_kernel_for_answer: restart the kernel before the final program, so an answer
            that only worked thanks to earlier cells' variables is caught.
        native_tools: offer the five actions as OpenAI tools (True), or use the JSON-in-text
            protocol (False). An endpoint that refuses tools, or never calls one, turns it to
            False for the rest of the run; callers may carry it over to the next run.
    """

    def __init__(
        self,
        provider: ChatProvider,
        blackboard: Blackboard,
        kernel: KernelClient,
        lake_root: Path,
        *,
        lake_paths: list[str] | None = None,
        trace: Trace | None = None,
        max_steps: int = 10,
        max_reasks: int = 2,
        cell_timeout_s: float = 120.0,
        fresh_kernel_for_answer: bool = True,
        native_tools: bool = True,
        mode: AgentMode = AgentMode(),
    ) -> None:
        if max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        self.provider = provider
        self.blackboard = blackboard
        self.kernel = kernel
        self.lake_root = Path(lake_root)
        self.lake_paths = lake_paths or []
        self.trace = trace
        self.max_steps = max_steps
        self.max_reasks = max_reasks
        self.cell_timeout_s = cell_timeout_s
        self.fresh_kernel_for_answer = fresh_kernel_for_answer
        self.native_tools = native_tools
        self.mode = mode
        self._cells: list[str] = []  # code that ran in the kernel since its last restart, in order
        self._called_a_tool = False  # the endpoint has answered with a tool call in this run

    async def run(self, question: str, *, task_id: str = "main-task") -> RunResult:
        started = time.monotonic()
        usage_mark = self.provider.ledger.mark()
        messages = [
            ChatMessage(role="system", content=self._system_prompt()),
            ChatMessage(role="user",
                        content=main_agent_prompts.question_prompt(question, self.max_steps, self.mode.context)),
        ]
        self._called_a_tool = False
        result = RunResult(question=question, status="max_steps", model=self.provider.settings.model)
        self._emit("agent_start", None, question=question, model=result.model, max_steps=self.max_steps,
                   mode=self.mode.name)
        malformed = 0
        index = 0
        self._cells = []
        try:
            while index < self.max_steps:
                reply = await self._next_action(messages)
                malformed += reply.reasks
                index += 1
                if reply.action is None:
                    # Still malformed after every re-ask: the action is spent.
                    messages.append(ChatMessage(role="user", content=main_agent_prompts.observation_prompt(
                        "an unusable reply", index, self.max_steps, "No action was taken.")))
                    result.notes.append(f"action {index}: the model's reply was unusable after {reply.reasks} re-asks")
                    continue
                messages.append(ChatMessage(role="assistant", content=reply.text,
                                            tool_calls=[reply.call] if reply.call else []))
                step_started = time.monotonic()
                outcome = await self._act(reply.action, index, question, task_id)
                step = AgentStep(
                    index=index,
                    action=reply.action,
                    observation=outcome.observation,
                    ok=outcome.ok,
                    elapsed_s=round(time.monotonic() - step_started, 4),
                    reasks=reply.reasks,
                )
                result.steps.append(step)
                self._emit(
                    "agent_action", step.elapsed_s, index=index, action=reply.action.action, ok=outcome.ok,
                    detail=_action_detail(reply.action), observation=outcome.observation[:2000],
                )
                if outcome.final is not None:
                    result = self._finish(result, outcome.final)
                    break
                observed = main_agent_prompts.observation_prompt(reply.action.action, index, self.max_steps,
                                                                 outcome.observation)
                if reply.call:
                    messages.append(ChatMessage(role="tool", content=observed, tool_call_id=reply.call.id))
                else:
                    messages.append(ChatMessage(role="user", content=observed))
            else:
                result.error = f"no working answer within {self.max_steps} actions"
                if self._cells:
                    result.program = unfinished_program(question, self._cells, self.max_steps)
                    result.notes.append("The run stopped at its action budget: the program is the code that ran "
                                        "in the kernel, unfinished (it prints no answer).")
        except LLMError as exc:
            result.status = "model_error"
            result.error = exc.message
            logger.warning("model failed: %s", exc.message)
        if malformed:
            result.notes.append(f"{malformed} malformed model replies were re-asked")
        result.usage = self.provider.ledger.spent_since(usage_mark)
        result.elapsed_s = round(time.monotonic() - started, 4)
        self._emit(
            "agent_end", result.elapsed_s, status=result.status, answer=result.answer, error=result.error,
            data_sources=result.data_sources, actions=len(result.steps), usage=result.usage,
        )
        return result

    # -- one turn of the model ---------------------------------------------------------
    async def _next_action(self, messages: list[ChatMessage]) -> _Reply:
        """Ask the model for an action; re-ask on malformed replies. Raises LLMError.

        A rejected reply never joins the history: the re-ask shows it (clipped) once, and only
        the usable reply is kept by the caller.
        """
        reasks = 0
        rejected: list[ChatMessage] = []
        while True:
            started = time.monotonic()
            completion = await self._complete(messages, rejected)
            text = completion.text
            call = completion.tool_calls[0] if completion.tool_calls else None
            try:
                if call is not None:
                    self._called_a_tool = True
                    action = parse_action_data(action_tools.action_data(call))
                else:
                    action = parse_action(text)
            except JSONReplyError as exc:
                shown = text if call is None else f"(called {call.name} with {call.arguments})"
                self._emit("model_reply", time.monotonic() - started, ok=False, problem=str(exc), reply=shown[:1000])
                if call is None and self.native_tools and not self._called_a_tool and reasks >= 1:
                    # Asked for a tool call and answered in text again: this endpoint ignores tools.
                    self._use_text_protocol(messages, "the model answered in text without calling a tool")
                if reasks >= self.max_reasks:
                    return _Reply(None, text, reasks + 1)
                reasks += 1
                rejected = [
                    ChatMessage(role="assistant", content=history.clip(shown, _REJECTED_CHARS) or "(empty reply)"),
                    ChatMessage(role="user",
                                content=main_agent_prompts.reask_prompt(str(exc), tools=self.native_tools)),
                ]
                continue
            self._emit("model_reply", time.monotonic() - started, ok=True, action=action.action,
                       tokens=completion.usage.total_tokens, tool_call=call is not None)
            return _Reply(action, text, reasks, call)

    async def _complete(self, messages: list[ChatMessage], rejected: list[ChatMessage]) -> Completion:
        """One call; after a context-length error, once more with the history compacted.

        An endpoint that refuses the tools it is offered is asked again without them, and the
        run goes on with the JSON-in-text protocol.
        """
        try:
            return await self._call(messages + rejected)
        except LLMContextLengthError:
            before = history.size(messages)
            if not history.compact(messages):
                raise
            self._emit("context_compacted", None, messages=len(messages), chars_before=before,
                       chars_after=history.size(messages))
            return await self._call(messages + rejected)
        except LLMRequestError as exc:
            if not (self.native_tools and action_tools.tools_unsupported(exc)):
                raise
            self._use_text_protocol(messages, exc.message)
            return await self._complete(messages, rejected)

    async def _call(self, messages: list[ChatMessage]) -> Completion:
        tools = None
        if self.native_tools:
            tools = action_tools.TOOLS if self.mode.broadcasts else action_tools.tools_for(
                self.mode.text.help_action, named_helper=self.mode.names_a_helper)
        return await self.provider.complete(messages, label="main", tools=tools)

    def _system_prompt(self) -> str:
        return main_agent_prompts.system_prompt(str(self.lake_root), self.max_steps, tools=self.native_tools,
                                                mode=self.mode.text)

    def _use_text_protocol(self, messages: list[ChatMessage], why: str) -> None:
        """Switch this run to the JSON-in-text protocol, rewriting the conversation so far."""
        self.native_tools = False
        action_tools.as_text_protocol(messages, self._system_prompt())
        self._emit("text_protocol", None, reason=why[:500])
        logger.info("the model endpoint does without tools (%s); actions are JSON in text", why)

    # -- acting ------------------------------------------------------------------------
    async def _act(self, action: Action, index: int, question: str, task_id: str) -> _Outcome:
        if isinstance(action, (PlanAction, ReasonAction)):
            return _Outcome("Noted.")
        if isinstance(action, RequestHelpAction):
            return await self._request_help(action)
        if isinstance(action, RunCodeAction):
            try:
                execution = await self.kernel.execute(action.code, action.timeout_s or self.cell_timeout_s)
            except KernelUnavailable as exc:
                return _Outcome(f"The code did not run: {exc}", ok=False)
            if execution.ok:
                self._cells.append(action.code)
            return _Outcome(render_execution(execution), ok=execution.ok)
        assert isinstance(action, AnswerAction)
        return await self._try_answer(action, question, task_id)

    async def _request_help(self, action: RequestHelpAction) -> _Outcome:
        """The blackboard broadcasts; master-slave asks the named helper; rag asks the search agent."""
        request = BlackboardRequest(request=action.request, reason=action.reason)
        if self.mode.broadcasts:
            posting = await self.blackboard.post(request)
        elif self.mode.text.help_action is None:
            return _Outcome("Nobody helps in this setting: the files are listed with the question.", ok=False)
        elif self.mode.names_a_helper:
            if action.helper not in self.mode.helpers:
                named = f"No helper is called {action.helper!r}" if action.helper else "The request names no helper"
                return _Outcome(f'{named}; set "helper" to one of: {", ".join(self.mode.helpers)}.', ok=False)
            posting = await self.blackboard.assign(request, [action.helper])
        elif not self.mode.helpers:
            return _Outcome("There is no search agent for this lake, so nobody can answer.", ok=False)
        else:
            posting = await self.blackboard.post(request, helpers=list(self.mode.helpers))
        return _Outcome(render_posting(posting), ok=bool(posting.responses))

    async def _try_answer(self, action: AnswerAction, question: str, task_id: str) -> _Outcome:
        if self.fresh_kernel_for_answer:
            try:
                await self.kernel.restart()
                self._cells = []
            except KernelUnavailable as exc:
                logger.info("could not restart the kernel before the answer: %s", exc)
        try:
            execution = await self.kernel.execute(action.code, self.cell_timeout_s, purpose="answer")
        except KernelUnavailable as exc:
            return _Outcome(f"The program did not run: {exc}", ok=False)
        self._cells.append(action.code)  # it ran, even if it failed: the best start there is
        if not execution.ok:
            return _Outcome(
                "Your final program failed in a fresh kernel, so there is no answer yet. Fix it and answer again.\n"
                + render_execution(execution),
                ok=False,
            )
        try:
            output = parse_program_output(execution.stdout)
        except NoJSONOutput as exc:
            return _Outcome(str(exc), ok=False)
        response = action.response.model_copy(update={
            "id": action.response.id or task_id,
            "query": action.response.query or question,
            "answer": answer_of(output),
            "subtasks": _with_subtask_answers(action.response.subtasks, subtask_answers(output)),
        })
        return _Outcome(f"The program printed the answer: {output!r:.500}", final=_Final(action.code, response, execution))

    def _finish(self, result: RunResult, final: _Final) -> RunResult:
        sources = [self._relative(s) for s in final.response.data_sources]
        if not sources:
            sources = data_sources_in(final.program, self.lake_root, self.lake_paths)
            if sources:
                result.notes.append("data sources read from the program (the answer listed none)")
        response = final.response.model_copy(update={"data_sources": sources})
        return result.model_copy(update={
            "status": "answered",
            "answer": response.answer,
            "response": response,
            "program": final.program,
            "execution": final.execution,
            "data_sources": sources,
        })

    def _relative(self, path: str) -> str:
        root = str(self.lake_root).rstrip("/") + "/"
        path = path.strip()
        return path[len(root):] if path.startswith(root) else path.lstrip("./")

    def _emit(self, kind: str, elapsed_s: float | None, **data: Any) -> None:
        if self.trace is not None:
            self.trace.emit(kind, elapsed_s=elapsed_s, **data)


class _Reply:
    __slots__ = ("action", "text", "reasks", "call")

    def __init__(self, action: Action | None, text: str, reasks: int, call: ToolCall | None = None) -> None:
        self.action, self.text, self.reasks, self.call = action, text, reasks, call


class _Final:
    __slots__ = ("program", "response", "execution")

    def __init__(self, program: str, response: AgentResponse, execution: ExecutionResult) -> None:
        self.program, self.response, self.execution = program, response, execution


class _Outcome:
    __slots__ = ("observation", "ok", "final")

    def __init__(self, observation: str, ok: bool = True, final: _Final | None = None) -> None:
        self.observation, self.ok, self.final = observation, ok, final


def parse_action(text: str) -> Action:
    """One action from a model reply; JSONReplyError says what to fix (sent back to the model)."""
    return parse_action_data(extract_json_object(text))


def parse_action_data(data: dict[str, Any]) -> Action:
    """One action from the JSON object a reply or a tool call carries; JSONReplyError says what to fix."""
    data = _normalise_action(data)
    try:
        return _ACTION.validate_python(data)
    except ValidationError as exc:
        # loc[0] is the union member's tag: say "code: field required", not "run_code.code: ..."
        problems = validation_problems(exc, skip_loc=1, limit=6, whole="action")
        raise JSONReplyError(
            f"The {data.get('action')!r} action is missing fields or has wrong ones ({problems})."
        ) from None


def _normalise_action(data: dict[str, Any]) -> dict[str, Any]:
    """Forgive the usual slips: action names in other spellings, code under other keys."""
    data = dict(data)
    raw = data.get("action")
    if isinstance(raw, dict):  # {"action": {"name": "run_code", "code": ...}}
        inner = dict(raw)
        raw = inner.pop("name", inner.pop("type", None))
        data = {**data, **inner}
    if not isinstance(raw, str):
        raise JSONReplyError('Your JSON object has no "action" field naming one of: plan, reason, request_help, run_code, answer.')
    key = raw.strip().lower().replace(" ", "_").replace("-", "_")
    name = _ACTION_ALIASES.get(key)
    if name is None:
        raise JSONReplyError(f'"{raw}" is not an action; use one of: plan, reason, request_help, run_code, answer.')
    data["action"] = name
    if name in ("run_code", "answer") and "code" not in data:
        for alt in ("program", "python", "source"):
            if isinstance(data.get(alt), str):
                data["code"] = data.pop(alt)
                break
    if name == "answer" and "response" not in data and isinstance(data.get("structured_response"), dict):
        data["response"] = data.pop("structured_response")  # the paper's name for it
    if name == "answer" and "response" not in data:
        fields = {k: data.pop(k) for k in ("id", "query", "data_sources", "subtasks") if k in data}
        data["response"] = fields
    if name == "reason" and "reasoning" not in data:
        for alt in ("reason", "thought", "text"):
            if isinstance(data.get(alt), str) and data[alt].strip():
                data["reasoning"] = data[alt]
                break
    if name == "request_help" and "helper" not in data:
        for alt in ("agent", "helper_name", "agent_name"):
            if isinstance(data.get(alt), str):
                data["helper"] = data.pop(alt)
                break
    if name == "request_help" and "request" not in data:
        for alt in ("query", "question", "need"):
            if isinstance(data.get(alt), str):
                data["request"] = data.pop(alt)
                break
    return data


def unfinished_program(question: str, cells: list[str], max_steps: int) -> str:
    """The code that ran before the action budget ran out, marked as unfinished."""
    header = "\n".join([
        "# UNFINISHED: the main agent used its " + str(max_steps) + " actions before a working answer.",
        "# This is the code that ran in the kernel, cell after cell; it prints no answer.",
        comment("Question: " + question),
    ])
    return header + "\n\n" + "\n\n# --- next cell ---\n".join(cell.strip("\n") for cell in cells) + "\n"


def _with_subtask_answers(subtasks: list[SubtaskResponse], printed: dict[str, Any]) -> list[SubtaskResponse]:
    """The response's subtasks, each with the answer the program printed under its id."""
    listed = [s.model_copy(update={"answer": printed[s.id]}) if s.id in printed else s for s in subtasks]
    known = {s.id for s in subtasks}
    extra = [SubtaskResponse(id=key, query="", answer=value) for key, value in printed.items() if key not in known]
    return listed + extra


def _action_detail(action: Action) -> dict[str, Any]:
    if isinstance(action, PlanAction):
        return {"plan": action.plan}
    if isinstance(action, ReasonAction):
        return {"reasoning": action.reasoning[:1000]}
    if isinstance(action, RequestHelpAction):
        return {"request": action.request, "reason": action.reason, "helper": action.helper}
    if isinstance(action, RunCodeAction):
        return {"code": action.code}
    assert isinstance(action, AnswerAction)
    return {"code": action.code, "response": action.response.model_dump(mode="json")}
