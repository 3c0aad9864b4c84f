"""Fixtures: a docs folder, and a real HTTP server on 127.0.0.1 that plays the web.

`web` serves three search APIs (SearxNG JSON, Google Custom Search JSON, Brave web search)
whose results point at pages it also serves, plus pages that test the fetch limits
(oversized, wrong type, slow, redirects, errors). It records every request it receives.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from fastmcp import FastMCP

from lakeboard.servers.search_agent.settings import SearchAgentSettings

REPO = Path(__file__).resolve().parents[3]
GOOGLE_KEY, GOOGLE_CX, BRAVE_KEY = "google-test-key", "cse-test-id", "brave-test-key"
AQI_QUESTION = "How is the air quality index computed from pollutant concentrations?"
DATA_QUESTION = "Which files contain the hourly sensor readings for March 2024?"

AQI_MD = """# Air Quality Index

The air quality index (AQI) turns measured pollutant concentrations into one number from 0 to 500.

## How the AQI is computed

For each pollutant the concentration is compared with a table of breakpoints.
The sub-index is computed by linear interpolation: I = (I_hi - I_lo) / (C_hi - C_lo) * (C - C_lo) + I_lo,
where C is the concentration and C_lo, C_hi are the breakpoints that bracket it.
The overall AQI is the maximum of the pollutant sub-indices.

## Categories

0-50 is Good, 51-100 Moderate, 101-150 Unhealthy for Sensitive Groups, 151-200 Unhealthy.
"""

GLOSSARY_HTML = """<!doctype html><html><head><title>Glossary</title><style>p{}</style></head><body>
<nav>Home | About</nav>
<h1>Glossary of terms</h1>
<dl>
<dt>Heat index</dt><dd>An apparent temperature that combines air temperature and
relative humidity.</dd>
<dt>Dew point</dt><dd>The temperature at which air becomes saturated with water vapour.</dd>
<dt>Wind chill</dt><dd>The perceived decrease in temperature felt by the body on exposed skin due to wind.</dd>
</dl>
<script>console.log("not content")</script>
</body></html>
"""

RETENTION_TXT = """Retention period

