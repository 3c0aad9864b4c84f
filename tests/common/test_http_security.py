"""Every HTTP server checks Host, Origin and its bearer token (DNS rebinding, issue 17 item 2), and
never serves without a token: given none, it makes one (issue 24 item 7).

Real servers over real HTTP on 127.0.0.1: the file agent, the search agent and the kernel, each a
process of its own forked from one fork server of this module (tests/support/forked_servers.py), which
imports them once instead of once a start: it runs the same `python -m` main with the same argv and
environment. Each kind is started cold by `python -m ... --transport http` in its own tests
(tests/servers/file_agent/test_server.py, tests/servers/search_agent/test_server.py, and
tests.support.servers.kernel_over_http), and the kernel here once more, to see it refuse. The probes
share one HTTP client (a fresh client per request costs more than the server's answer); the kernel's
refusal to listen beyond loopback is seen once from a real process and, for each address, from its
`main` in this process (it refuses before it serves). Which of flags and environment wins is checked on
the function every server's main calls, and on each real server: the shared servers are given both.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import stat
import string
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from lakeboard.common.http_security import (
    TOKEN_ENV,
    HttpSettings,
    add_http_arguments,
    bearer_headers,
    http_settings,
)
from lakeboard.servers.kernel import __main__ as kernel_entry
from tests.conftest import DEMO_LAKE, REPO
from tests.support.forked_servers import ForkedServer, ForkedServers
from tests.support.servers import free_port, wait_for_port

TOKEN = "t0ken-" + "".join(random.choices(string.ascii_letters + string.digits, k=24))
INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}},
}
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
# The shared servers get a token, a host and origins from the environment, and a token and a host by flag.
SERVED_ENV = {TOKEN_ENV: "from-the-environment", "LAKEBOARD_ALLOWED_HOSTS": "env.internal",
              "LAKEBOARD_ALLOWED_ORIGINS": "https://app.internal:*"}


def _server_args(kind: str, config: Path, workdir: Path) -> list[str]:
    if kind == "file_agent":
        cluster = json.loads((config / "clusters.json").read_text())["clusters"][0]["name"]
        return ["lakeboard.servers.file_agent", "--config", str(config / "clusters.json"), "--cluster", cluster]
    if kind == "search_agent":
        return ["lakeboard.servers.search_agent", "--docs", str(DEMO_LAKE / "docs"), "--cache-dir", str(workdir / "cache")]
    return ["lakeboard.servers.kernel", "--lake", str(DEMO_LAKE), "--workdir", str(workdir / "kernel"), "--unsafe-no-sandbox"]


KINDS = ["file_agent", "search_agent", "kernel"]


@pytest.fixture(scope="module")
def forks() -> Iterator[ForkedServers]:
    """One fork server for every server this module starts: a server's start costs its fork, not its imports."""
    servers = ForkedServers([f"lakeboard.servers.{kind}" for kind in KINDS], _environment(), cwd=REPO)
    try:
        yield servers
    finally:
        servers.close()


def _environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if k != TOKEN_ENV}, **(extra or {})}


def _start(forks: ForkedServers, args: list[str], port: int, *flags: str, env: dict[str, str] | None = None,
           stderr: Path | None = None) -> ForkedServer:
    """`python -m ARGS --transport http --port PORT FLAGS`, forked, with this environment less any token
    and plus `env`; returns once it listens."""
    module, *rest = args
    server = forks.start(module, [*rest, "--transport", "http", "--port", str(port), *flags],
                         env=_environment(env), cwd=REPO, stderr=stderr)
    try:
        wait_for_port(port, server, 60, label=module)
    except BaseException:
        server.stop()
        raise
    return server


@pytest.fixture(scope="module")
def http() -> Iterator[httpx.Client]:
    """One client for every probe of this module."""
    with httpx.Client(timeout=30) as client:
        yield client


@pytest.fixture(scope="module", params=KINDS)
def served(request, forks: ForkedServers, demo_config: Path, tmp_path_factory) -> Iterator[str]:
    """A real server over HTTP with `--auth-token` and `--allowed-hosts flag.internal`, and `SERVED_ENV`;
    yields its URL."""
    port = free_port()
    args = _server_args(request.param, demo_config, tmp_path_factory.mktemp(request.param))
    process = _start(forks, args, port, "--auth-token", TOKEN, "--allowed-hosts", "flag.internal", env=SERVED_ENV)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.stop()


