"""A file agent with a model: the paper's three steps, falling back to the offline engine.

Steps 1 and 2 (choose files to look at, analyse them) are the paper's offline phase: they
run once, ahead of any request. `lakeboard index --model ...` runs them for every partition
and stores the result (analysis_store.py), which the agent loads when it starts. Where no
stored analysis fits, the agent analyses in the background (with its own model from the
start, or through sampling from the first call of a client that can be called back) and
stores the result; a request never waits for it: until the analysis is ready, the offline
engine answers and says so. Step 3 runs per request: `decide` (can_help) and `respond`. Each
step asks for one JSON object; a malformed reply is re-asked once, and if it is still
unusable (or the model fails) the offline engine (`FileAgent`) answers instead and says so
in its reason.

The response keeps the contract's evidence fields: `matches` and `term_weights` come from the
offline engine's lake-wide scores of the files the model chose, `data_sample` from their
profiles, and the loading code from the profiles when the model wrote none.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

import anyio
import mcp_types as types

from lakeboard.common.json_replies import extract_json_object
from lakeboard.common.loader_programs import loading_code
from lakeboard.schemas.messages import BlackboardRequest, FileAgentResponse, FileMatch, HelpDecision
from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.file_agent import response_writing, file_agent_prompts
from lakeboard.servers.file_agent.agent import FileAgent
from lakeboard.servers.file_agent.analysis_store import AnalysisStore, StoredAnalysis, analysis_key, inputs_digest
from lakeboard.servers.file_agent.model_access import OwnModel, model_for
from lakeboard.servers.llm.client_model import InputNeeded, Model, background_model
from lakeboard.servers.llm.errors import ModelUnavailable

log = logging.getLogger(__name__)

Answer = TypeVar("Answer", HelpDecision, FileAgentResponse)


class MalformedReply(ValueError):
    """The model's reply is unusable even after a re-ask."""


NOT_READY = "the model's analysis of these files is not ready yet"


