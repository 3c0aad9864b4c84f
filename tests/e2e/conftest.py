"""End-to-end fixtures: the demo lake indexed once, its real servers, a scripted model on 127.0.0.1.

The lake's index is the session's (tests/conftest.py's demo_config, which the host tests use too: one
indexing of the demo lake per session, not two); tests/e2e/test_gateway.py copies it to where `lakeboard
index` writes it and serves it as a client's pasted entry does (`lakeboard index` itself runs in test_cli.py). The kernel runs in its bubblewrap sandbox, or with
`--unsafe-no-sandbox` only where bubblewrap cannot run here (then on an index of the e2e tests' own,
by the indexer's command, so that the host tests' kernels stay as they are).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lakeboard.host.lakes import Lake
from lakeboard.host.servers_config import ServersConfig, StdioServerEntry, load_servers
from tests.e2e.scenarios import DEMO_LAKE, REPO


@pytest.fixture(scope="session")
def demo_index(request: pytest.FixtureRequest, tmp_path_factory) -> Path:
    """lakes/demo indexed; returns the config folder. Where bubblewrap runs, the session's index; else
    one of its own, by the indexer's command (profiled in the indexer's process: workers for 20
    files cost more than they save), whose kernel entry then runs unconfined."""
    if _sandbox_problem() is None:
        return request.getfixturevalue("demo_config")
    out = tmp_path_factory.mktemp("e2e-configs")
    done = subprocess.run(
        [sys.executable, "-m", "lakeboard.servers.indexing", str(DEMO_LAKE), "--out", str(out), "--name", "demo", "--quiet",
         "--workers", "0"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    config_dir = out / "demo"
    _allow_unsandboxed_kernel(config_dir)
    return config_dir


@pytest.fixture(scope="session")
def demo_lake(demo_index) -> Lake:
    return Lake(demo_index, DEMO_LAKE)


def _sandbox_problem() -> str | None:
    from lakeboard.servers.kernel.sandbox import bwrap_problem

    return bwrap_problem()


def _allow_unsandboxed_kernel(config_dir: Path) -> None:
    """Where bubblewrap cannot run, start the kernel unconfined (its results say so)."""
    path = config_dir / "servers.json"
    data = json.loads(path.read_text())
    for entry in data["mcpServers"].values():
        if "lakeboard.servers.kernel" in entry.get("args", []):
            entry["args"].append("--unsafe-no-sandbox")
    path.write_text(json.dumps(data, indent=2))


def kernel_is_sandboxed(config: ServersConfig) -> bool:
    return not any(
        isinstance(e, StdioServerEntry) and "--unsafe-no-sandbox" in e.args for e in config.servers.values()
    )


def servers_of(lake: Lake) -> ServersConfig:
    return load_servers(lake.config_dir)


def agent_holding(config_dir: Path, path: str) -> str:
    """The name of the file agent whose partition holds `path` (names follow the partitioning)."""
    import json

    clusters = json.loads((config_dir / "clusters.json").read_text())
    return next(f"{clusters['name']}-{c['name']}" for c in clusters["clusters"] if path in c["files"])


@pytest.fixture(scope="module")
def model():
    """A scripted OpenAI-compatible model on 127.0.0.1, one per test module."""
    from tests.support.scripted_llm import ScriptedLLM

    with ScriptedLLM() as server:
        yield server
