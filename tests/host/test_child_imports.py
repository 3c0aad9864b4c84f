"""No process Lakeboard starts imports from the current folder or the lake (issue 24, item 1).

A lake (and the folder `lakeboard` is run from) holds modules named like the standard
library's, Lakeboard's own packages and its dependencies; each leaves a marker when
imported. The indexer, the fork server, the helpers forked from it or started on their own,
and every entry written into servers.json must import none of them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lakeboard.common.child_processes import module_run
from tests.support.hostile_modules import imported, plant_modules

pytestmark = pytest.mark.timeout(240)


def lakeboard(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The `lakeboard` command as installed: its script's folder, not the current one, is on its path."""
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    environment.update({"FASTMCP_LOG_LEVEL": "WARNING", **(env or {})})
    return subprocess.run([sys.executable, "-P", "-m", "lakeboard.host.cli", *args], cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=180)


@pytest.fixture(scope="module")
def hostile_lake(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the lake, the markers folder): a small lake of tables, full of planted modules."""
    root = tmp_path_factory.mktemp("hostile")
    lake, markers = root / "lake", root / "markers"
    (lake / "sales").mkdir(parents=True)
    markers.mkdir()
    for year in (2022, 2023, 2024):
        rows = "".join(f"{year}-{m:02d},{m * 100 + year % 7}\n" for m in range(1, 13))
        (lake / "sales" / f"monthly_sales_{year}.csv").write_text("month,sales\n" + rows)
    plant_modules(lake, markers, seed=24)
    plant_modules(lake / "sales", markers, seed=25, extra=5)
    return lake, markers


@pytest.fixture(scope="module")
def indexed_from_inside(hostile_lake: tuple[Path, Path]) -> tuple[subprocess.CompletedProcess[str], list[str], list[str], Path]:
    """`lakeboard index .` run inside the hostile lake, once for the module: (the run, the modules it
    imported, its unsafe entries, the config folder). The discover tests start from its config."""
    lake, markers = hostile_lake
    out = lake.parent / "configs"
    done = lakeboard("index", ".", "--out", str(out), "--name", "hostile", "--workers", "1", cwd=lake)
    config = out / "hostile"
    return done, imported(markers), unsafe_entries(config) if done.returncode == 0 else [], config


def unsafe_entries(config_dir: Path) -> list[str]:
    servers = json.loads((config_dir / "servers.json").read_text())["mcpServers"]
    return [name for name, e in servers.items() if (run := module_run(e["command"], e["args"])) is None or not run.safe]


def test_index_from_inside_the_lake_imports_nothing_of_it_and_writes_safe_entries(indexed_from_inside) -> None:
    done, imports, unsafe, _ = indexed_from_inside
    assert done.returncode == 0, done.stderr[-3000:]
    assert imports == []
    assert unsafe == []


@pytest.mark.parametrize("forking", ["1", "0"])
def test_discover_from_the_lake_folder_imports_nothing_of_it(hostile_lake, indexed_from_inside, forking: str) -> None:
    lake, markers = hostile_lake
    indexed, _, _, config = indexed_from_inside
    assert indexed.returncode == 0, indexed.stderr[-3000:]
    for marker in markers.iterdir():  # what the index imported is the test above's failure, not this one's
        marker.unlink()
    # As written by a Lakeboard before -P: the host adds the safety as it starts each entry.
    servers_file = (config / "servers.json").resolve()
    data = json.loads(servers_file.read_text())
    for entry in data["mcpServers"].values():
        entry["args"] = [a for a in entry["args"] if a != "-P"]
    servers_file.write_text(json.dumps(data))
    assert unsafe_entries(config)  # the premise: entries without the flag

    done = lakeboard("discover", str(config), "monthly sales per year", "--json", cwd=lake,
                     env={"LAKEBOARD_FORK_SERVERS": forking})
    assert imported(markers) == []
    assert done.returncode == 0, done.stderr[-3000:]
    assert any(r["files"] for r in json.loads(done.stdout)["responses"])  # the helpers did run
