"""Page fetching against a real loopback server: text extraction, limits, redirects, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakeboard.servers.search_agent.address_guard import AddressPolicy
from lakeboard.servers.search_agent.fetching import FetchError, FetchLimits, PageFetcher

from .conftest import DRIFT_PDF_LINES, make_pdf

LOOPBACK_ONLY = AddressPolicy.from_strings(False, ["127.0.0.1/32"])


@pytest.fixture
async def fetcher():
    fetcher = PageFetcher(LOOPBACK_ONLY, FetchLimits(max_bytes=1_000_000, timeout_s=2.0))
    yield fetcher
    await fetcher.aclose()


async def test_html_page_becomes_text_without_chrome_or_scripts(web, fetcher) -> None:
    page = await fetcher.fetch(f"{web.base}/pages/aqi.html")
    assert page.title == "How the AQI is computed"
    assert page.content_type == "text/html"
    assert "linear interpolation between breakpoints" in page.text
    assert "Site header" not in page.text and "Footer links" not in page.text
    glossary = await fetcher.fetch(f"{web.base}/pages/glossary.html")
    assert "Heat index: An apparent temperature that combines air temperature and relative humidity." in glossary.text
    assert "console.log" not in glossary.text and "Home | About" not in glossary.text


async def test_plain_text_and_pdf_pages(web, fetcher, tmp_path: Path) -> None:
    text = await fetcher.fetch(f"{web.base}/pages/retention.txt")
    assert "number of days between its creation" in text.text
    pdf = make_pdf(tmp_path / "drift.pdf", DRIFT_PDF_LINES, title="Drift")
    page = await fetcher.fetch(f"{web.base}/pages/drift.pdf?file={pdf}")
    assert page.content_type == "application/pdf"
    assert "linear trend fitted between two calibrations" in page.text


async def test_redirects_are_followed_and_rechecked(web, fetcher) -> None:
    page = await fetcher.fetch(f"{web.base}/redirect?to=/pages/aqi.html")
    assert page.final_url == f"{web.base}/pages/aqi.html"
    # 127.0.0.2 is loopback too, but outside the one allowed network: the hop is refused
    with pytest.raises(FetchError, match="127.0.0.2.*loopback"):
        await fetcher.fetch(f"{web.base}/redirect?to=http://127.0.0.2:{web.port}/pages/aqi.html")
    with pytest.raises(FetchError, match="169.254.169.254.*link-local"):
        await fetcher.fetch(f"{web.base}/redirect?to=http://169.254.169.254/latest/meta-data/")
    with pytest.raises(FetchError, match="redirected more than 5 times"):
        await fetcher.fetch(f"{web.base}/redirect-loop")


async def test_blocked_address_never_reaches_the_server(web) -> None:
    fetcher = PageFetcher(AddressPolicy(), FetchLimits(timeout_s=2.0))
    try:
        with pytest.raises(FetchError, match=r"Refused to fetch from 127\.0\.0\.1: .*loopback.*--allow-private-fetch"):
            await fetcher.fetch(f"{web.base}/pages/aqi.html")
    finally:
        await fetcher.aclose()
    assert web.paths_requested() == []


async def test_size_limit_by_header_and_while_streaming(web, fetcher) -> None:
    with pytest.raises(FetchError, match="larger than the 1000000 byte limit"):
        await fetcher.fetch(f"{web.base}/pages/big.html")
    with pytest.raises(FetchError, match="larger than the 1000000 byte limit"):
        await fetcher.fetch(f"{web.base}/pages/big-chunked.html")


async def test_content_type_limit(web, fetcher) -> None:
    with pytest.raises(FetchError, match="image/png, not a page this agent reads"):
        await fetcher.fetch(f"{web.base}/pages/image.png")


async def test_time_limit(web) -> None:
    fetcher = PageFetcher(LOOPBACK_ONLY, FetchLimits(timeout_s=0.5))
    try:
        with pytest.raises(FetchError, match=r"(took longer than 0.5 s|timed out)"):
            await fetcher.fetch(f"{web.base}/pages/slow.html?s=2")
    finally:
        await fetcher.aclose()


async def test_http_errors_and_refused_connections(web, fetcher) -> None:
    with pytest.raises(FetchError, match="answered HTTP 404"):
        await fetcher.fetch(f"{web.base}/pages/missing.html")
    with pytest.raises(FetchError, match="answered HTTP 500"):
        await fetcher.fetch(f"{web.base}/pages/error.html")
    from tests.support.servers import free_port

    with pytest.raises(FetchError, match="failed"):
        await fetcher.fetch(f"http://127.0.0.1:{free_port()}/nothing-listens-here")