class ModelEngine:
    """Decides and responds with a model when one is available, else with the offline agent."""

    def __init__(
        self,
        agent: FileAgent,
        *,
        look_at: int = 12,
        inventory_lines: int = 300,
        profile_chars: int = 3000,
        prompt_chars: int = 30_000,
        max_tokens: int = 4096,
        store: AnalysisStore | None = None,
    ) -> None:
        self.agent = agent
        self.look_at = look_at
        self.inventory_lines = inventory_lines
        self.profile_chars = profile_chars
        self.prompt_chars = prompt_chars
        self.max_tokens = max_tokens
        self.store = store  # None: the analysis lives as long as this process
        self.analysis: str | None = None
        self.looked_at: list[str] = []
        self.analysis_model: str | None = None  # who wrote `analysis`
        self._analysing = asyncio.Lock()
        self._background: asyncio.Task[str] | None = None
        self._digest: str | None = None

    # -- the stored analysis -------------------------------------------------------------
    @property
    def digest(self) -> str:
        if self._digest is None:
            self._digest = inputs_digest(self.agent.root, self.agent.profiles, self.look_at)
        return self._digest

    def load(self, model: str) -> bool:
        """Take the stored analysis `model` wrote of these very files; False when there is none."""
        stored = self.store.load(self.agent.name, analysis_key(self.digest, model)) if self.store else None
        if stored is None:
            return False
        known = [p for p in stored.looked_at if p in self.agent.profiles]
        self.analysis, self.looked_at, self.analysis_model = stored.analysis, known, stored.model
        log.info("%s: loaded the analysis %s wrote", self.agent.name, model)
        return True

    def _save(self, model: str) -> None:
        assert self.analysis is not None
        if self.store is None:
            return
        stored = StoredAnalysis(cluster=self.agent.name, model=model, key=analysis_key(self.digest, model),
                                analysis=self.analysis, looked_at=self.looked_at)
        try:
            self.store.save(stored)
        except OSError as exc:  # a read-only config folder: the analysis still serves this process
            log.warning("%s: could not store the analysis: %s", self.agent.name, exc)

    def start_analysis(self, model: Model) -> None:
        """Analyse in the background (once at a time); requests meanwhile go to the offline engine."""
        if self.analysis is not None or (self._background is not None and not self._background.done()):
            return
        self._background = asyncio.create_task(self._analyse_in_background(model))

    async def _analyse_in_background(self, model: Model) -> str:
        try:
            return await self.analyse(model)
        except (ModelUnavailable, MalformedReply) as exc:  # the next request starts it again
            log.warning("%s: the background analysis failed: %s", self.agent.name, exc)
            return ""

    # -- the tools' entry points ---------------------------------------------------------
    async def decide(self, request: BlackboardRequest, ctx: Any = None) -> HelpDecision | types.InputRequiredResult:
        return await self._answer(request, ctx, self.decide_with, self.agent.decide, "deciding")

    async def respond(self, request: BlackboardRequest, ctx: Any = None) -> FileAgentResponse | types.InputRequiredResult:
        return await self._answer(request, ctx, self.respond_with, self.agent.respond, "responding")

    async def _answer(
        self,
        request: BlackboardRequest,
        ctx: Any,
        with_model: Callable[[Model, BlackboardRequest], Awaitable[Answer]],
        offline: Callable[[BlackboardRequest], Answer],
        doing: str,
    ) -> Answer | types.InputRequiredResult:
        """With the model when there is one and the analysis is ready; else offline (saying why)."""
        model = model_for(ctx)
        if model is None:
            return await anyio.to_thread.run_sync(offline, request)
        if self.analysis is None:
            # Never analyse inside a request: start it in the background where the model can be
            # reached after this call, and answer offline meanwhile.
            later = model if isinstance(model, OwnModel) else background_model(ctx)
            if later is not None:
                self.start_analysis(later)
            why = NOT_READY if later is not None else (
                "no analysis of these files is stored, and the client's model can only be asked during a call: "
                "run lakeboard index with --model to analyse them ahead")
            answer = await anyio.to_thread.run_sync(offline, request)
            return answer.model_copy(update={"reason": f"{answer.reason} (offline engine: {why})"})
        try:
            return await with_model(model, request)
        except InputNeeded as need:
            return need.as_result()
        except (ModelUnavailable, MalformedReply) as exc:
            log.warning("%s: %s offline: %s", self.agent.name, doing, exc)
            answer = await anyio.to_thread.run_sync(offline, request)
            return answer.model_copy(update={"reason": f"{answer.reason} (offline engine: {exc})"})

    # -- steps 1 and 2 -----------------------------------------------------------------
    async def analyse(self, model: Model) -> str:
        """Steps 1 and 2, once: choose files to look at, analyse them. Returns the analysis."""
        if self.analysis is not None:
            return self.analysis
        async with self._analysing:
            if self.analysis is not None:
                return self.analysis
            system, known = self._system(), self._context(None)
            try:
                chosen = await self._ask_json(model, "select", system,
                                              file_agent_prompts.step(known, file_agent_prompts.SELECT.format(limit=self.look_at)),
                                              self._parse_selection)
            except MalformedReply as exc:
                log.info("%s: default selection (%s)", self.agent.name, exc)
                chosen = self._default_selection()
            if model.name and self.load(model.name):  # the model named itself: its analysis is stored
                return self.analysis
            prompt = file_agent_prompts.step(known, file_agent_prompts.ANALYSE.format(profiles=file_agent_prompts.profiles_block(self._profiles(chosen))))
            text = await model.complete("analyse", system, prompt, max_tokens=self.max_tokens)
            if not text.strip():
                raise MalformedReply("the model wrote an empty analysis")
            self.analysis, self.looked_at, self.analysis_model = text.strip(), chosen, model.name
            log.info("%s: analysed %d files with the %s model", self.agent.name, len(chosen), model.source)
            if model.name:
                self._save(model.name)
            return self.analysis

    # -- step 3 ------------------------------------------------------------------------
    async def decide_with(self, model: Model, request: BlackboardRequest) -> HelpDecision:
        analysis = await self.analyse(model)
        prompt = file_agent_prompts.step(self._context(analysis), file_agent_prompts.DECIDE.format(
            request=request.request, reason=file_agent_prompts.reason_line(request.reason)))
        data = await self._ask_json(model, "decide", self._system(), prompt, _parse_decision)
        confidence = data["confidence"]
        if confidence is None:
            confidence = self._offline_score(request)
        return HelpDecision(
            agent_name=self.agent.name,
            can_help=data["can_help"],
            reason=data["reason"] or ("my files hold what is asked" if data["can_help"] else "none of my files holds it"),
            confidence=confidence,
        )

    async def respond_with(self, model: Model, request: BlackboardRequest) -> FileAgentResponse:
        analysis = await self.analyse(model)
        ranking = self.agent.rank(request.request, request.embedding)
        matches = ranking.matches
        candidates = list(dict.fromkeys([m.path for m in matches[:6]] + self.looked_at))
        prompt = file_agent_prompts.step(self._context(analysis), file_agent_prompts.RESPOND.format(
            request=request.request,
            reason=file_agent_prompts.reason_line(request.reason),
            profiles=file_agent_prompts.profiles_block(self._profiles(candidates)),
        ))
        data = await self._ask_json(model, "respond", self._system(), prompt, self._parse_response)
        name = self.agent.name
        if not data["can_help"]:
            return FileAgentResponse(agent_name=name, can_help=False, reason=data["reason"] or "none of my files helps",
                                     confidence=data["confidence"] or 0.0)
        files: list[str] = data["files"]
        by_path = {m.path: m for m in matches}
        chosen_matches = [by_path.get(p) or FileMatch(path=p, score=0.0) for p in files]
        confidence = data["confidence"]
        if confidence is None:
            confidence = max((m.score for m in chosen_matches), default=0.0)
        profiles = [self.agent.profiles[p] for p in files]
        picked = set(files)
        loaders = response_writing.loaders(profiles, {}, {m.path: m.group for m in chosen_matches})
        return FileAgentResponse(
            agent_name=name,
            can_help=True,
            reason=data["reason"] or f"{files[0]} holds what is asked",
            files=files,
            code=data["code"] or loading_code(loaders, self.agent.root, self.agent.source),
            loaders=loaders,
            data_explanation=data["data_explanation"] or "\n".join(response_writing.explanation(p) for p in profiles),
            data_sample=response_writing.samples(profiles),
            libraries=data["libraries"] or response_writing.libraries(loaders),
            necessary_steps=data["necessary_steps"] or response_writing.necessary_steps(profiles),
            confidence=confidence,
            matches=chosen_matches + [m for m in matches if m.path not in picked][:20],
            term_weights=ranking.term_weights,
            dense=self.agent.engine.dense,
        )

    # -- prompts and parsing -----------------------------------------------------------
    async def _ask_json(self, model: Model, key: str, system: str, prompt: str, parse) -> Any:
        """Ask once, re-ask once on an unusable reply; MalformedReply if still unusable."""
        reply = await model.complete(key, system, prompt, max_tokens=self.max_tokens)
        try:
            return parse(reply)
        except ValueError as exc:
            problem = str(exc)
        retry = file_agent_prompts.REASK.format(prompt=prompt, problem=problem, reply=file_agent_prompts.reply_block(reply[:2000] or "(empty)"))
        reply = await model.complete(f"{key}-again", system, retry, max_tokens=self.max_tokens)
        try:
            return parse(reply)
        except ValueError as exc:
            raise MalformedReply(f"the model's {key} reply was unusable twice ({exc})") from None

    def _system(self) -> str:
        """The system prompt: the agent's role, and no lake text (that goes in `_context`)."""
        return file_agent_prompts.system(self.agent.name, self.agent.config.name, len(self.agent.profiles))

    def _context(self, analysis: str | None) -> str:
        """The partition's description, inventory and analysis: lake text, for the user's turn."""
        agent = self.agent
        inventory = []
        for p in list(agent.profiles.values())[: self.inventory_lines]:
            state = "" if p.ok else f" [NOT DATA: {p.status}]"
            inventory.append(f"- {p.path} ({p.format}, {p.size_bytes:,} bytes){state}: {_clip(p.summary or p.reason or '', 160)}")
        if len(agent.profiles) > self.inventory_lines:
            inventory.append(f"- ... and {len(agent.profiles) - self.inventory_lines} more files")
        return file_agent_prompts.context(agent.spec.description, "\n".join(inventory), analysis)

    def _profiles(self, paths: list[str]) -> str:
        blocks, used = [], 0
        for path in paths:
            profile = self.agent.profiles.get(path)
            if profile is None:
                continue
            block = _clip(_profile_text(profile, self.agent.root), self.profile_chars)
            if used + len(block) > self.prompt_chars:
                blocks.append(f"(profiles of {len(paths) - len(blocks)} more files left out for length)")
                break
            blocks.append(block)
            used += len(block)
        return "\n\n".join(blocks) or "(no readable files)"

    def _known(self, path: Any) -> str | None:
        if not isinstance(path, str) or not path.strip():
            return None
        text = path.strip()
        root = str(self.agent.root).rstrip("/") + "/"
        if text.startswith(root):
            text = text[len(root):]
        key = PurePosixPath(text.lstrip("./")).as_posix()
        return key if key in self.agent.profiles else None

    def _parse_selection(self, reply: str) -> list[str]:
        return self._listed_files(_json_object(reply), 'a "files" list')[: self.look_at]

    def _listed_files(self, data: dict[str, Any], need: str) -> list[str]:
        """The reply's "files" that are in the inventory, in order; ValueError (for the re-ask) if none."""
        files = data.get("files")
        if not isinstance(files, list):
            raise ValueError(f"the JSON object needs {need}")
        known = list(dict.fromkeys(p for p in (self._known(f) for f in files) if p))
        if not known:
            raise ValueError("none of the listed files is in your inventory; copy paths exactly as listed")
        return known

    def _default_selection(self) -> list[str]:
        ok = [p.path for p in self.agent.profiles.values() if p.ok]
        return ok[: self.look_at]

    def _parse_response(self, reply: str) -> dict[str, Any]:
        data = _json_object(reply)
        can_help = _boolean(data.get("can_help", True))
        out: dict[str, Any] = {
            "can_help": can_help,
            "reason": str(data.get("reason") or "").strip(),
            "confidence": _confidence(data.get("confidence")),
        }
        if not can_help:
            return out
        known = self._listed_files(data, 'a "files" list of paths from your inventory')
        code = data.get("code") or ""
        if not isinstance(code, str):
            raise ValueError('"code" must be a string of Python')
        out |= {
            "files": known,
            "code": code.strip(),
            "data_explanation": _text(data.get("data_explanation") or data.get("explanation")),
            "libraries": [str(x) for x in data.get("libraries") or [] if str(x).strip()] if isinstance(data.get("libraries"), list) else [],
            "necessary_steps": _steps(data.get("necessary_steps")),
        }
        return out

    def _offline_score(self, request: BlackboardRequest) -> float:
        matches = self.agent.rank(request.request, request.embedding).matches
        return matches[0].score if matches else 0.0


