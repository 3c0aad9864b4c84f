"""`lakeboard loader LAKE PATH [--json]` run for real on the demo lake: the file's loader and its check, as a
program that runs and as the typed `Loader`; an unknown path named with the closest files; a path that
leaves the lake refused before anything is read."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lakeboard.common.loaded_tables import expected_shapes
from lakeboard.common.loader_reports import check_line
from lakeboard.schemas.clusters import ClusterConfig
from lakeboard.schemas.messages import Loader
from lakeboard.servers.file_agent.file_loader import lake_file_profile
from tests.conftest import DEMO_LAKE, REPO

pytestmark = pytest.mark.timeout(300)

POPULATION = "districts/population_2024.csv"
READINGS = "air_quality/sensors/readings_2024-03.csv"  # a member of the monthly readings' family


def lakeboard(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k == "LAKEBOARD_HOME" or not k.startswith(("LAKEBOARD_", "OPENAI_"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "lakeboard.host.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=240)


def _config(config_dir: Path) -> ClusterConfig:
    return ClusterConfig.model_validate_json((config_dir / "clusters.json").read_text())


def test_the_text_is_the_check_line_then_a_program_that_loads_the_file(demo_config: Path, tmp_path: Path) -> None:
    done = lakeboard("loader", str(DEMO_LAKE), POPULATION, "--configs", str(demo_config.parent), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    profile = lake_file_profile(_config(demo_config), POPULATION)
    first, program = done.stdout.split("\n", 1)
    assert first == f"# loader check: {check_line(profile.loader_check)}"
    assert "def load_districts_population_2024_csv(path):" in program
    # The output runs as is and binds the file's data, as the profile describes it, to `data`.
    ran = subprocess.run([sys.executable, "-c", done.stdout + "\nprint(list(data.columns), len(data))"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    (table,) = profile.tables
    assert ran.stdout.strip() == f"{[c.name for c in table.columns]} {table.n_rows}"


def test_json_is_the_typed_loader_with_its_family_check_and_expected_tables(demo_config: Path,
                                                                            tmp_path: Path) -> None:
    done = lakeboard("loader", str(demo_config), READINGS, "--json", cwd=tmp_path)  # a config folder this time
    assert done.returncode == 0, done.stderr
    loader = Loader.model_validate_json(done.stdout)
    config = _config(demo_config)
    profile = lake_file_profile(config, READINGS)
    assert loader.paths == [READINGS] and "read_csv" in loader.source
    assert loader.family is not None
    family = next(f for f in config.families if f.key == loader.family)
    assert READINGS in [m.path for m in family.members]
    assert loader.check is not None and loader.check == profile.loader_check  # the index ran it
    assert loader.expects == expected_shapes(profile)
    assert loader.expects[0].columns == [c.name for c in profile.tables[0].columns]


def test_an_unknown_path_is_named_with_the_closest_files(demo_config: Path, tmp_path: Path) -> None:
    done = lakeboard("loader", str(demo_config), "districts/populaton_2024.csv", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert "'districts/populaton_2024.csv' is not a file of the lake 'demo'" in done.stderr
    assert f"the closest: {POPULATION}" in done.stderr
    # A bare file name finds the file by its name alone.
    done = lakeboard("loader", str(demo_config), "population_2024.csv", cwd=tmp_path)
    assert done.returncode == 2 and POPULATION in done.stderr


@pytest.mark.parametrize("path, why", [
    ("../demo/" + POPULATION, "leads out of the lake through '..'"),
    ("districts/../../demo/" + POPULATION, "leads out of the lake through '..'"),
    ("/etc/passwd", "is an absolute path"),
    (str(DEMO_LAKE / POPULATION), "is an absolute path"),
])
def test_a_path_that_leaves_the_lake_is_refused_before_the_lake_is_read(path: str, why: str, tmp_path: Path) -> None:
    never_indexed = tmp_path / "not-a-lake"  # refused first: had the lake been read, this would fail otherwise
    done = lakeboard("loader", str(never_indexed), path, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert why in done.stderr and "relative to the lake folder" in done.stderr