def _initialize(http: httpx.Client, url: str, **headers: str) -> int:
    return http.post(url, json=INITIALIZE, headers={**MCP_HEADERS, **headers}).status_code


def _hostile_names(port: int) -> list[str]:
    rng = random.Random(17)
    names = ["evil.example", "127.0.0.1.nip.io", "localhost.evil.example", "evil-127.0.0.1", "0.0.0.0", "10.0.0.1",
             "127.0.0.1."]
    names += ["".join(rng.choices(string.ascii_lowercase + string.digits + ".-", k=rng.randint(3, 30))) + ".example"
              for _ in range(5)]
    return names + [f"{name}:{port}" for name in names]


def test_the_right_token_from_a_local_name_is_served(served: str, http: httpx.Client) -> None:
    assert _initialize(http, served, Authorization=f"Bearer {TOKEN}") == 200
    port = httpx.URL(served).port
    for host in ("localhost", "127.0.0.1", "[::1]"):
        assert _initialize(http, served, Host=f"{host}:{port}", Authorization=f"Bearer {TOKEN}") == 200, host
    for origin in (f"http://localhost:{port}", "http://127.0.0.1:3000", "http://[::1]"):
        assert _initialize(http, served, Origin=origin, Authorization=f"Bearer {TOKEN}") == 200, origin


def test_a_foreign_host_header_is_refused(served: str, http: httpx.Client) -> None:
    for host in _hostile_names(httpx.URL(served).port):
        assert _initialize(http, served, Host=host, Authorization=f"Bearer {TOKEN}") == 421, host


def test_a_foreign_origin_is_refused(served: str, http: httpx.Client) -> None:
    port = httpx.URL(served).port
    origins = [f"http://{name}" for name in _hostile_names(port)] + ["null", f"https://evil.example:{port}"]
    for origin in origins:
        assert _initialize(http, served, Origin=origin, Authorization=f"Bearer {TOKEN}") == 403, origin


def test_a_missing_or_wrong_token_is_refused(served: str, http: httpx.Client) -> None:
    assert _initialize(http, served) == 401
    refused = http.post(served, json=INITIALIZE, headers={**MCP_HEADERS, "Authorization": "Bearer wrong"})
    # the user is told what is wrong, not to re-register an OAuth client
    assert "bearer token is missing or wrong" in refused.json()["error_description"]
    assert "regist" not in refused.text
    for wrong in ("x", TOKEN + "x", TOKEN[:-1], TOKEN.upper(), "Bearer"):
        assert _initialize(http, served, Authorization=f"Bearer {wrong}") == 401, wrong
    assert _initialize(http, served, Authorization=f"Basic {TOKEN}") == 401
    assert _initialize(http, served, Authorization=TOKEN) == 401


async def test_an_mcp_client_with_the_token_calls_tools(served: str) -> None:
    async with Client(StreamableHttpTransport(served, headers=bearer_headers(TOKEN))) as client:
        assert await client.list_tools()
    with pytest.raises(Exception):
        async with Client(StreamableHttpTransport(served)) as client:
            await client.list_tools()


def test_allowed_hosts_origins_and_the_token_come_from_the_environment() -> None:
    # What a server's main reads: the same parser arguments and the same function (the process: below).
    parser = argparse.ArgumentParser()
    add_http_arguments(parser, port=8000)
    env = {TOKEN_ENV: TOKEN, "LAKEBOARD_ALLOWED_HOSTS": "lakeboard.internal, other.internal",
           "LAKEBOARD_ALLOWED_ORIGINS": "https://app.internal:*"}
    settings = http_settings(parser.parse_args([]), env)
    assert settings.auth_token is not None and settings.auth_token.get_secret_value() == TOKEN
    assert settings.allowed_hosts == ["lakeboard.internal", "other.internal"]
    assert settings.allowed_origins == ["https://app.internal:*"]
    assert http_settings(parser.parse_args([]), {}).auth_token is None


