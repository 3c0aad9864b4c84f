"""Search backends: one small interface, four implementations.

`search(query, k)` returns a `SearchRound`: up to `k` pages (local documents or fetched
web pages, cut into passages) and notes on what failed. Web backends differ only in how
they call their search API (`query_api`); fetching and reducing pages is shared.
The API endpoint itself is operator configuration and is trusted (a SearxNG instance often
runs on the local network); result pages are untrusted and go through the SSRF guard.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, Protocol

import anyio
from pydantic import BaseModel, Field

from lakeboard.servers.search_agent.address_guard import AddressPolicy
from lakeboard.servers.search_agent.passages import Passage, split_passages
from lakeboard.servers.search_agent.fetching import FetchError, FetchLimits, PageFetcher
from lakeboard.servers.search_agent.local_index import LocalDocumentList, LocalIndex
from lakeboard.servers.search_agent.settings import SearchAgentSettings

log = logging.getLogger(__name__)

API_TIMEOUT_S = 15.0
CACHE_TTL_S = 600.0
CACHE_ENTRIES = 128


class SearchError(Exception):
    """The search itself failed (API unreachable, refused, or answered nonsense)."""


class SearchHit(BaseModel):
    url: str
    title: str = ""
    snippet: str = ""


class Page(BaseModel):
    """A document or web page read for a query."""

    source: str = Field(description="URL or lake-relative document path")
    title: str = ""
    passages: list[Passage] = Field(default_factory=list)


class SearchRound(BaseModel):
    query: str
    pages: list[Page] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="pages that could not be read, and why")


class SearchBackend(Protocol):
    name: str

    def problem(self) -> str | None:
        """Why this backend cannot search as configured (a sentence), or None."""

    def describe(self) -> str:
        """Where this backend searches, in a few words (for prompts and reasons)."""

    async def search(self, query: str, k: int) -> SearchRound: ...

    async def aclose(self) -> None: ...


class LocalBackend:
    """Ranked retrieval over a folder of documents, indexed offline."""

    name = "local"

    def __init__(self, index: LocalIndex, configuration_problem: str | None = None) -> None:
        self.index = index
        self._problem = configuration_problem

    def problem(self) -> str | None:
        if self._problem:
            return self._problem
        if self.index.ready and not self.index.documents:
            folders = ", ".join(map(str, self.index.folders)) or "no folder"
            return f"The local backend found no readable documents in {folders}."
        return None

    def describe(self) -> str:
        return "local reference documents"

    async def search(self, query: str, k: int) -> SearchRound:
        hits = await anyio.to_thread.run_sync(self.index.search, query, k)
        return SearchRound(
            query=query,
            pages=[Page(source=h.document.path, title=h.document.title, passages=h.passages) for h in hits],
        )

    def documents(self) -> LocalDocumentList:
        return LocalDocumentList(documents=self.index.documents, skipped=self.index.skipped)

    async def aclose(self) -> None:
        return None


class _TTLCache:
    """Keeps recent results so a request replayed across sampling rounds sees the same pages."""

    def __init__(self) -> None:
        self._items: OrderedDict[str, tuple[float, Any]] = OrderedDict()

    def get(self, key: str) -> Any | None:
        item = self._items.get(key)
        if item is None or time.monotonic() - item[0] > CACHE_TTL_S:
            return None
        self._items.move_to_end(key)
        return item[1]

    def put(self, key: str, value: Any) -> None:
        self._items[key] = (time.monotonic(), value)
        self._items.move_to_end(key)
        while len(self._items) > CACHE_ENTRIES:
            self._items.popitem(last=False)


class WebBackend:
    """Shared part of the web backends: search API call, then top-k pages fetched and read."""

    name = "web"
    label = "web search"

    def __init__(self, settings: SearchAgentSettings) -> None:
        self.settings = settings
        policy = AddressPolicy.from_strings(settings.allow_private_fetch, settings.allow_fetch_networks)
        self.fetcher = PageFetcher(
            policy, FetchLimits(max_bytes=settings.max_page_bytes, timeout_s=settings.fetch_timeout_s)
        )
        self._api: Any = None
        self._rounds = _TTLCache()
        self._pages = _TTLCache()

    def problem(self) -> str | None:
        return self.settings.problem()

    def describe(self) -> str:
        return f"the web ({self.label})"

    def _api_client(self) -> Any:
        """The search API client, opened on first use (and again after `aclose`)."""
        import httpx

        if self._api is None or self._api.is_closed:
            self._api = httpx.AsyncClient(timeout=httpx.Timeout(API_TIMEOUT_S), headers={"Accept": "application/json"})
        return self._api

    async def aclose(self) -> None:
        if self._api is not None:
            await self._api.aclose()
            self._api = None
        await self.fetcher.aclose()

    async def query_api(self, query: str, k: int) -> list[SearchHit]:
        raise NotImplementedError

    async def search(self, query: str, k: int) -> SearchRound:
        cached = self._rounds.get(f"{k}\n{query}")
        if cached is not None:
            return cached
        hits = await self.query_api(query, k)
        hits = list({h.url: h for h in hits if h.url}.values())[:k]
        pages: list[Page | None] = [None] * len(hits)
        notes: list[str] = []

        async def read(i: int, hit: SearchHit) -> None:
            cached = self._pages.get(hit.url)
            if cached is not None:
                pages[i] = cached
                return
            try:
                fetched = await self.fetcher.fetch(hit.url)
                text, title = fetched.text, fetched.title or hit.title
            except FetchError as exc:
                log.info("page not read: %s", exc)
                notes.append(str(exc))
                text, title = hit.snippet, hit.title  # the result snippet is still evidence
            except Exception as exc:  # a page that breaks a reader must not sink the whole search
                log.exception("reading %s failed", hit.url)
                notes.append(f"{hit.url} could not be read ({type(exc).__name__}).")
                text, title = hit.snippet, hit.title
            passages = split_passages(text, source=hit.url, title=title) if text else []
            if passages:
                pages[i] = Page(source=hit.url, title=title, passages=passages)
                if text is not hit.snippet:
                    self._pages.put(hit.url, pages[i])

        async with anyio.create_task_group() as group:
            for i, hit in enumerate(hits):
                group.start_soon(read, i, hit)
        result = SearchRound(query=query, pages=[p for p in pages if p is not None], notes=notes)
        self._rounds.put(f"{k}\n{query}", result)
        return result

    async def _get_json(self, url: str, params: dict[str, Any], headers: dict[str, str] | None = None) -> Any:
        """GET a search API and parse its JSON, turning every failure into a SearchError sentence."""
        import httpx

        try:
            response = await self._api_client().get(url, params=params, headers=headers)
        except httpx.TimeoutException as exc:
            raise SearchError(f"The {self.label} API at {url} did not answer within {API_TIMEOUT_S:g} s.") from exc
        except httpx.HTTPError as exc:
            raise SearchError(f"The {self.label} API at {url} could not be reached: {exc or type(exc).__name__}.") from exc
        if response.status_code >= 400:
            detail = _error_detail(response)
            raise SearchError(f"The {self.label} API at {url} answered HTTP {response.status_code}{detail}.")
        try:
            return response.json()
        except ValueError as exc:
            raise SearchError(f"The {self.label} API at {url} did not answer with JSON.") from exc


def _error_detail(response: Any) -> str:
    try:
        data = response.json()
    except ValueError:
        return ""
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and error.get("message"):
            return f": {error['message']}"
        if isinstance(error, str):
            return f": {error}"
        if isinstance(data.get("message"), str):
            return f": {data['message']}"
    return ""


def _hits(data: Any, path: tuple[str, ...], url_key: str, snippet_key: str) -> list[SearchHit]:
    """The result rows at `path` in an API answer, as hits (a missing list: nothing found)."""
    for key in path:
        data = data.get(key) if isinstance(data, dict) else None
    rows = [item for item in data if isinstance(item, dict)] if isinstance(data, list) else []
    return [
        SearchHit(url=str(r.get(url_key, "")), title=str(r.get("title", "")), snippet=str(r.get(snippet_key, "") or ""))
        for r in rows
    ]


class SearxngBackend(WebBackend):
    """A SearxNG instance's JSON API (`/search?q=...&format=json`; json must be enabled in its formats)."""

    name = "searxng"
    label = "SearxNG"

    async def query_api(self, query: str, k: int) -> list[SearchHit]:
        url = f"{(self.settings.searxng_url or '').rstrip('/')}/search"
        try:
            data = await self._get_json(url, {"q": query, "format": "json"})
        except SearchError as exc:
            if "HTTP 403" in str(exc):
                raise SearchError(f"{exc} SearxNG refuses JSON unless `json` is listed in search.formats of its settings.yml.") from exc
            raise
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise SearchError(f"The SearxNG API at {url} answered JSON without a results list.")
        return _hits(data, ("results",), "url", "content")


