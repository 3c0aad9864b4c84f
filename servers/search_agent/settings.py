"""Search-agent settings: command-line flags > environment variables > defaults.

`resolve_settings` records where each setting came from (`sources`), so the server can
log it. API keys are read from the environment only (never flags: they would show in
process listings and in servers.json).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, SecretStr

from lakeboard.common.http_security import add_http_arguments

Backend = Literal["local", "searxng", "google", "brave"]
BACKENDS: tuple[Backend, ...] = ("local", "searxng", "google", "brave")

DEFAULT_GOOGLE_BASE_URL = "https://www.googleapis.com"
DEFAULT_BRAVE_BASE_URL = "https://api.search.brave.com"

ENV = {
    "backend": "LAKEBOARD_SEARCH_BACKEND",
    "docs": "LAKEBOARD_SEARCH_DOCS",
    "lake_root": "LAKEBOARD_LAKE_ROOT",
    "searxng_url": "LAKEBOARD_SEARXNG_URL",
    "google_base_url": "LAKEBOARD_GOOGLE_BASE_URL",
    "brave_base_url": "LAKEBOARD_BRAVE_BASE_URL",
    "google_api_key": "GOOGLE_API_KEY",
    "google_cse_id": "GOOGLE_CSE_ID",
    "brave_api_key": "BRAVE_API_KEY",
    "allow_private_fetch": "LAKEBOARD_SEARCH_ALLOW_PRIVATE_FETCH",
    "sampling": "LAKEBOARD_SEARCH_SAMPLING",
    "cache_dir": "LAKEBOARD_CACHE_DIR",
}


class SearchAgentSettings(BaseModel):
    name: str = "search_agent"
    backend: Backend = "local"
    docs: list[Path] = Field(default_factory=list, description="folders of documents for the local backend")
    lake_root: Path | None = Field(None, description="local sources are shown relative to it")
    searxng_url: str | None = None
    google_base_url: str = DEFAULT_GOOGLE_BASE_URL
    google_api_key: SecretStr | None = None
    google_cse_id: str | None = None
    brave_base_url: str = DEFAULT_BRAVE_BASE_URL
    brave_api_key: SecretStr | None = None
    allow_private_fetch: bool = False
    allow_fetch_networks: list[str] = Field(default_factory=list)
    sampling: Literal["auto", "off"] = "auto"
    rounds: int = Field(3, ge=1, le=10)
    pages_per_query: int = Field(3, ge=1, le=10)
    max_page_bytes: int = Field(2_000_000, gt=0)
    fetch_timeout_s: float = Field(10.0, gt=0)
    cache_dir: Path | None = None
    sources: dict[str, str] = Field(default_factory=dict, description="setting -> flag, environment variable or default")

    def problem(self) -> str | None:
        """Why the chosen backend cannot work as configured, as a sentence; None when it can."""
        if self.backend == "local" and not self.docs:
            return "No local documents are configured: start the search agent with --docs DIR (or LAKEBOARD_SEARCH_DOCS)."
        if self.backend == "searxng" and not self.searxng_url:
            return "The searxng backend needs the instance URL: pass --searxng-url URL or set LAKEBOARD_SEARXNG_URL."
        if self.backend == "google":
            missing = [n for n, v in (("GOOGLE_API_KEY", self.google_api_key), ("GOOGLE_CSE_ID", self.google_cse_id)) if not v]
            if missing:
                return f"The google backend needs {' and '.join(missing)} in the environment of the search agent."
        if self.backend == "brave" and not self.brave_api_key:
            return "The brave backend needs BRAVE_API_KEY in the environment of the search agent."
        return None


def _truthy(value: str) -> bool:
    return value.strip().lower() in {"1", "true", "yes", "on"}


def argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m lakeboard.servers.search_agent",
        description="Lakeboard search agent: an MCP server that answers general-knowledge requests "
        "from local documents or a web search API.",
    )
    parser.add_argument("--backend", choices=BACKENDS, help="where to search (default: local; env LAKEBOARD_SEARCH_BACKEND)")
    parser.add_argument("--docs", action="append", metavar="DIR", type=Path,
                        help="a folder of HTML, Markdown, text and PDF documents (repeatable; env LAKEBOARD_SEARCH_DOCS, "
                        "folders separated by the OS path separator)")
    parser.add_argument("--lake-root", type=Path, metavar="DIR",
                        help="show local sources relative to this folder (default: each docs folder's parent)")
    parser.add_argument("--searxng-url", metavar="URL", help="SearxNG instance, e.g. http://127.0.0.1:8888")
    parser.add_argument("--google-base-url", metavar="URL", help=f"Google Custom Search API base (default {DEFAULT_GOOGLE_BASE_URL})")
    parser.add_argument("--brave-base-url", metavar="URL", help=f"Brave Search API base (default {DEFAULT_BRAVE_BASE_URL})")
    parser.add_argument("--allow-private-fetch", action="store_true", default=None,
                        help="allow fetching result pages from private, loopback and link-local addresses")
    parser.add_argument("--allow-fetch-network", action="append", metavar="CIDR", default=None,
                        help="also allow fetching pages from this network (repeatable), e.g. 127.0.0.1/32")
    parser.add_argument("--sampling", choices=("auto", "off"),
                        help="auto: let the client's model write queries and answers when it supports MCP sampling; "
                        "off: always offline ranking (env LAKEBOARD_SEARCH_SAMPLING)")
    parser.add_argument("--rounds", type=int, help="search rounds per request (default 3)")
    parser.add_argument("--pages-per-query", type=int, help="pages read per query (default 3)")
    parser.add_argument("--fetch-timeout", type=float, metavar="SECONDS", help="time limit per page (default 10)")
    parser.add_argument("--max-page-bytes", type=int, metavar="N", help="size limit per page (default 2000000)")
    parser.add_argument("--cache-dir", type=Path, metavar="DIR",
                        help="where extracted document text is cached (default ~/.cache/lakeboard; env LAKEBOARD_CACHE_DIR)")
    parser.add_argument("--name", help="agent name reported in decisions and responses (default search_agent)")
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    add_http_arguments(parser, port=8000)
    parser.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    return parser


def resolve_settings(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> SearchAgentSettings:
    """Merge flags, environment and defaults; raise ValueError with a sentence on bad values."""
    env = os.environ if env is None else env
    values: dict[str, object] = {}
    sources: dict[str, str] = {}

    def pick(key: str, flag_value: object, convert=lambda v: v) -> None:
        if flag_value is not None:
            values[key], sources[key] = flag_value, f"--{key.replace('_', '-')}"
        elif env.get(ENV.get(key, "")):
            values[key], sources[key] = convert(env[ENV[key]]), ENV[key]
        else:
            sources[key] = "default"

    backend_env = env.get(ENV["backend"], "").strip().lower()
    if args.backend is None and backend_env and backend_env not in BACKENDS:
        raise ValueError(f"{ENV['backend']}={backend_env!r} is not a backend; choose one of {', '.join(BACKENDS)}.")
    pick("backend", args.backend, lambda v: v.strip().lower())
    pick("docs", args.docs, lambda v: [Path(p) for p in v.split(os.pathsep) if p])
    pick("lake_root", args.lake_root, Path)
    pick("searxng_url", args.searxng_url)
    pick("google_base_url", args.google_base_url)
    pick("brave_base_url", args.brave_base_url)
    pick("allow_private_fetch", args.allow_private_fetch, _truthy)
    pick("sampling", args.sampling, lambda v: v.strip().lower())
    pick("cache_dir", args.cache_dir, Path)
    for key in ("google_api_key", "google_cse_id", "brave_api_key"):
        pick(key, None)
    for key, value in (("name", args.name), ("rounds", args.rounds), ("pages_per_query", args.pages_per_query),
                       ("fetch_timeout_s", args.fetch_timeout), ("max_page_bytes", args.max_page_bytes),
                       ("allow_fetch_networks", args.allow_fetch_network)):
        if value is not None:
            values[key], sources[key] = value, "flag"
    if "cache_dir" not in values:
        values["cache_dir"] = Path.home() / ".cache" / "lakeboard"
    for folder in values.get("docs", []):  # type: ignore[union-attr]
        if not Path(folder).is_dir():
            raise ValueError(f"The docs folder {folder} does not exist or is not a folder.")
    if values.get("lake_root") is not None and not Path(values["lake_root"]).is_dir():  # type: ignore[arg-type]
        raise ValueError(f"The lake root {values['lake_root']} does not exist or is not a folder.")
    from pydantic import ValidationError

    try:
        return SearchAgentSettings(**values, sources=sources)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ValueError(f"Invalid search agent settings: {problems}.") from exc


def settings_from_argv(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> tuple[SearchAgentSettings, argparse.Namespace]:
    """Parse a command line; exits with a usage message on bad flags or values."""
    parser = argument_parser()
    args = parser.parse_args(argv)
    try:
        return resolve_settings(args, env), args
    except ValueError as exc:
        parser.error(str(exc))
        raise  # unreachable: parser.error exits
