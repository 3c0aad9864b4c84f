"""Who may call a server over HTTP: the bind address, Host and Origin allow-lists, a bearer token.

A page in the user's browser can reach a server on 127.0.0.1 (DNS rebinding), so every HTTP
server checks the Host and Origin headers against an allow-list: the local names 127.0.0.1,
localhost and [::1] on any port, plus what `--allowed-hosts` and `--allowed-origins` add.
fastmcp's Host/Origin guard does the checking; `BearerToken` checks the bearer token and, when it
is missing or wrong, says so (fastmcp's OAuth verifier would tell the user to re-register a client).

There is always a token: on a shared machine every local account can reach 127.0.0.1, so a
server given none makes one (`secrets.token_urlsafe`), writes it to an owner-only file (see
`token_file`) that the next server on the same port replaces, and says on stderr where it is.

Settings: flags > environment (`LAKEBOARD_AUTH_TOKEN`, `LAKEBOARD_ALLOWED_HOSTS`,
`LAKEBOARD_ALLOWED_ORIGINS`, comma-separated) > defaults. Every HTTP server (and the gateway)
adds the flags with `add_http_arguments` and serves with `serve_http`.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import logging
import os
import secrets
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, SecretStr

from lakeboard.common.atomic_files import write_text_atomic

if TYPE_CHECKING:
    from fastmcp import FastMCP

log = logging.getLogger(__name__)

TOKEN_ENV = "LAKEBOARD_AUTH_TOKEN"
HOSTS_ENV = "LAKEBOARD_ALLOWED_HOSTS"
ORIGINS_ENV = "LAKEBOARD_ALLOWED_ORIGINS"
LOCAL_HOST = "127.0.0.1"
TOKENS_FOLDER = "http-tokens"


class HttpSettings(BaseModel):
    """Where an HTTP server listens and whom it answers."""

    host: str = Field(LOCAL_HOST, description="bind address")
    port: int = Field(8000, ge=0, le=65535)
    allowed_hosts: list[str] = Field(
        default_factory=list, description="Host header names accepted besides 127.0.0.1, localhost and [::1]"
    )
    allowed_origins: list[str] = Field(
        default_factory=list, description="browser origins accepted besides local ones, e.g. https://app.example:*"
    )
    auth_token: SecretStr | None = Field(None, description="bearer token every request must carry")

    @property
    def beyond_loopback(self) -> bool:
        """Whether the server listens on an address other machines can reach."""
        return not is_loopback(self.host)

    def token_problem(self, server: str) -> str | None:
        """Why `server` must not listen beyond loopback without a token; None when it may."""
        if self.beyond_loopback and self.auth_token is None:
            return (
                f"The {server} listens on {self.host}, beyond this machine's loopback, so it needs a token: "
                f"pass --auth-token TOKEN (or set {TOKEN_ENV}), or listen on {LOCAL_HOST}."
            )
        return None


def is_loopback(host: str) -> bool:
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # another name may resolve anywhere


def _is_unspecified(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def add_http_arguments(parser: argparse.ArgumentParser, *, port: int) -> None:
    """The flags every HTTP server takes: --host, --port, --auth-token, --allowed-hosts, --allowed-origins."""
    group = parser.add_argument_group("HTTP transport")
    group.add_argument("--host", default=LOCAL_HOST, help=f"address to listen on (default {LOCAL_HOST})")
    group.add_argument("--port", type=int, default=port, help=f"port to listen on (default {port})")
    group.add_argument("--auth-token", metavar="TOKEN",
                       help=f"bearer token every request must carry (env {TOKEN_ENV}, which keeps it out of "
                       "process listings); without one, the server makes one, writes it to an owner-only file "
                       "and says where on stderr")
    group.add_argument("--allowed-hosts", metavar="NAMES",
                       help="comma-separated Host names accepted besides 127.0.0.1, localhost and [::1], "
                       f"e.g. myhost,192.168.1.5 (env {HOSTS_ENV})")
    group.add_argument("--allowed-origins", metavar="ORIGINS",
                       help="comma-separated browser origins accepted besides local ones, "
                       f"e.g. https://app.example:* (env {ORIGINS_ENV})")


def _names(flag: str | None, env_value: str | None) -> list[str]:
    value = flag if flag is not None else env_value or ""
    return [name.strip() for name in value.split(",") if name.strip()]


def http_settings(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> HttpSettings:
    """The HTTP settings of a parsed command line (see `add_http_arguments`), flags before environment."""
    env = os.environ if env is None else env
    token = args.auth_token if args.auth_token is not None else env.get(TOKEN_ENV)
    return HttpSettings(
        host=args.host,
        port=args.port,
        allowed_hosts=_names(args.allowed_hosts, env.get(HOSTS_ENV)),
        allowed_origins=_names(args.allowed_origins, env.get(ORIGINS_ENV)),
        auth_token=SecretStr(token) if token else None,
    )


def token_file(server: str, port: int, config_dir: Path | None = None) -> Path:
    """Where a token made for `server` listening on `port` is written: `CONFIG_DIR/http-tokens/SERVER-PORT.token`;
    for a server without a config folder, under `$XDG_STATE_HOME/lakeboard` (else `~/.local/state/lakeboard`)."""
    if config_dir is None:
        config_dir = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "lakeboard"
    return config_dir / TOKENS_FOLDER / f"{server}-{port}.token"


def _token(settings: HttpSettings, token_path: Path) -> str:
    """The token every request must carry: the one given, else a new one, written to `token_path`."""
    if settings.auth_token is not None:
        return settings.auth_token.get_secret_value()
    token = secrets.token_urlsafe(32)
    try:
        write_text_atomic(token_path, token + "\n", durable=False)  # a new file 0600, in a folder 0700
        where = f"written to {token_path}, readable by you only"
    except OSError as exc:
        where = f"not saved ({exc.strerror or exc}), so copy it from here"
    # stderr, never stdout: it is the terminal or a log, not a protocol channel.
    print(f"No --auth-token given, so this server made one; clients send 'Authorization: Bearer {token}' "
          f"(the token is {where}).", file=sys.stderr, flush=True)
    return token


def serve_http(server: FastMCP, settings: HttpSettings, *, token_path: Path, **run_options: Any) -> None:
    """Serve `server` over streamable HTTP, answering only allowed Hosts, Origins and the token's holders.

    Without a token in `settings`, one is made and written to `token_path` (see `token_file`).
    """
    if _is_unspecified(settings.host) and not settings.allowed_hosts:
        log.warning("Listening on %s, but only the Host names 127.0.0.1, localhost and [::1] are accepted: "
                    "add the names other machines use with --allowed-hosts (or %s).", settings.host, HOSTS_ENV)
    # Imported here: the flags and settings above stay light for processes that never serve.
    from starlette.middleware import Middleware

    token = _token(settings, token_path)
    server.run(
        transport="http",
        host=settings.host,
        port=settings.port,
        show_banner=False,
        host_origin_protection=True,  # every request, whatever the bind address
        allowed_hosts=settings.allowed_hosts,
        allowed_origins=settings.allowed_origins,
        middleware=[Middleware(BearerToken, token=token)],
        **run_options,
    )


TOKEN_REFUSED = ("The bearer token is missing or wrong: send the header 'Authorization: Bearer TOKEN' with the "
                 "token given to this server (--auth-token or LAKEBOARD_AUTH_TOKEN), or the one it wrote to its "
                 "token file when it was started without one.")


class BearerToken:
    """ASGI middleware: an HTTP request passes only with `Authorization: Bearer <token>`; else 401 and a sentence."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = next((value for name, value in scope["headers"] if name == b"authorization"), b"")
        if secrets.compare_digest(given, self._expected):  # in constant time: no guessing byte by byte
            await self.app(scope, receive, send)
            return
        body = json.dumps({"error": "invalid_token", "error_description": TOKEN_REFUSED}).encode()
        await send({"type": "http.response.start", "status": 401, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"www-authenticate", b'Bearer error="invalid_token"')]})
        await send({"type": "http.response.body", "body": body})


def bearer_headers(token: str) -> dict[str, str]:
    """The header a client sends to a server started with `--auth-token token`."""
    return {"Authorization": f"Bearer {token}"}