The retention period of a record is the number of days between its creation and its scheduled deletion.
It is computed from the record class and the applicable retention schedule.
"""

DRIFT_PDF_LINES = [
    "Sensor drift correction",
    "Drift is corrected by subtracting a linear trend fitted between two calibrations.",
    "The corrected value equals the raw value minus the drift rate times the elapsed time.",
]


def make_pdf(path: Path, lines: list[str], title: str = "") -> Path:
    """Write a one-page PDF whose text layer holds `lines` (Helvetica, one line each)."""
    escaped = [line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") for line in lines]
    stream = "BT /F1 12 Tf 72 720 Td " + " 0 -16 Td ".join(f"({line}) Tj" for line in escaped) + " ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> >> >>",
        f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        f"<< /Title ({title}) >>",
    ]
    out = "%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n"
    out += "".join(f"{offset:010d} 00000 n \n" for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    path.write_bytes(out.encode("latin-1"))
    return path


@pytest.fixture
def lake(tmp_path: Path) -> Path:
    """A small lake: docs/ (Markdown, HTML, text, PDF) and a data file the agent must not claim."""
    root = tmp_path / "lake"
    docs = root / "docs"
    (docs / "more").mkdir(parents=True)
    (docs / "air_quality_index.md").write_text(AQI_MD, encoding="utf-8")
    (docs / "glossary.html").write_text(GLOSSARY_HTML, encoding="utf-8")
    (docs / "more" / "retention.txt").write_text(RETENTION_TXT, encoding="utf-8")
    make_pdf(docs / "drift.pdf", DRIFT_PDF_LINES, title="Sensor drift correction")
    (docs / "notes.xyz").write_text("not a document type", encoding="utf-8")
    (root / "data").mkdir()
    (root / "data" / "readings_2024_03.csv").write_text("station,time,pm25\nA,2024-03-01T00:00,12\n", encoding="utf-8")
    return root


# -- the loopback "web" ------------------------------------------------------------------------

PAGES: dict[str, tuple[str, str]] = {
    "/pages/aqi.html": (
        "text/html; charset=utf-8",
        "<html><head><title>How the AQI is computed</title></head><body><header>Site header</header>"
        "<article><h1>Air quality index</h1><p>The air quality index is computed from pollutant "
        "concentrations: each concentration is mapped to a sub-index by linear interpolation between "
        "breakpoints, and the AQI is the highest sub-index.</p></article><footer>Footer links</footer></body></html>",
    ),
    "/pages/glossary.html": ("text/html", GLOSSARY_HTML),
    "/pages/retention.txt": ("text/plain; charset=utf-8", RETENTION_TXT),
    "/pages/image.png": ("image/png", "\x89PNG not really"),
}


def _result_paths(query: str) -> list[str]:
    q = query.lower()
    if "retention" in q:
        return ["/pages/retention.txt", "/pages/missing.html", "/pages/glossary.html"]
    if "glossary" in q or "dew" in q or "humidity" in q:
        return ["/pages/glossary.html", "/pages/image.png"]
    if "nothing" in q:
        return []
    return ["/pages/aqi.html", "/pages/glossary.html", "/pages/retention.txt", "/pages/image.png"]


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        # Clients hang up on purpose (size and time limits): not a test failure.
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


class LoopbackWeb:
    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.searxng_json_enabled = True
        web = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # keep test output clean
                return

            def do_GET(self) -> None:  # noqa: N802 (http.server API)
                parts = urlsplit(self.path)
                params = {k: v[0] for k, v in parse_qs(parts.query).items()}
                web.requests.append({"path": parts.path, "params": params, "headers": dict(self.headers)})
                web.route(self, parts.path, params)

        self.server = _QuietServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def paths_requested(self, prefix: str = "/") -> list[str]:
        return [r["path"] for r in self.requests if r["path"].startswith(prefix)]

    def send(self, handler: BaseHTTPRequestHandler, status: int, content_type: str, body: bytes | str,
             headers: dict[str, str] | None = None) -> None:
        data = body.encode("utf-8") if isinstance(body, str) else body
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            handler.send_header(key, value)
        handler.end_headers()
        handler.wfile.write(data)

    def route(self, h: BaseHTTPRequestHandler, path: str, params: dict[str, str]) -> None:
        query = params.get("q", "")
        if path == "/search":
            if params.get("format") != "json" or not self.searxng_json_enabled:
                return self.send(h, 403, "text/html", "<h1>403 Forbidden</h1>")
            results = [{"url": self.base + p, "title": p.rsplit("/", 1)[-1], "content": f"snippet of {p} about {query}"}
                       for p in _result_paths(query)]
            return self.send(h, 200, "application/json", json.dumps({"query": query, "results": results}))
        if path == "/customsearch/v1":
            if params.get("key") != GOOGLE_KEY or params.get("cx") != GOOGLE_CX:
                return self.send(h, 400, "application/json",
                                 json.dumps({"error": {"code": 400, "message": "API key not valid."}}))
            items = [{"link": self.base + p, "title": p.rsplit("/", 1)[-1], "snippet": f"snippet of {p}"}
                     for p in _result_paths(query)]
            return self.send(h, 200, "application/json", json.dumps({"items": items} if items else {}))
        if path == "/res/v1/web/search":
            if h.headers.get("X-Subscription-Token") != BRAVE_KEY:
                return self.send(h, 401, "application/json", json.dumps({"message": "invalid subscription token"}))
            results = [{"url": self.base + p, "title": p.rsplit("/", 1)[-1], "description": f"snippet of {p}"}
                       for p in _result_paths(query)]
            return self.send(h, 200, "application/json", json.dumps({"web": {"results": results}}))
        if path == "/broken-api/search":
            return self.send(h, 200, "text/html", "<html>not json</html>")
        if path in PAGES:
            content_type, body = PAGES[path]
            return self.send(h, 200, content_type, body)
        if path == "/pages/drift.pdf":
            return self.send(h, 200, "application/pdf", Path(params["file"]).read_bytes() if "file" in params else b"")
        if path == "/pages/big.html":
            return self.send(h, 200, "text/html", "<p>" + "x" * 3_000_000 + "</p>")
        if path == "/pages/big-chunked.html":  # no Content-Length: the limit must hold while reading
            h.send_response(200)
            h.send_header("Content-Type", "text/html")
            h.end_headers()
            for _ in range(40):
                h.wfile.write(b"<p>" + b"y" * 100_000 + b"</p>")
            return None
        if path == "/pages/slow.html":
            time.sleep(float(params.get("s", "3")))
            return self.send(h, 200, "text/html", "<p>late</p>")
        if path == "/redirect":
            return self.send(h, 302, "text/html", "", headers={"Location": params.get("to", "/pages/aqi.html")})
        if path == "/redirect-loop":
            return self.send(h, 302, "text/html", "", headers={"Location": "/redirect-loop"})
        if path == "/pages/error.html":
            return self.send(h, 500, "text/html", "<h1>oops</h1>")
        return self.send(h, 404, "text/html", "<h1>not found</h1>")

    def __enter__(self) -> LoopbackWeb:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def web() -> Iterator[LoopbackWeb]:
    with LoopbackWeb() as server:
        yield server


def web_settings(web: LoopbackWeb, backend: str, **overrides) -> SearchAgentSettings:
    values = dict(
        backend=backend,
        searxng_url=web.base,
        google_base_url=web.base,
        google_api_key=GOOGLE_KEY,
        google_cse_id=GOOGLE_CX,
        brave_base_url=web.base,
        brave_api_key=BRAVE_KEY,
        allow_private_fetch=True,  # the "web" is on 127.0.0.1: allowed explicitly for the test
        fetch_timeout_s=3.0,
    )
    values.update(overrides)
    return SearchAgentSettings(**values)


# -- running the server for real ---------------------------------------------------------------

def server_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k == "LAKEBOARD_HOME" or not k.startswith(("LAKEBOARD_", "GOOGLE_", "BRAVE_"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
    env["FASTMCP_LOG_LEVEL"] = "WARNING"
    env.update(extra)
    return env


def module_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "lakeboard.servers.search_agent", *args]


def from_command_line(*args: str, **env: str) -> FastMCP:
    """The server `python -m lakeboard.servers.search_agent ARGS` would serve with this environment, in memory.

    Built by the same parsing of flags and environment as the process; test_server.py's stdio
    and HTTP tests cover the process itself.
    """
    from lakeboard.servers.search_agent.server import build_server
    from lakeboard.servers.search_agent.settings import settings_from_argv

    settings, _ = settings_from_argv(list(args), env=server_env(**env))
    return build_server(settings)
