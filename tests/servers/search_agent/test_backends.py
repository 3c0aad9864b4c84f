"""Every backend against real data: the local index, and three web APIs on a loopback server."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakeboard.servers.search_agent.backends import (
    BraveBackend,
    GoogleBackend,
    SearchError,
    SearxngBackend,
    make_backend,
)
from lakeboard.servers.search_agent.settings import SearchAgentSettings

from .conftest import BRAVE_KEY, GOOGLE_CX, GOOGLE_KEY, web_settings


@pytest.fixture
async def backends(web):
    made = []

    def make(backend: str, **overrides):
        instance = make_backend(web_settings(web, backend, **overrides))
        made.append(instance)
        return instance

    yield make
    for instance in made:
        await instance.aclose()


async def test_local_backend_returns_documents_with_passages(lake: Path) -> None:
    backend = make_backend(SearchAgentSettings(docs=[lake / "docs"], cache_dir=None))
    backend.index.build()
    result = await backend.search("How is the air quality index computed?", 3)
    assert result.pages[0].source == "docs/air_quality_index.md"
    assert result.pages[0].title == "Air Quality Index"
    assert any("linear interpolation" in p.text for p in result.pages[0].passages)
    assert backend.describe() == "local reference documents" and backend.problem() is None


@pytest.mark.parametrize("name", ["searxng", "google", "brave"])
async def test_web_backend_reads_the_top_k_pages(web, backends, name: str) -> None:
    backend = backends(name)
    result = await backend.search("air quality index computation", 3)
    assert [p.source for p in result.pages] == [f"{web.base}/pages/aqi.html", f"{web.base}/pages/glossary.html",
                                                f"{web.base}/pages/retention.txt"]
    assert result.pages[0].title == "How the AQI is computed"
    assert "linear interpolation" in result.pages[0].passages[0].text
    assert result.notes == []
    # k = 3: the fourth result (an image) was never fetched
    assert "/pages/image.png" not in web.paths_requested()


async def test_api_requests_carry_the_query_and_credentials(web, backends) -> None:
    await backends("searxng").search("q one", 2)
    await backends("google").search("q two", 2)
    await backends("brave").search("q three", 2)
    api = [r for r in web.requests if not r["path"].startswith("/pages/")]
    assert api[0]["path"] == "/search" and api[0]["params"] == {"q": "q one", "format": "json"}
    google = next(r for r in api if r["path"] == "/customsearch/v1")
    assert google["params"] == {"key": GOOGLE_KEY, "cx": GOOGLE_CX, "q": "q two", "num": "2"}
    brave = next(r for r in api if r["path"] == "/res/v1/web/search")
    assert brave["params"] == {"q": "q three", "count": "2"} and brave["headers"]["X-Subscription-Token"] == BRAVE_KEY


async def test_unreadable_pages_fall_back_to_snippets_with_notes(web, backends) -> None:
    result = await backends("searxng").search("retention of records", 3)
    sources = [p.source for p in result.pages]
    assert sources == [f"{web.base}/pages/retention.txt", f"{web.base}/pages/missing.html", f"{web.base}/pages/glossary.html"]
    missing = result.pages[1]
    assert missing.passages[0].text.startswith("snippet of /pages/missing.html")
    assert len(result.notes) == 1 and "answered HTTP 404" in result.notes[0]


async def test_private_pages_are_refused_without_the_explicit_allowance(web, backends) -> None:
    result = await backends("searxng", allow_private_fetch=False).search("air quality index", 3)
    assert len(result.notes) == 3 and all("loopback" in note for note in result.notes)
    assert web.paths_requested("/pages/") == []  # the guard stopped every page fetch
    assert all(p.passages[0].text.startswith("snippet of") for p in result.pages)  # snippets remain evidence


async def test_results_are_cached_for_replays(web, backends) -> None:
    backend = backends("brave")
    first = await backend.search("air quality index", 3)
    count = len(web.requests)
    assert await backend.search("air quality index", 3) == first
    assert len(web.requests) == count


async def test_empty_results_are_not_errors(backends) -> None:
    for name in ("searxng", "google", "brave"):
        result = await backends(name).search("nothing at all", 3)
        assert result.pages == [] and result.notes == []


async def test_api_failures_are_sentences(web, backends) -> None:
    with pytest.raises(SearchError, match="answered HTTP 400: API key not valid"):
        await backends("google", google_api_key="wrong").search("x", 3)
    with pytest.raises(SearchError, match="answered HTTP 401: invalid subscription token"):
        await backends("brave", brave_api_key="wrong").search("x", 3)
    web.searxng_json_enabled = False
    with pytest.raises(SearchError, match="search.formats of its settings.yml"):
        await backends("searxng").search("x", 3)
    with pytest.raises(SearchError, match="did not answer with JSON"):
        await backends("searxng", searxng_url=f"{web.base}/broken-api").search("x", 3)
    from tests.support.servers import free_port

    with pytest.raises(SearchError, match="could not be reached"):
        await backends("searxng", searxng_url=f"http://127.0.0.1:{free_port()}").search("x", 3)


def test_backend_classes_and_problems() -> None:
    assert isinstance(make_backend(SearchAgentSettings(backend="searxng", searxng_url="http://127.0.0.1:1")), SearxngBackend)
    google = make_backend(SearchAgentSettings(backend="google"))
    assert isinstance(google, GoogleBackend) and "GOOGLE_API_KEY and GOOGLE_CSE_ID" in google.problem()
    brave = make_backend(SearchAgentSettings(backend="brave"))
    assert isinstance(brave, BraveBackend) and "BRAVE_API_KEY" in brave.problem()