def test_flags_win_over_the_environment_and_a_real_server_reads_both(served: str, http: httpx.Client) -> None:
    port = httpx.URL(served).port
    token = f"Bearer {TOKEN}"
    assert _initialize(http, served) == 401
    assert _initialize(http, served, Authorization="Bearer from-the-environment") == 401
    assert _initialize(http, served, Host="flag.internal", Authorization=token) == 200
    assert _initialize(http, served, Host=f"flag.internal:{port}", Authorization=token) == 200
    assert _initialize(http, served, Host="env.internal", Authorization=token) == 421
    assert _initialize(http, served, Host="evil.example", Authorization=token) == 421
    # No --allowed-origins flag: the environment's origins are the server's.
    assert _initialize(http, served, Origin="https://app.internal:8443", Authorization=token) == 200
    assert _initialize(http, served, Origin="https://evil.example", Authorization=token) == 403
    parser = argparse.ArgumentParser()
    add_http_arguments(parser, port=8000)
    flags = parser.parse_args(["--auth-token", TOKEN, "--allowed-hosts", "flag.internal",
                               "--allowed-origins", "https://flag.internal"])
    settings = http_settings(flags, SERVED_ENV)
    assert settings.auth_token.get_secret_value() == TOKEN
    assert (settings.allowed_hosts, settings.allowed_origins) == (["flag.internal"], ["https://flag.internal"])


@pytest.mark.parametrize("kind", KINDS)
def test_a_server_given_no_token_makes_one_and_keeps_it_owner_only(kind: str, forks: ForkedServers, demo_config: Path,
                                                                    tmp_path: Path, http: httpx.Client) -> None:
    # A config folder of its own: the file agent writes the token beside its clusters.json.
    config = tmp_path / "config"
    config.mkdir()
    (config / "clusters.json").write_bytes((demo_config / "clusters.json").read_bytes())
    state = tmp_path / "state"  # where servers without a config folder write it
    port = free_port()
    stderr = tmp_path / "stderr.txt"
    process = _start(forks, _server_args(kind, config, tmp_path), port, env={"XDG_STATE_HOME": str(state)},
                     stderr=stderr)
    url = f"http://127.0.0.1:{port}/mcp"
    folder = config if kind == "file_agent" else state / "lakeboard"
    expected = folder / "http-tokens" / f"{kind}-{port}.token"
    try:
        assert _initialize(http, url) == 401
        assert _initialize(http, url, Authorization="Bearer x") == 401
        token = expected.read_text().strip()
        assert len(token) >= 32
        assert stat.S_IMODE(expected.stat().st_mode) == 0o600
        assert stat.S_IMODE(expected.parent.stat().st_mode) & 0o077 == 0
        assert _initialize(http, url, Authorization=f"Bearer {token}") == 200
        said = stderr.read_text()
        assert str(expected) in said and token in said and "readable by you only" in said
    finally:
        process.stop()
    # The next server on that port makes a token of its own.
    process = _start(forks, _server_args(kind, config, tmp_path), port, env={"XDG_STATE_HOME": str(state)})
    try:
        assert expected.read_text().strip() != token
        assert _initialize(http, url, Authorization=f"Bearer {token}") == 401
    finally:
        process.stop()


def _kernel_beyond_loopback(host: str, workdir: Path) -> list[str]:
    return ["--lake", str(DEMO_LAKE), "--workdir", str(workdir), "--unsafe-no-sandbox", "--transport", "http",
            "--host", host, "--port", str(free_port())]


def test_the_kernel_process_refuses_to_listen_beyond_loopback_without_a_token(tmp_path: Path) -> None:
    environment = {k: v for k, v in os.environ.items() if k != TOKEN_ENV}
    proc = subprocess.run(
        [sys.executable, "-m", "lakeboard.servers.kernel", *_kernel_beyond_loopback("0.0.0.0", tmp_path / "w")],
        cwd=REPO, env=environment, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 2
    assert "needs a token" in proc.stderr and "--auth-token" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10", "lakeboard.example"])
def test_the_kernel_refuses_to_listen_beyond_loopback_without_a_token(
    host: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(TOKEN_ENV, raising=False)

    def served_anyway(*args: object, **kwargs: object) -> None:  # fail at once rather than serve in this process
        raise AssertionError(f"the kernel served on {host} without a token")

    monkeypatch.setattr(kernel_entry, "serve_http", served_anyway)
    mask = os.umask(0o022)  # main makes what it writes owner-only: this process's mask is put back after
    try:
        code = kernel_entry.main(_kernel_beyond_loopback(host, tmp_path / "w"))
    finally:
        os.umask(mask)
    said = capsys.readouterr().err
    assert code == 2, said
    assert "needs a token" in said and "--auth-token" in said and host in said


def test_a_token_or_loopback_lets_the_kernel_listen() -> None:
    assert HttpSettings(host="0.0.0.0", auth_token="secret").token_problem("kernel server") is None
    for host in ("127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"):
        assert HttpSettings(host=host).token_problem("kernel server") is None, host
    assert HttpSettings(host="0.0.0.0").token_problem("kernel server") is not None
