"""Lake data never becomes code (issue 17 item 1), end to end through the `lakeboard` command.

A header cell or a file name that ends a comment or a literal used to run as code: in the
kernel during `ask`, and on the host when a user ran the code `discover` returned or the
saved `program.py`.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from tests.e2e.conftest import _allow_unsandboxed_kernel, _sandbox_problem
from tests.support.cli import cli_env, lakeboard_main
from tests.support.hostile_names import MARKER, file_name, hostile_names
from tests.support.programs import ProgramRun, run_each

REPRODUCTION = "pm25\n__import__('os').system('id') #"
ISSUE, GENERATED = "issue", "generated"  # the lake's two folders, so the names of its two partitions


def write_lake(root: Path, tables: dict[str, list[str]]) -> Path:
    """A lake of CSV files (path in the lake -> header), each with 20 daily rows."""
    lake = root / "lake"
    for rel, header in tables.items():
        (lake / rel).parent.mkdir(parents=True, exist_ok=True)
        with open(lake / rel, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(header)
            writer.writerows([f"2024-01-{day:02d}", day] for day in range(1, 21))
    return lake


def hostile_tables() -> dict[str, list[str]]:
    """The issue's CSV in a folder of its own (so the file agent of its partition answers for it alone),
    and CSVs whose names and header cells are generated hostile names."""
    tables = {f"{ISSUE}/air.csv": ["date", REPRODUCTION]}
    for i, name in enumerate(hostile_names(8, seed=41)):
        tables[f"{GENERATED}/" + file_name(f"air pm25 {i} {name}", ".csv")] = ["date", f"pm25 {name}"]
    return tables


def run_python(args: list[str], folder: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], input=stdin, cwd=folder, capture_output=True, text=True,
                          timeout=120)


_COUNT = "sum(len(d) for d in datasets.values()) if 'datasets' in globals() else len(data)"


@dataclass(frozen=True)
class CodeRun:
    response: dict  # one response of `discover --json`
    ran: ProgramRun  # its code, run as a user would run it


def run_discovered_code(done: subprocess.CompletedProcess[str], root: Path) -> list[CodeRun]:
    """The code of every response in a `discover --json` run, each run in a fresh folder, then the rows it loaded
    printed (one process runs them all)."""
    assert done.returncode == 0, done.stderr[-3000:]
    responses = [r for r in json.loads(done.stdout)["responses"] if r.get("code")]
    scratch = root / "scratch"
    scratch.mkdir()
    runs = run_each([f"{r['code']}\nprint('rows', {_COUNT})" for r in responses], scratch)
    assert sorted(scratch.iterdir()) == sorted(scratch / str(i) for i in range(len(responses)))
    return [CodeRun(response, ran) for response, ran in zip(responses, runs)]


def files_loaded_by(runs: list[CodeRun], agent: str) -> list[str]:
    """The files the loaders of file agent `agent`'s responses load, once each ran without running a payload
    and loaded 20 rows from each of its files."""
    mine = [run for run in runs if run.response["agent_name"] == agent]
    assert mine, f"no code from the file agent {agent!r}: {[run.response['agent_name'] for run in runs]}"
    for run in mine:
        assert "uid=" not in run.ran.stdout, run.ran.stdout  # `id` did not run
        rows = 20 * sum(len(x["paths"]) for x in run.response["loaders"])
        assert run.ran.stdout.split()[:2] == ["rows", str(rows)], run.ran.stdout[-3000:]
        assert run.ran.left == [], run.ran.left  # no payload ran
    return [path for run in mine for x in run.response["loaders"] for path in x["paths"]]


@dataclass(frozen=True)
class HostileLake:
    root: Path
    tables: dict[str, list[str]]
    discovered: subprocess.CompletedProcess[str]  # `lakeboard discover LAKE REQUEST --json`, run once
    config_dir: Path  # the index `lakeboard index` made in the home, which that run and `ask` read


@pytest.fixture(scope="module")
def hostile_lake(tmp_path_factory) -> HostileLake:
    """The hostile lake, indexed by `lakeboard index` into Lakeboard's home, then one `discover` on its folder as
    a user runs them; its tests only read it. The commands' main() runs in this process, in the lake's parent
    folder (where what a payload would write is looked for); the indexer and the helpers they start are processes
    of their own, as in the commands. The indexer profiles in its own process (--workers 0): profiling workers
    for 9 files cost more than they save, and the indexer reads the same hostile names either way."""
    root = tmp_path_factory.mktemp("hostile")
    tables = hostile_tables()
    lake = write_lake(root, tables)
    env = cli_env(root)
    indexed = lakeboard_main(None, "index", str(lake), "--workers", "0", "--quiet", cwd=root, env=env)
    assert indexed.returncode == 0, "index failed: its stderr is in the captured output above"
    done = lakeboard_main(None, "discover", str(lake), "daily air pm25 values by date", "--json", cwd=root, env=env)
    assert done.returncode == 0, "discover failed: its stderr is in the captured output above"
    config_dir = root / "home" / "configs" / "lake"
    if _sandbox_problem() is not None:
        _allow_unsandboxed_kernel(config_dir)
    return HostileLake(root, tables, done, config_dir)


@pytest.fixture(scope="module")
def discovered_code(hostile_lake, tmp_path_factory) -> list[CodeRun]:
    """The code of every response of the module's `discover` run, each run as a user would run it."""
    return run_discovered_code(hostile_lake.discovered, tmp_path_factory.mktemp("discovered"))


def test_the_issues_header_cell_does_not_run(discovered_code):
    assert files_loaded_by(discovered_code, ISSUE) == [f"{ISSUE}/air.csv"]


def test_generated_hostile_names_do_not_run(hostile_lake, discovered_code):
    loaded = files_loaded_by(discovered_code, GENERATED)
    assert set(loaded) <= {path for path in hostile_lake.tables if path.startswith(f"{GENERATED}/")}


def test_the_program_and_notebook_of_ask_run_nothing_else(hostile_lake, tmp_path, capfd):
    tables = hostile_lake.tables
    notebook = tmp_path / "session.ipynb"
    # `ask`'s main() in this process (its servers and kernel are processes of their own): what it prints, and
    # whatever a payload would print or write here, is captured as from the command's own process
    done = lakeboard_main(capfd, "ask", str(hostile_lake.config_dir), "daily air pm25 values by date", "--notebook",
                          str(notebook), cwd=tmp_path, env=cli_env(tmp_path))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Loaded (the program ran in the kernel):" in done.stdout, done.stdout[-3000:]
    program = Path(done.stdout.split("Program:")[1].split()[0])

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    ran = run_python([str(program)], scratch)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert "uid=" not in ran.stdout
    loaded = json.loads(ran.stdout.strip().splitlines()[-1])
    assert loaded["data_sources"] and set(loaded["data_sources"]) <= set(tables)
    for label, dataset in loaded["datasets"].items():
        if label in tables:
            assert dataset["columns"] == tables[label] and dataset["rows"] == 20
        else:  # a family, stacked
            assert dataset["rows"] % 20 == 0 and dataset["rows"] > 20
    cells = nbformat.read(notebook, as_version=4).cells
    for cell in cells:
        if cell.cell_type == "code":
            compile(cell.source, "cell", "exec")
            assert all("uid=" not in str(output) for output in cell.outputs)
    assert list(scratch.iterdir()) == []  # no payload ran here
    for folder in (tmp_path, hostile_lake.root):  # nor in the kernel, whose workdir is beside the index
        assert not list(folder.rglob(MARKER)), folder
