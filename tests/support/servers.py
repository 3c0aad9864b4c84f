"""Start the toy helper (tests/support/toy_helper.py) as stdio entries or HTTP processes."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lakeboard.host.servers_config import parse_entry

REPO = Path(__file__).resolve().parents[2]
TOY_MODULE = "tests.support.toy_helper"
QUIET_ENV = {"FASTMCP_LOG_LEVEL": "WARNING"}


def toy_command(name: str, *flags: str) -> list[str]:
    return [sys.executable, "-m", TOY_MODULE, "--name", name, *flags]


def toy_entry(name: str, *flags: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """An mcpServers stdio entry that starts the toy helper.

    Its folder is on PYTHONPATH: the host never lets a server import from its working folder.
    """
    command, *args = toy_command(name, *flags)
    return {"command": command, "args": args, "cwd": str(REPO),
            "env": {**QUIET_ENV, "PYTHONPATH": str(REPO), **(env or {})}}


def entries(**raw: dict) -> dict:
    """Parsed pool entries from raw `mcpServers` values, keyed by server name."""
    return {name: parse_entry(name, value) for name, value in raw.items()}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(
    port: int, process: subprocess.Popen[bytes], timeout_s: float = 30.0, *, label: str = "toy HTTP server"
) -> None:
    """Return once `process` listens on 127.0.0.1:`port`; fail fast if it exits first."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if (code := process.poll()) is not None:
            raise RuntimeError(f"{label} exited with code {code} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"{label} did not listen on port {port} within {timeout_s}s")


@contextlib.contextmanager
def http_toy(name: str, *flags: str, port: int | None = None) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Run the toy helper over streamable HTTP on 127.0.0.1; yields (url, process)."""
    with http_toys([name, *flags], port=port) as ((url, process),):
        yield url, process


@contextlib.contextmanager
def http_toys(*helpers: list[str], port: int | None = None) -> Iterator[list[tuple[str, subprocess.Popen[bytes]]]]:
    """Several toy helpers over streamable HTTP, started side by side; yields (url, process) for each.

    Each of `helpers` is [name, *flags]; `port` is only for a single helper.
    """
    assert port is None or len(helpers) == 1
    started: list[tuple[int, subprocess.Popen[bytes]]] = []
    try:
        for name, *flags in helpers:
            chosen = port or free_port()
            started.append((chosen, subprocess.Popen(
                toy_command(name, "--transport", "http", "--port", str(chosen), *flags),
                cwd=REPO,
                env={**os.environ, **QUIET_ENV},
            )))
        for chosen, process in started:
            wait_for_port(chosen, process)
        yield [(f"http://127.0.0.1:{chosen}/mcp", process) for chosen, process in started]
    finally:
        for _, process in started:
            if process.poll() is None:
                process.terminate()
        for _, process in started:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextlib.contextmanager
def kernel_over_http(lake: Path, workdir: Path, token: str, env: dict[str, str], *flags: str) -> Iterator[str]:
    """`python -m lakeboard.servers.kernel --transport http --auth-token TOKEN ...` on a free port; yields its URL."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "lakeboard.servers.kernel", "--lake", str(lake), "--workdir", str(workdir),
         "--transport", "http", "--port", str(port), "--auth-token", token, *flags],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process, timeout_s=60, label="kernel server over HTTP")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(30)


def python_spellings(tmp_path: Path) -> Path:
    """A folder where `python` and `python3` name this interpreter, to put first on PATH.

    Outside a virtualenv, links to it in `tmp_path`. Inside one, the virtualenv's own `bin`:
    a link elsewhere would start the base interpreter without the virtualenv's packages (a
    different Python, which is rightly not forked).
    """
    if sys.prefix != sys.base_prefix:
        folder = Path(sys.executable).parent
        assert all((folder / name).exists() for name in ("python", "python3")), folder
        return folder
    folder = tmp_path / "bin"
    folder.mkdir()
    for spelling in ("python", "python3"):
        (folder / spelling).symlink_to(sys.executable)
    return folder
