"""The blackboard: post a request to every helper at once, collect the volunteers' responses.

Posting broadcasts `can_help` to every helper concurrently; each helper that volunteers
is asked to `respond` as soon as it has decided, so a posting takes as long as the
slowest helper, never the sum. Each call has its own timeout; a helper that errors,
hangs or dies is recorded in its outcome (and the trace) and skipped. A helper the pool
marks slow (it left a call unanswered and has not answered since) is not asked at all: its
outcome says it was skipped, so one hanging helper does not cost every posting its timeout.
Responses go to
the ResponseBoard, which only the main agent reads: helpers only ever see the request.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from lakeboard.common.object_mirror import ObjectMirror
from lakeboard.common.request_embedding import embedding_meta, lake_similarity, request_embedding, warm_up
from lakeboard.host.pool import ClientPool, PoolError, ToolMissing
from lakeboard.host.trace import Trace
from lakeboard.schemas.board import BoardEntry, HelperError, HelperOutcome, Phase, Posting, parse_response
from lakeboard.schemas.messages import BlackboardRequest, FileAgentResponse, HelpDecision, SearchAgentResponse

log = logging.getLogger(__name__)


class ResponseBoard:
    """Every response the helpers gave, in posting order. Read by the main agent only."""

    def __init__(self) -> None:
        self._entries: list[BoardEntry] = []

    def add(self, posting: Posting) -> list[BoardEntry]:
        """Put a posting's responses on the board; returns the new entries."""
        new = [
            BoardEntry(
                request_id=posting.request.id,
                request=posting.request.request,
                helper=o.helper,
                response_kind=o.response_kind,
                response=o.response,
                response_raw=o.response_raw or {},
            )
            for o in posting.outcomes
            if o.response is not None
        ]
        self._entries.extend(new)
        return new

    @property
    def entries(self) -> list[BoardEntry]:
        return list(self._entries)

    def for_request(self, request_id: str) -> list[BoardEntry]:
        return [e for e in self._entries if e.request_id == request_id]

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[BoardEntry]:
        return iter(list(self._entries))


