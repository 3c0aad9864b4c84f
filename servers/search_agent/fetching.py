"""Fetching result pages: httpx (async) behind the SSRF guard, with size, time and type limits.

Every failure becomes a `FetchError` whose message is a sentence naming the URL and the
reason (refused address, timeout, HTTP status, wrong content type, too large, unreadable).
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urljoin

import anyio
from pydantic import BaseModel

from lakeboard.servers.search_agent.address_guard import (
    AddressPolicy,
    BlockedAddressError,
    check_url,
    guarded_transport,
)
from lakeboard.servers.search_agent.passages import (
    UnreadableDocument,
    html_to_text,
    markdown_to_text,
    pdf_text,
)

log = logging.getLogger(__name__)

USER_AGENT = "Lakeboard-SearchAgent/0.1"
HTML_TYPES = {"text/html", "application/xhtml+xml"}
TEXT_TYPES = {"text/plain", "text/markdown", "text/x-markdown"}
PDF_TYPES = {"application/pdf"}


class FetchLimits(BaseModel):
    max_bytes: int = 2_000_000
    timeout_s: float = 10.0
    max_redirects: int = 5
    content_types: frozenset[str] = frozenset(HTML_TYPES | TEXT_TYPES | PDF_TYPES)


class FetchedPage(BaseModel):
    url: str
    final_url: str
    content_type: str
    title: str
    text: str


class FetchError(Exception):
    """A page that could not be fetched or read; the message says which and why."""


class PageFetcher:
    """Fetches pages one redirect at a time, checking each hop against the address policy."""

    def __init__(self, policy: AddressPolicy, limits: FetchLimits | None = None) -> None:
        self.policy = policy
        self.limits = limits or FetchLimits()
        self._http: Any = None

    def _client(self) -> Any:
        """The HTTP client, opened on first use (and again after `aclose`: a server may restart)."""
        import httpx

        if self._http is None or self._http.is_closed:
            self._http = httpx.AsyncClient(
                transport=guarded_transport(self.policy),
                follow_redirects=False,
                timeout=httpx.Timeout(self.limits.timeout_s),
                headers={"User-Agent": USER_AGENT, "Accept": "text/html,text/plain,application/pdf;q=0.8,*/*;q=0.1"},
                trust_env=False,
            )
        return self._http

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    async def fetch(self, url: str) -> FetchedPage:
        """Fetch `url` and reduce it to text, within the time limit for the whole chain."""
        try:
            with anyio.fail_after(self.limits.timeout_s):
                return await self._fetch(url)
        except TimeoutError as exc:
            raise FetchError(f"Fetching {url} took longer than {self.limits.timeout_s:g} s.") from exc

    async def _fetch(self, url: str) -> FetchedPage:
        import httpx

        current = url
        for _hop in range(self.limits.max_redirects + 1):
            try:
                await check_url(current, self.policy)
                async with self._client().stream("GET", current) as response:
                    if response.is_redirect:
                        location = response.headers.get("location", "")
                        if not location:
                            raise FetchError(f"{current} redirected without a Location header.")
                        current = urljoin(current, location)
                        continue
                    if response.status_code >= 400:
                        raise FetchError(f"{current} answered HTTP {response.status_code} {response.reason_phrase}.")
                    content_type = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
                    if content_type not in self.limits.content_types:
                        raise FetchError(f"{current} is {content_type or 'of no stated type'}, not a page this agent reads.")
                    declared = response.headers.get("content-length", "")
                    if declared.isdigit() and int(declared) > self.limits.max_bytes:
                        raise FetchError(f"{current} is larger than the {self.limits.max_bytes} byte limit.")
                    body = await self._read_limited(response, current)
                    # Parsing a large page takes a while: off the event loop.
                    title, text = await anyio.to_thread.run_sync(
                        _to_text, body, content_type, response.encoding or "utf-8", current
                    )
                    return FetchedPage(url=url, final_url=current, content_type=content_type, title=title, text=text)
            except BlockedAddressError as exc:
                raise FetchError(str(exc)) from exc
            except httpx.TimeoutException as exc:
                raise FetchError(f"Fetching {current} timed out.") from exc
            except httpx.HTTPError as exc:
                raise FetchError(f"Fetching {current} failed: {exc or type(exc).__name__}.") from exc
        raise FetchError(f"{url} redirected more than {self.limits.max_redirects} times.")

    async def _read_limited(self, response: object, url: str) -> bytes:
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():  # type: ignore[attr-defined]
            size += len(chunk)
            if size > self.limits.max_bytes:
                raise FetchError(f"{url} is larger than the {self.limits.max_bytes} byte limit.")
            chunks.append(chunk)
        return b"".join(chunks)


def _to_text(body: bytes, content_type: str, encoding: str, url: str) -> tuple[str, str]:
    if content_type in HTML_TYPES:
        return html_to_text(body, drop_chrome=True)
    if content_type in PDF_TYPES:
        try:
            return pdf_text(body, url)
        except UnreadableDocument as exc:
            raise FetchError(str(exc)) from exc
    try:
        raw = body.decode(encoding, errors="replace")
    except LookupError:
        raw = body.decode("utf-8", errors="replace")
    return markdown_to_text(raw)