class GoogleBackend(WebBackend):
    """Google's Programmable Search JSON API (`/customsearch/v1?key&cx&q`)."""

    name = "google"
    label = "Google Programmable Search"

    async def query_api(self, query: str, k: int) -> list[SearchHit]:
        url = f"{self.settings.google_base_url.rstrip('/')}/customsearch/v1"
        key = self.settings.google_api_key.get_secret_value() if self.settings.google_api_key else ""
        data = await self._get_json(url, {"key": key, "cx": self.settings.google_cse_id or "", "q": query, "num": min(k, 10)})
        if not isinstance(data, dict):
            raise SearchError(f"The Google API at {url} answered JSON that is not an object.")
        return _hits(data, ("items",), "link", "snippet")  # no "items" key: the search found nothing


class BraveBackend(WebBackend):
    """Brave Search's web search API (`/res/v1/web/search`, key in X-Subscription-Token)."""

    name = "brave"
    label = "Brave Search"

    async def query_api(self, query: str, k: int) -> list[SearchHit]:
        url = f"{self.settings.brave_base_url.rstrip('/')}/res/v1/web/search"
        key = self.settings.brave_api_key.get_secret_value() if self.settings.brave_api_key else ""
        data = await self._get_json(url, {"q": query, "count": min(k, 20)}, headers={"X-Subscription-Token": key})
        if not isinstance(data, dict):
            raise SearchError(f"The Brave API at {url} answered JSON that is not an object.")
        return _hits(data, ("web", "results"), "url", "description")


def make_backend(settings: SearchAgentSettings) -> LocalBackend | WebBackend:
    """The backend the settings choose (the local index is built later, off the event loop)."""
    if settings.backend == "local":
        index = LocalIndex(settings.docs, root=settings.lake_root, cache_dir=_search_cache(settings))
        return LocalBackend(index, settings.problem())
    backend_class = {"searxng": SearxngBackend, "google": GoogleBackend, "brave": BraveBackend}[settings.backend]
    return backend_class(settings)


def _search_cache(settings: SearchAgentSettings) -> Path | None:
    return settings.cache_dir / "search_agent" if settings.cache_dir is not None else None