class Blackboard:
    """Posts requests to the pool's helpers and keeps their responses on `self.board`.

    Args:
        pool: a started ClientPool; helpers are its servers with a `can_help` tool.
        trace: where post/decision/response/helper_error/posting events go.
        can_help_timeout_s: per-helper limit for `can_help` (a restart wait included).
        respond_timeout_s: per-helper limit for `respond`.
            A server entry's own `timeout` (ms, mcpServers format) overrides both.
        board: the response board to fill (a new one by default).
        embed_requests: embed each request once here and send the vector to every helper
            (`common/request_embedding.py`), so file agents do not each run the model on it.
        lake_index: the folder of the lake's search index (clusters.json's `relevance_index`); with
            it the embedding goes with its best similarity over the lake, so that each file agent
            weighs only its own files' vectors.
        mirror: a bucket lake's local mirror (`common/object_mirror.py`): the files the responses
            name are fetched into it before the posting is returned, so code run next finds them.
    """

    def __init__(
        self,
        pool: ClientPool,
        trace: Trace | None = None,
        *,
        can_help_timeout_s: float = 10.0,
        respond_timeout_s: float = 60.0,
        board: ResponseBoard | None = None,
        embed_requests: bool = True,
        lake_index: Path | None = None,
        mirror: ObjectMirror | None = None,
    ) -> None:
        self.pool = pool
        self.mirror = mirror
        self.embed_requests = embed_requests
        self.lake_index = lake_index
        if embed_requests:
            warm_up()  # the model loads while the helpers start, not at the first post
        self.trace = trace
        self.can_help_timeout_s = can_help_timeout_s
        self.respond_timeout_s = respond_timeout_s
        self.board = board if board is not None else ResponseBoard()

    async def post(
        self,
        request: BlackboardRequest,
        *,
        helpers: Sequence[str] | None = None,
        max_responders: int | None = None,
    ) -> Posting:
        """Broadcast `request` and return every helper's outcome.

        helpers: restrict the broadcast to these servers (default: every helper in the
            pool, plus servers that never connected, which are tried and dropped if
            they turn out to have no `can_help`).
        max_responders: ask only the N most confident volunteers to respond. This waits
            for every `can_help` first; without it each volunteer responds at once.
        """
        if helpers is None:
            names = list(dict.fromkeys([*self.pool.helpers, *self.pool.unconnected]))
            optional = set(self.pool.unconnected) - set(self.pool.helpers)
        else:
            unknown = [h for h in helpers if h not in self.pool.names]
            if unknown:
                raise KeyError(f"not in the pool: {', '.join(unknown)}; known servers: {', '.join(self.pool.names)}")
            names, optional = list(dict.fromkeys(helpers)), set()

        started_at = time.monotonic()
        posting = Posting(request=request)
        self._emit("post", request.id, None, request=request.model_dump(mode="json"), helpers=names)
        arguments, meta = request.tool_arguments(), await self._meta(request)
        outcomes = {name: HelperOutcome(helper=name) for name in names}
        decided_at: dict[str, float] = {}
        not_helpers: set[str] = set()

        async def serve(name: str, respond: bool) -> None:
            outcome = outcomes[name]
            slow = self.pool.slow(name)
            if slow is not None:
                message = (f"skipped: {slow} last time; it is asked again once that answer has arrived "
                           "and it answers a ping")
                self._fail(outcome, request.id, "can_help", "skipped", message, time.monotonic())
                return
            if not await self._ask(outcome, request.id, arguments, meta, quiet_if_missing=name in optional):
                not_helpers.add(name)
                return
            decided_at[name] = time.monotonic()
            if respond and outcome.volunteered:
                await self._collect(outcome, request.id, arguments, meta, started_at)

        await asyncio.gather(*(serve(n, max_responders is None) for n in names))
        if max_responders is not None:
            volunteers = sorted(
                (o for o in outcomes.values() if o.volunteered),
                key=lambda o: o.decision.confidence if o.decision else 0.0,
                reverse=True,
            )[: max(0, max_responders)]
            await asyncio.gather(*(self._collect(o, request.id, arguments, meta, started_at) for o in volunteers))

        # A server that turned out not to be a helper was never part of the broadcast.
        posting.outcomes = [o for o in outcomes.values() if o.helper not in not_helpers]
        posting.can_help_phase_s = max((t - started_at for t in decided_at.values()), default=0.0)
        if self.mirror is not None:
            await self._fill_mirror(posting)
        posting.elapsed_s = time.monotonic() - started_at
        self.board.add(posting)
        self._emit(
            "posting",
            request.id,
            posting.elapsed_s,
            can_help_phase_s=posting.can_help_phase_s,
            volunteers=[o.helper for o in posting.volunteers],
            responders=[o.helper for o in posting.responses],
            errors={o.helper: f"{o.error.phase}: {o.error.kind}" for o in posting.errors if o.error},
        )
        return posting

    async def _fill_mirror(self, posting: Posting) -> None:
        """The files the file agents named, fetched into the lake's mirror; one that cannot be is said
        in the trace and the log (code that reads it then fails on a missing file, not on a sample)."""
        files = [f for o in posting.responses if isinstance(o.response, FileAgentResponse) for f in o.response.files]
        report = await asyncio.to_thread(self.mirror.fill, files)
        for path, why in report.failed.items():
            log.warning("%s is not in the lake's mirror: %s", path, why)
        self._emit("mirror", posting.request.id, None, fetched=report.fetched, kept=report.kept, failed=report.failed,
                   evicted=report.evicted)

    async def _meta(self, request: BlackboardRequest) -> dict[str, Any] | None:
        """The `_meta` every helper's call of this request carries: its embedding, made here once,
        and the embedding's similarity to the lake (its best over the files, and their spread)."""
        if self.embed_requests and request.embedding is None:
            request.embedding = await asyncio.to_thread(request_embedding, request.request)
        if request.embedding is not None and self.lake_index is not None and request.lake_similarity is None:
            found = await asyncio.to_thread(lake_similarity, self.lake_index, request.embedding)
            request.lake_similarity = {str(self.lake_index): found} if found is not None else None
        return embedding_meta(request.embedding, request.lake_similarity)

    async def assign(self, request: BlackboardRequest, helpers: Sequence[str]) -> Posting:
        """The master-slave baseline of the paper: the named helpers respond at once; none is
        asked whether it can help. Their responses land on the board like a posting's."""
        unknown = [h for h in helpers if h not in self.pool.names]
        if unknown:
            raise KeyError(f"not in the pool: {', '.join(unknown)}; known servers: {', '.join(self.pool.names)}")
        started_at = time.monotonic()
        posting = Posting(request=request, outcomes=[HelperOutcome(helper=h) for h in dict.fromkeys(helpers)])
        self._emit("assign", request.id, None, request=request.model_dump(mode="json"), helpers=list(helpers))
        arguments, meta = request.tool_arguments(), await self._meta(request)
        await asyncio.gather(*(self._collect(o, request.id, arguments, meta, started_at) for o in posting.outcomes))
        if self.mirror is not None:
            await self._fill_mirror(posting)
        posting.elapsed_s = time.monotonic() - started_at
        self.board.add(posting)
        self._emit("posting", request.id, posting.elapsed_s, volunteers=[],
                   responders=[o.helper for o in posting.responses],
                   errors={o.helper: f"{o.error.phase}: {o.error.kind}" for o in posting.errors if o.error})
        return posting

    async def _ask(
        self, outcome: HelperOutcome, request_id: str, arguments: dict[str, Any], meta: dict[str, Any] | None, *,
        quiet_if_missing: bool,
    ) -> bool:
        """Call can_help; False when the server has no can_help and that is not an error."""
        started = time.monotonic()
        try:
            result = await self.pool.call(
                outcome.helper,
                "can_help",
                arguments,
                timeout_s=self.pool.timeout_for(outcome.helper, self.can_help_timeout_s),
                meta=meta,
            )
            outcome.decision = HelpDecision.model_validate(result.json())
        except PoolError as exc:
            if quiet_if_missing and isinstance(exc, ToolMissing):
                return False
            self._fail(outcome, request_id, "can_help", exc.kind, str(exc), started)
            return True
        except (ValidationError, ValueError) as exc:
            self._fail(outcome, request_id, "can_help", "invalid_output", _invalid("HelpDecision", exc), started)
            return True
        outcome.can_help_s = time.monotonic() - started
        self._emit(
            "decision",
            request_id,
            outcome.can_help_s,
            server=outcome.helper,
            **outcome.decision.model_dump(mode="json"),
        )
        return True

    async def _collect(
        self, outcome: HelperOutcome, request_id: str, arguments: dict[str, Any], meta: dict[str, Any] | None,
        posted_at: float,
    ) -> None:
        started = time.monotonic()
        outcome.respond_started_s = started - posted_at
        try:
            result = await self.pool.call(
                outcome.helper,
                "respond",
                arguments,
                timeout_s=self.pool.timeout_for(outcome.helper, self.respond_timeout_s),
                meta=meta,
            )
            raw = result.json()
        except PoolError as exc:
            self._fail(outcome, request_id, "respond", exc.kind, str(exc), started)
            return
        except ValueError as exc:
            self._fail(outcome, request_id, "respond", "invalid_output", str(exc), started)
            return
        outcome.respond_s = time.monotonic() - started
        outcome.response_raw = raw if isinstance(raw, dict) else {"value": raw}
        try:
            if not isinstance(raw, dict):
                raise ValueError(f"expected a JSON object, got {type(raw).__name__}")
            response = parse_response(raw)
        except (ValidationError, ValueError) as exc:
            self._fail(outcome, request_id, "respond", "invalid_output", _invalid("response", exc), started)
            return
        outcome.response = response
        outcome.response_kind = "search" if isinstance(response, SearchAgentResponse) else "file"
        self._emit(
            "response",
            request_id,
            outcome.respond_s,
            server=outcome.helper,
            response_kind=outcome.response_kind,
            response=raw,
        )

    def _fail(
        self, outcome: HelperOutcome, request_id: str, phase: Phase, kind: Any, message: str, started: float
    ) -> None:
        elapsed = time.monotonic() - started
        if phase == "can_help":
            outcome.can_help_s = elapsed
        else:
            outcome.respond_s = elapsed
        outcome.error = HelperError(phase=phase, kind=kind, message=message)
        self._emit(
            "helper_error", request_id, elapsed, server=outcome.helper, phase=phase, error_kind=kind, message=message
        )

    def _emit(
        self, kind: str, request_id: str | None, elapsed_s: float | None, server: str | None = None, **data: Any
    ) -> None:
        if self.trace is not None:
            self.trace.emit(kind, request_id=request_id, server=server, elapsed_s=elapsed_s, **data)


def _invalid(what: str, exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or what}: {e['msg']}" for e in exc.errors()[:5])
        return f"the answer is not a valid {what}: {problems}"
    return f"the answer is not a valid {what}: {exc}"
