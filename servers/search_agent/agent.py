"""The search agent: decides whether it can help, then searches in rounds and answers.

Plain async methods, independent of MCP: the server passes a `Model` (`lakeboard.servers.llm.client_model`:
the client's model, through sampling) or None (offline). With a model, the paper's flow: the
model writes each query, reads the top pages, and either answers with numbered sources or
writes the next query (at most `rounds` rounds; the steps are keyed "decide", "query",
"round-N"). Offline: the request is the first query, later rounds add words from the best
passages (pseudo-relevance feedback) while the evidence is weak, and the answer is
extractive: the best passages, with their documents or URLs as sources.
"""

from __future__ import annotations

import logging
import re
import threading

import anyio

from lakeboard.common.llm_settings import DEFAULT_MAX_TOKENS
from lakeboard.schemas.messages import BlackboardRequest, HelpDecision, SearchAgentResponse
from lakeboard.servers.llm.client_model import Model
from lakeboard.servers.llm.errors import ModelUnavailable
from lakeboard.servers.search_agent.backends import (
    LocalBackend,
    Page,
    SearchBackend,
    SearchError,
    make_backend,
)
from lakeboard.servers.search_agent.passages import Passage
from lakeboard.servers.search_agent.local_index import LocalDocumentList
from lakeboard.servers.search_agent.search_prompts import (
    DECIDE,
    FINAL_NOTE,
    FIRST_QUERY,
    NEXT_STEP,
    SYSTEM,
    as_confidence,
    format_documents,
    format_findings,
    parse_json_object,
)
from lakeboard.servers.search_agent.passage_ranking import PassageRanker, content_words, covers
from lakeboard.servers.search_agent.settings import SearchAgentSettings
from lakeboard.servers.search_agent.triage import Triage, triage

log = logging.getLogger(__name__)

_ENTRY_LINE = re.compile(r"^\s*(?:[*+\-•]\s|\d+[.)]\s|\||[^:]{1,80}: \S)")

INDEX_WAIT_S = 120.0
# Cosine similarities (TF-IDF, unigrams+bigrams) that calibrate decisions and confidences.
MIN_DOC_MATCH = 0.08  # below: no local document is about the request
STRONG_DOC_MATCH = 0.35  # at or above: a document matches as well as it gets
ENOUGH_EVIDENCE = 0.25  # offline: stop searching once the best passage scores this
MIN_ANSWER_SCORE = 0.05  # offline: passages below this are not an answer
# Offline answers: the best source's relevant passages (a method's steps), plus the best
# passage of up to two other sources.
TOP_SOURCE_PASSAGES = 6
OTHER_SOURCES = 2
ANSWER_CHARS = 3500
FINDING_CHARS = 1200  # per page, in prompts


