"""The agent offline: decisions and answers over local documents and the loopback web."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakeboard.schemas.messages import BlackboardRequest
from lakeboard.servers.search_agent.agent import SearchAgent
from lakeboard.servers.search_agent.settings import SearchAgentSettings

from .conftest import AQI_QUESTION, DATA_QUESTION, web_settings


def ask(text: str, reason: str = "") -> BlackboardRequest:
    return BlackboardRequest(request=text, reason=reason)


@pytest.fixture
async def local_agent(lake: Path):
    agent = SearchAgent(SearchAgentSettings(docs=[lake / "docs"], cache_dir=None))
    agent.start()
    yield agent
    await agent.aclose()


@pytest.fixture
async def web_agent(web):
    agents = []

    def make(backend: str = "searxng", **overrides) -> SearchAgent:
        agent = SearchAgent(web_settings(web, backend, **overrides))
        agents.append(agent)
        return agent

    yield make
    for agent in agents:
        await agent.aclose()


async def test_local_agent_volunteers_for_knowledge_it_holds(local_agent) -> None:
    decision = await local_agent.decide(ask(AQI_QUESTION))
    assert decision.can_help and decision.agent_name == "search_agent"
    assert 0.6 <= decision.confidence <= 0.9
    assert "docs/air_quality_index.md" in decision.reason
    term = await local_agent.decide(ask("What does dew point mean?"))
    assert term.can_help and 0.3 <= term.confidence <= 0.9


async def test_local_agent_declines_data_requests_and_unknown_topics(local_agent) -> None:
    data = await local_agent.decide(ask(DATA_QUESTION))
    assert not data.can_help and data.confidence <= 0.1 and "data in the lake" in data.reason
    unknown = await local_agent.decide(ask("What is the formula for compound interest on a loan?"))
    assert not unknown.can_help and unknown.reason == "No local document matches the request."


async def test_local_answer_is_extractive_with_the_document_as_source(local_agent) -> None:
    response = await local_agent.respond(ask(AQI_QUESTION))
    assert response.can_help and response.sources == ["docs/air_quality_index.md"]
    assert "linear interpolation" in response.answer and "[docs/air_quality_index.md]" in response.answer
    assert response.queries == [AQI_QUESTION]
    assert 0.3 <= response.confidence <= 0.9


async def test_glossary_answer_keeps_only_the_entry_asked_about(local_agent) -> None:
    response = await local_agent.respond(ask("What does dew point mean?"))
    assert response.sources[0] == "docs/glossary.html"
    assert "Dew point: The temperature at which air becomes saturated" in response.answer
    assert "Wind chill" not in response.answer


async def test_pdf_and_nested_documents_answer_too(local_agent) -> None:
    drift = await local_agent.respond(ask("How is sensor drift corrected between calibrations?"))
    assert drift.sources[0] == "docs/drift.pdf" and "linear trend" in drift.answer
    retention = await local_agent.respond(ask("How is the retention period of a record computed?"))
    assert retention.sources[0] == "docs/more/retention.txt"


async def test_nothing_relevant_is_a_clear_refusal(local_agent) -> None:
    response = await local_agent.respond(ask("What is the boiling point of liquid nitrogen?"))
    assert not response.can_help and response.answer == "" and response.sources == []
    assert "found nothing relevant" in response.reason
    assert 1 <= len(response.queries) <= 3


async def test_local_agent_without_documents_says_how_to_fix_it(tmp_path: Path) -> None:
    agent = SearchAgent(SearchAgentSettings(docs=[], cache_dir=None))
    decision = await agent.decide(ask(AQI_QUESTION))
    assert not decision.can_help and "--docs DIR" in decision.reason
    (tmp_path / "empty").mkdir()
    empty = SearchAgent(SearchAgentSettings(docs=[tmp_path / "empty"], cache_dir=None))
    response = await empty.respond(ask(AQI_QUESTION))
    assert not response.can_help and "found no readable documents" in response.reason


async def test_documents_listing(local_agent) -> None:
    listing = await local_agent.documents()
    assert sorted(d.path for d in listing.documents) == [
        "docs/air_quality_index.md", "docs/drift.pdf", "docs/glossary.html", "docs/more/retention.txt"]


@pytest.mark.parametrize("backend", ["searxng", "google", "brave"])
async def test_web_agent_answers_from_fetched_pages(web, web_agent, backend: str) -> None:
    agent = web_agent(backend)
    decision = await agent.decide(ask(AQI_QUESTION))
    assert decision.can_help and 0.4 <= decision.confidence <= 0.9
    response = await agent.respond(ask(AQI_QUESTION))
    assert response.can_help
    assert response.sources[0] == f"{web.base}/pages/aqi.html"
    assert "linear interpolation between breakpoints" in response.answer
    assert response.queries[0] == AQI_QUESTION and len(response.queries) <= 3


async def test_web_agent_declines_data_requests(web_agent) -> None:
    decision = await web_agent().decide(ask(DATA_QUESTION))
    assert not decision.can_help and decision.confidence <= 0.1


async def test_weak_evidence_triggers_more_rounds(web, web_agent) -> None:
    response = await web_agent().respond(ask("How is the frobnication quotient of a widget derived?"))
    assert 2 <= len(response.queries) <= 3
    assert len(set(response.queries)) == len(response.queries)
    searches = [r for r in web.requests if r["path"] == "/search"]
    assert [r["params"]["q"] for r in searches] == response.queries


async def test_blocked_pages_leave_snippets_and_say_so(web, web_agent) -> None:
    response = await web_agent(allow_private_fetch=False).respond(ask(AQI_QUESTION))
    assert web.paths_requested("/pages/") == []
    assert "Not read:" in response.reason and "loopback" in response.reason


async def test_web_failures_and_missing_keys_are_reasons(web, web_agent) -> None:
    broken = await web_agent(searxng_url=f"{web.base}/broken-api").respond(ask(AQI_QUESTION))
    assert not broken.can_help and "did not answer with JSON" in broken.reason and broken.queries == [AQI_QUESTION]
    keyless = web_agent("google", google_api_key=None)
    decision = await keyless.decide(ask(AQI_QUESTION))
    assert not decision.can_help and "GOOGLE_API_KEY" in decision.reason and decision.confidence == 0.0
    response = await keyless.respond(ask(AQI_QUESTION))
    assert not response.can_help and response.reason == decision.reason
    assert not [r for r in web.requests if r["path"] == "/customsearch/v1"]


async def test_respond_does_not_search_for_data_requests(web, web_agent) -> None:
    response = await web_agent().respond(ask(DATA_QUESTION))
    assert not response.can_help and "data in the lake" in response.reason and response.queries == []
    assert web.requests == []
