"""Lakeboard installs under one import root, `lakeboard`, from an editable install and from a wheel.

The wheel test builds the wheel, installs it into a fresh virtualenv (which borrows this
environment's third-party packages, so nothing is downloaded), and from a folder outside the
repository runs the CLI, every server entry that `lakeboard index` writes, and the gateway.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import anyio
import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

REPO = Path(__file__).resolve().parents[1]
ROOTS = ("common", "host", "schemas", "servers")


def test_every_package_folder_is_installed_under_the_lakeboard_root() -> None:
    settings = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {"lakeboard." + ".".join(init.parent.relative_to(REPO).parts)
               for root in ROOTS for init in (REPO / root).rglob("__init__.py")}
    assert set(settings["packages"]) == folders
    assert settings["package-dir"] == {f"lakeboard.{root}": root for root in ROOTS}


def test_no_generic_top_level_package_is_importable_from_outside_the_repository(tmp_path: Path) -> None:
    code = ("import importlib.util, lakeboard.servers.file_agent as m; "
            "print(m.__file__); print([n for n in ('common', 'host', 'schemas', 'servers') if importlib.util.find_spec(n)])")
    done = subprocess.run([sys.executable, "-P", "-c", code], cwd=tmp_path, capture_output=True, text=True,
                          env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, timeout=60)
    assert done.returncode == 0, done.stderr
    where, leaked = done.stdout.splitlines()
    assert Path(where).is_relative_to(REPO / "servers") and leaked == "[]"


@pytest.fixture(scope="module")
def wheel_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh virtualenv with Lakeboard's wheel installed (its dependencies borrowed)."""
    out = tmp_path_factory.mktemp("wheel")
    source = out / "source"  # a copy, so the build leaves nothing in the repository
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, source / name)
    for root in ROOTS:
        shutil.copytree(REPO / root, source / root, ignore=shutil.ignore_patterns("__pycache__"))
    # The build backend pyproject.toml names, called through its PEP 517 hook as pip would call it
    # (without pip's own start and source copy: this environment already has the backend).
    backend = tomllib.loads((REPO / "pyproject.toml").read_text())["build-system"]["build-backend"]
    build = subprocess.run([sys.executable, "-c", f"import sys, {backend} as b; print(b.build_wheel(sys.argv[1]))", str(out)],
                           cwd=source, capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr[-3000:]
    wheel = out / build.stdout.splitlines()[-1]
    assert wheel.name.startswith("lakeboard-") and wheel.suffix == ".whl", build.stdout[-2000:]
    env_dir = out / "venv"
    venv.create(env_dir, system_site_packages=True, with_pip=False)
    python = env_dir / "bin" / "python"
    # pip run by the virtualenv's own python (pip itself borrowed): one pip start, not pip's `--python` restart
    install = subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "-q", str(wheel)],
                             capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stderr
    return python


def _wheel_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and (k == "LAKEBOARD_HOME" or not k.startswith(("LAKEBOARD_", "OPENAI_")))}
    return {**env, "HF_HUB_OFFLINE": "1", "FASTMCP_LOG_LEVEL": "WARNING"}


# A lake of one folder and a documents folder, copied from the demo lake: this test is about the wheel
# running, not about how many files it profiles (that every module is in the wheel: the first test).
SMALL_LAKE = ("transit/ridership_2024.parquet", "transit/routes.json", "docs/ridership_counting_methods.md")


@pytest.mark.slow
async def test_a_wheel_runs_the_cli_every_server_it_writes_and_the_gateway(wheel_python: Path, tmp_path: Path) -> None:
    site = subprocess.run([str(wheel_python), "-P", "-c", "import lakeboard.host.cli as m; print(m.__file__)"],
                          cwd=tmp_path, capture_output=True, text=True, env=_wheel_env(), timeout=60)
    assert site.returncode == 0, site.stderr
    assert Path(site.stdout.strip()).is_relative_to(wheel_python.parents[1]), "the wheel's copy, not the repository's"

    lake = tmp_path / "lake"
    for name in SMALL_LAKE:
        (lake / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / "lakes" / "demo" / name, lake / name)
    # One cluster: the entries are then one of each kind the indexer writes (gateway, file agent, search
    # agent, kernel). One profiling worker: the wheel's worker still runs, without a second Python start.
    lakeboard = wheel_python.parent / "lakeboard"
    index = subprocess.run([str(lakeboard), "index", str(lake), "--out", str(tmp_path / "configs"),
                            "--name", "demo", "--clusters", "1", "--workers", "1"],
                           cwd=tmp_path, capture_output=True, text=True, env=_wheel_env(), timeout=600)
    assert index.returncode == 0, index.stderr
    entries = json.loads((tmp_path / "configs" / "demo" / "servers.json").read_text())["mcpServers"]
    assert entries and all(e["command"] == str(wheel_python) for e in entries.values())
    module_of = {name: e["args"][2] for name, e in entries.items()}
    assert set(module_of.values()) == {
        "lakeboard.host.gateway", "lakeboard.servers.file_agent", "lakeboard.servers.search_agent", "lakeboard.servers.kernel",
    }, entries

    tools_of: dict[str, set[str]] = {}

    async def list_tools(name: str, entry: dict) -> None:
        # no sandbox for the kernel: its own tests cover the sandbox
        args = [*entry["args"], "--unsafe-no-sandbox"] if entry["args"][2] == "lakeboard.servers.kernel" else entry["args"]
        transport = StdioTransport(entry["command"], args, env={**_wheel_env(), **entry.get("env", {})}, cwd=str(tmp_path))
        async with Client(transport, timeout=120) as client:
            tools_of[name] = {t.name for t in await client.list_tools()}

    discover: list[subprocess.CompletedProcess[bytes]] = []

    async def run_discover() -> None:
        # A request both helpers volunteer for: `discover` starts them itself (forked from the wheel's fork
        # server, where the client above runs each entry's command as written) and each answers it.
        discover.append(await anyio.run_process(
            [str(lakeboard), "discover", str(tmp_path / "configs" / "demo"), "how are daily bus boardings per route counted",
             "--json"], cwd=tmp_path, env=_wheel_env(), check=False))

    # The servers and `lakeboard discover` are independent processes: they start side by side.
    with anyio.fail_after(300):
        async with anyio.create_task_group() as tg:
            for name, entry in entries.items():
                tg.start_soon(list_tools, name, entry)
            tg.start_soon(run_discover)

    for name in entries:
        assert tools_of[name], f"{name} lists no tools"
        if module_of[name] == "lakeboard.host.gateway":
            assert {"request_help", "run_code", "list_partitions"} <= tools_of[name]
    assert discover[0].returncode == 0, discover[0].stderr.decode()
    found = json.loads(discover[0].stdout)
    assert found["files"], found
    # Each helper names itself in its response: the file agent by its partition, the search agent by its entry name.
    answered = {r["agent_name"] for r in found["responses"]}
    for name in (n for n, module in module_of.items() if module in ("lakeboard.servers.file_agent",
                                                                     "lakeboard.servers.search_agent")):
        agent = name if module_of[name] == "lakeboard.servers.search_agent" else entries[name]["args"][-1]
        assert agent in answered, f"{name} ({module_of[name]}) did not answer `lakeboard discover` (answers: {sorted(answered)})"