class SearchAgent:
    def __init__(self, settings: SearchAgentSettings, backend: SearchBackend | None = None) -> None:
        self.settings = settings
        self.name = settings.name
        self.backend: SearchBackend = backend if backend is not None else make_backend(settings)
        self._started = False

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> None:
        """Begin indexing local documents in a background thread (the server answers at once)."""
        if self._started or not isinstance(self.backend, LocalBackend):
            return
        self._started = True
        index = self.backend.index

        def build() -> None:
            try:
                index.build()
            except Exception:  # recorded in the index; tools report it as a sentence
                log.exception("indexing the local documents failed")

        threading.Thread(target=build, name="search-agent-index", daemon=True).start()

    async def aclose(self) -> None:
        await self.backend.aclose()

    async def _problem(self) -> str | None:
        """Why the agent cannot search right now (configuration or index failure), or None."""
        if isinstance(self.backend, LocalBackend) and self.backend.problem() is None:
            self.start()
            index = self.backend.index
            try:
                if index.ready:
                    index.wait(0)  # re-raises a failed build as a sentence
                else:
                    await anyio.to_thread.run_sync(index.wait, INDEX_WAIT_S)
            except (TimeoutError, RuntimeError) as exc:
                return str(exc)
        return self.backend.problem()

    async def documents(self) -> LocalDocumentList:
        """The indexed local documents (empty for web backends)."""
        if not isinstance(self.backend, LocalBackend):
            return LocalDocumentList(documents=[], skipped=[])
        problem = await self._problem()
        listing = self.backend.documents()
        if problem:
            listing.skipped.insert(0, problem)
        return listing

    # -- can_help ---------------------------------------------------------------------------

    async def decide(self, request: BlackboardRequest, model: Model | None = None) -> HelpDecision:
        problem = await self._problem()
        if problem:
            return self._decision(False, problem, 0.0)
        if model is not None:
            decision = await self._decide_with_model(request, model)
            if decision is not None:
                return decision
        return await anyio.to_thread.run_sync(self._decide_offline, request)

    def _decision(self, can_help: bool, reason: str, confidence: float) -> HelpDecision:
        return HelpDecision(agent_name=self.name, can_help=can_help, reason=reason, confidence=round(confidence, 3))

    async def _decide_with_model(self, request: BlackboardRequest, model: Model) -> HelpDecision | None:
        titles = [d.title for d in self.backend.documents().documents] if isinstance(self.backend, LocalBackend) else []
        prompt = DECIDE.format(request=request.request, reason=request.reason or "-", where=self.backend.describe(),
                               documents=format_documents(titles))
        try:
            reply = await model.complete("decide", SYSTEM.format(where=self.backend.describe()), prompt, max_tokens=DEFAULT_MAX_TOKENS)
        except ModelUnavailable as exc:
            log.warning("the client's model is unavailable, deciding offline: %s", exc)
            return None
        parsed = parse_json_object(reply)
        if not parsed or not isinstance(parsed.get("can_help"), bool):
            log.warning("the model's decision was not usable JSON; deciding offline")
            return None
        can_help = parsed["can_help"]
        reason = str(parsed.get("reason") or ("The request needs general knowledge." if can_help else "The request is not for the search agent."))
        confidence = as_confidence(parsed.get("confidence"), 0.6 if can_help else 0.1)
        if can_help and isinstance(self.backend, LocalBackend):
            if await anyio.to_thread.run_sync(self.backend.index.best_score, _topic(request)) <= 0.0:
                return self._decision(False, "No local document mentions what the request is about.", 0.05)
        return self._decision(can_help, reason, confidence if can_help else min(confidence, 0.1))

    @staticmethod
    def _data_reason(phrasing: Triage) -> str:
        return (
            f"The request is about data in the lake ({', '.join(phrasing.data_cues[:2])}); "
            "the search agent answers general-knowledge questions only."
        )

    def _decide_offline(self, request: BlackboardRequest) -> HelpDecision:
        phrasing = triage(request.request)
        if phrasing.asks_data:
            return self._decision(False, self._data_reason(phrasing), 0.05)
        cue = phrasing.knowledge_cues[0] if phrasing.knowledge_cues else ""
        if isinstance(self.backend, LocalBackend):
            index = self.backend.index
            hits = index.search(_topic(request), 1)
            words = content_words(request.request)
            if not hits or hits[0].score < MIN_DOC_MATCH or not covers(words, hits[0].passages[0].indexed_text()):
                return self._decision(False, "No local document matches the request.", 0.05)
            match = min(1.0, hits[0].score / STRONG_DOC_MATCH)
            best = hits[0].document.path
            if phrasing.asks_knowledge:
                confidence = 0.3 + 0.3 * phrasing.strength() + 0.3 * match
                return self._decision(True, f"The request {cue}, and the local document {best} covers it.", min(confidence, 0.9))
            if phrasing.data < 0.5 and match >= 0.8:
                return self._decision(True, f"The local document {best} closely matches the request.", 0.3 + 0.2 * match)
            return self._decision(False, "The request does not ask for general knowledge.", 0.1)
        if phrasing.asks_knowledge:
            confidence = 0.4 + 0.35 * phrasing.strength()
            return self._decision(True, f"The request {cue}; a search of {self.backend.describe()} can answer it.", confidence)
        return self._decision(False, "The request does not ask for general knowledge.", 0.1)

    # -- respond ----------------------------------------------------------------------------

    async def respond(self, request: BlackboardRequest, model: Model | None = None) -> SearchAgentResponse:
        problem = await self._problem()
        if problem:
            return self._response(False, problem)
        if model is None:
            phrasing = triage(request.request)
            if phrasing.asks_data:  # the file agents' work: no search
                return self._response(False, self._data_reason(phrasing))
        where = self.backend.describe()
        system = SYSTEM.format(where=where)
        rounds = self.settings.rounds
        queries: list[str] = []
        pages: dict[str, Page] = {}
        notes: list[str] = []

        query = _offline_query(request)
        if model is not None:
            model, suggested = await _ask(model, "query", FIRST_QUERY.format(request=request.request, reason=request.reason or "-", where=where), system)
            if suggested and isinstance(suggested.get("query"), str) and suggested["query"].strip():
                query = suggested["query"].strip()[:300]

        for round_number in range(1, rounds + 1):
            try:
                result = await self.backend.search(query, self.settings.pages_per_query)
            except SearchError as exc:
                log.warning("search failed: %s", exc)
                if not pages:
                    return self._response(False, str(exc), queries=[*queries, query])
                notes.append(str(exc))
                break
            queries.append(query)
            notes.extend(result.notes)
            for page in result.pages:
                pages.setdefault(page.source, page)
            ranker = await anyio.to_thread.run_sync(PassageRanker, [p for page in pages.values() for p in page.passages])

            if model is not None:
                findings, numbered = _findings(request, ranker, pages)
                prompt = NEXT_STEP.format(
                    request=request.request, reason=request.reason or "-", queries="; ".join(queries),
                    findings=format_findings(findings), round=round_number, rounds=rounds,
                    final_note=FINAL_NOTE if round_number == rounds else "",
                )
                model, step = await _ask(model, f"round-{round_number}", prompt, system)
                if step and step.get("action") == "answer" and str(step.get("answer", "")).strip():
                    return self._model_answer(step, numbered, queries, notes)
                next_query = str(step.get("query", "")).strip()[:300] if step else ""
                if step and step.get("action") == "search" and next_query and next_query not in queries:
                    query = next_query
                    continue
                model = None  # an unusable reply: finish offline from what was found

            words = content_words(request.request)
            best = [(p, s) for p, s in ranker.rank(_topic(request), 10) if covers(words, p.indexed_text())][:3]
            # The local index ranks every document at once: once it found passages about the
            # request, rephrasing cannot find better ones. A web search can.
            exhaustive = isinstance(self.backend, LocalBackend)
            if round_number == rounds or (best and (exhaustive or best[0][1] >= ENOUGH_EVIDENCE)):
                break
            query = _expanded_query(request, ranker, [p for p, _ in best])
            if not query or query in queries:
                break

        # `ranker` holds every page found: it is refit after each successful search (a failed
        # first search has returned above).
        return await anyio.to_thread.run_sync(self._extractive_answer, request, ranker, len(pages), queries, notes)

    def _response(self, can_help: bool, reason: str, **fields: object) -> SearchAgentResponse:
        return SearchAgentResponse(agent_name=self.name, can_help=can_help, reason=reason, **fields)  # type: ignore[arg-type]

    def _extractive_answer(self, request: BlackboardRequest, ranker: PassageRanker, page_count: int,
                           queries: list[str], notes: list[str]) -> SearchAgentResponse:
        """The best passages of the pages found (`ranker` holds them all) as the answer."""
        words = content_words(request.request)
        ranked = [(p, s) for p, s in ranker.rank(_topic(request)) if covers(words, p.indexed_text())]
        if not ranked or ranked[0][1] < MIN_ANSWER_SCORE:
            reason = f"Searching {self.backend.describe()} found nothing relevant to the request."
            return self._response(False, _with_notes(reason, notes), queries=queries)
        best = ranked[0][1]
        top_source = ranked[0][0].source
        chosen: list[Passage] = []
        others: set[str] = set()
        size = 0
        for passage, score in ranked:
            if score < max(MIN_ANSWER_SCORE, 0.4 * best):
                break
            if passage.source == top_source:
                if sum(p.source == top_source for p in chosen) >= TOP_SOURCE_PASSAGES:
                    continue
            elif passage.source in others or len(others) >= OTHER_SOURCES:
                continue
            if chosen and size + len(passage.text) > ANSWER_CHARS:
                continue
            chosen.append(passage)
            size += len(passage.text)
            if passage.source != top_source:
                others.add(passage.source)
        # Best source first; within a source, document order (steps read in sequence).
        source_rank = {source: i for i, source in enumerate(dict.fromkeys(p.source for p in chosen))}
        chosen.sort(key=lambda p: (source_rank[p.source], p.position))
        answer = "\n\n".join(f"{_heading_prefix(p)}{_focus(p.text, set(words))} [{p.source}]" for p in chosen)
        sources = list(dict.fromkeys(p.source for p in chosen))
        reason = (f"Extracted from {len(sources)} of {page_count} source(s) found in {self.backend.describe()} "
                  f"with {len(queries)} quer{'y' if len(queries) == 1 else 'ies'}.")
        confidence = min(0.9, 0.25 + 1.2 * best)
        return self._response(True, _with_notes(reason, notes), answer=answer, sources=sources, queries=queries,
                              confidence=round(confidence, 3))

    def _model_answer(self, step: dict, numbered: list[str], queries: list[str], notes: list[str]) -> SearchAgentResponse:
        cited = step.get("sources") if isinstance(step.get("sources"), list) else []
        sources: list[str] = []
        for item in cited:
            try:
                number = int(item)
            except (TypeError, ValueError):
                continue
            if 1 <= number <= len(numbered) and numbered[number - 1] not in sources:
                sources.append(numbered[number - 1])
        if not sources:
            sources = numbered[:3]
        reason = f"Answered from {len(sources)} source(s) found in {self.backend.describe()} with {len(queries)} quer{'y' if len(queries) == 1 else 'ies'}."
        return self._response(True, _with_notes(reason, notes), answer=str(step["answer"]).strip(), sources=sources,
                              queries=queries, confidence=as_confidence(step.get("confidence"), 0.6))