def _json_object(reply: str) -> dict[str, Any]:
    """The reply's JSON object; the ValueError's message is worded to be sent back to the model."""
    return extract_json_object(reply or "")


def _parse_decision(reply: str) -> dict[str, Any]:
    data = _json_object(reply)
    if "can_help" not in data:
        raise ValueError('the JSON object needs "can_help" (true or false)')
    return {
        "can_help": _boolean(data["can_help"]),
        "reason": str(data.get("reason") or "").strip(),
        "confidence": _confidence(data.get("confidence")),
    }


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "1"):
        return True
    if isinstance(value, str) and value.strip().lower() in ("false", "no", "0"):
        return False
    if isinstance(value, (int, float)):
        return bool(value)
    raise ValueError('"can_help" must be true or false')


def _confidence(value: Any) -> float | None:
    """A confidence in [0, 1]; percentages are scaled; None when absent or not a number."""
    try:
        number = float(str(value).strip().rstrip("%")) if value is not None else None
    except ValueError:
        return None
    if number is None or number != number:
        return None
    if number > 1.0 and number <= 100.0:
        number /= 100.0
    return min(1.0, max(0.0, number))


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, (dict, list)):
        import json

        return json.dumps(value, indent=1)
    return ""


def _steps(value: Any) -> list[str]:
    if isinstance(value, str):
        return [line.strip("-* ").strip() for line in value.splitlines() if line.strip()]
    if isinstance(value, list):
        return [str(x).strip() for x in value if str(x).strip()]
    return []


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split()) if "\n" not in text else text
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _profile_text(profile: FileProfile, root: Path) -> str:
    from lakeboard.servers.profiling import loader_code

    code = profile.loader or loader_code(profile, root)
    return (
        f"### {profile.path}\n{response_writing.explanation(profile)}\n\n"
        f"{response_writing.sample(profile)}\n\nLoading code:\n{code.strip()}"
    )
