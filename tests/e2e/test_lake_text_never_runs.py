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
from pathlib import Path

import nbformat

from tests.e2e.conftest import _allow_unsandboxed_kernel, _sandbox_problem
from tests.e2e.test_cli import cli_env, lakeboard
from tests.support.hostile_names import MARKER, file_name, hostile_names

REPRODUCTION = "pm25\n__import__('os').system('id') #"


def write_lake(root: Path, tables: dict[str, list[str]]) -> Path:
    """A lake of CSV files (file name -> header), each with 20 daily rows."""
    lake = root / "lake"
    lake.mkdir()
    for rel, header in tables.items():
        with open(lake / rel, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(header)
            writer.writerows([f"2024-01-{day:02d}", day] for day in range(1, 21))
    return lake


def hostile_tables() -> dict[str, list[str]]:
    """The issue's CSV, and CSVs whose names and header cells are generated hostile names."""
    tables = {"air.csv": ["date", REPRODUCTION]}
    for i, name in enumerate(hostile_names(8, seed=41)):
        tables[file_name(f"air pm25 {i} {name}", ".csv")] = ["date", f"pm25 {name}"]
    return tables


def run_python(args: list[str], folder: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], input=stdin, cwd=folder, capture_output=True, text=True,
                          timeout=120)


def run_discovered_code(lake: Path, request: str, root: Path) -> list[str]:
    """`lakeboard discover LAKE REQUEST --json`, then each returned code run in a fresh folder;
    the files the responses' loaders load."""
    scratch = root / "scratch"
    scratch.mkdir()
    done = lakeboard("discover", str(lake), request, "--json", cwd=root, env=cli_env(root))
    assert done.returncode == 0, done.stderr[-3000:]
    responses = [r for r in json.loads(done.stdout)["responses"] if r.get("code")]
    assert responses
    for response in responses:
        count = "sum(len(d) for d in datasets.values()) if 'datasets' in globals() else len(data)"
        ran = run_python(["-c", f"{response['code']}\nprint('rows', {count})"], scratch)
        assert ran.returncode == 0, ran.stderr[-3000:]
        assert "uid=" not in ran.stdout, ran.stdout  # `id` did not run
        assert ran.stdout.split()[:2] == ["rows", str(20 * sum(len(x["paths"]) for x in response["loaders"]))]
    assert list(scratch.iterdir()) == []  # no payload ran
    return [path for r in responses for x in r["loaders"] for path in x["paths"]]


def test_the_issues_header_cell_does_not_run(tmp_path):
    lake = write_lake(tmp_path, {"air.csv": ["date", REPRODUCTION]})
    assert run_discovered_code(lake, "daily air pm25 values by date", tmp_path) == ["air.csv"]


def test_generated_hostile_names_do_not_run(tmp_path):
    tables = hostile_tables()
    lake = write_lake(tmp_path, tables)
    assert set(run_discovered_code(lake, "daily air pm25 values by date", tmp_path)) <= set(tables)


def test_the_program_and_notebook_of_ask_run_nothing_else(tmp_path):
    tables = hostile_tables()
    lake = write_lake(tmp_path, tables)
    configs = tmp_path / "configs"
    index = run_python(["-m", "lakeboard.servers.indexing", str(lake), "--out", str(configs), "--name", "hostile", "--quiet"],
                       tmp_path)
    assert index.returncode == 0, index.stderr[-2000:]
    if _sandbox_problem() is not None:
        _allow_unsandboxed_kernel(configs / "hostile")
    notebook = tmp_path / "session.ipynb"
    done = lakeboard("ask", str(configs / "hostile"), "daily air pm25 values by date", "--notebook", str(notebook),
                     cwd=tmp_path, env=cli_env(tmp_path))
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
    assert list(scratch.iterdir()) == [] and not list(tmp_path.rglob(MARKER))  # no payload ran, here or in the kernel