async def _ask(model: Model, key: str, prompt: str, system: str) -> tuple[Model | None, dict | None]:
    """One completion (step `key`) parsed as a JSON object; (None, None) once the model is unavailable."""
    try:
        reply = await model.complete(key, system, prompt, max_tokens=DEFAULT_MAX_TOKENS)
    except ModelUnavailable as exc:
        log.warning("the client's model is unavailable, continuing offline: %s", exc)
        return None, None
    parsed = parse_json_object(reply)
    if parsed is None:
        log.warning("the model's reply was not a JSON object; continuing offline")
    return model, parsed


def _topic(request: BlackboardRequest) -> str:
    """What a request is about: its content words, without the phrasing ("what does ... mean")."""
    return " ".join(content_words(request.request)) or request.request


def _offline_query(request: BlackboardRequest) -> str:
    return " ".join(request.request.split())[:300]


def _expanded_query(request: BlackboardRequest, ranker: PassageRanker, top: list[Passage]) -> str:
    words = content_words(request.request)[:8]
    return " ".join(words + ranker.expansion_terms(request.request, top))


def _findings(request: BlackboardRequest, ranker: PassageRanker, pages: dict[str, Page]) -> tuple[str, list[str]]:
    """Numbered sources for a prompt: each page's passages most relevant to the request."""
    scores = dict(zip((id(p) for p in ranker.passages), ranker.scores(_topic(request)), strict=True))
    blocks: list[str] = []
    numbered: list[str] = []
    for page in pages.values():
        best = sorted(page.passages, key=lambda p: scores.get(id(p), 0.0), reverse=True)
        text = ""
        for passage in best:
            if text and len(text) + len(passage.text) > FINDING_CHARS:
                break
            text = f"{text}\n{passage.text}".strip()
        numbered.append(page.source)
        blocks.append(f"[{len(numbered)}] {page.title} ({page.source})\n{text[:FINDING_CHARS]}")
    return "\n\n".join(blocks), numbered


def _heading_prefix(p: Passage) -> str:
    """The passage's heading as a lead-in, unless it only repeats the document title."""
    return f"{p.heading}: " if p.heading and p.heading != p.title else ""


def _focus(text: str, words: set[str]) -> str:
    """Keep only the entries about the request when a passage is a list of entries.

    A passage of list items, table rows or "term: definition" lines holds several entries;
    prose keeps all its lines (cutting an explanation would lose its steps).
    """
    lines = [line for line in text.split("\n") if line.strip()]
    entries = [line for line in lines if _ENTRY_LINE.match(line)]
    if len(lines) < 3 or len(entries) < 0.8 * len(lines):
        return text
    matching = [line for line in lines if words & set(content_words(line))]
    if matching and len(matching) * 2 <= len(lines):
        return "\n".join(matching)
    return text


def _with_notes(reason: str, notes: list[str]) -> str:
    if not notes:
        return reason
    shown = " ".join(notes[:2]) + (f" (and {len(notes) - 2} more)" if len(notes) > 2 else "")
    return f"{reason} Not read: {shown}"
