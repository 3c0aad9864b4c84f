"""Acceptance (issue 27, item 6): each labelled messy file's generated loader, run in a fresh
Python process, returns the table written down by hand from the raw file (columns, rows,
numeric columns, markers as missing). The labels and the comparison live in
`tests/support/labelled_tables.py`; `benchmarks/bench_loaders.py` prints the same check beside
`respond`'s loader and pandas defaults."""

from __future__ import annotations

from typing import Any

import pytest

from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.profiling import profile_file
from tests.support.labelled_tables import Case, job, load_cases, pandas_default_program, problems, run_programs

CASES = load_cases()
# pandas defaults on a sheet with a title and a source line: the check must reject what they load.
CONTROL = next(c for c in CASES if c.id == "demo:air_quality/annual_summary_2023.xlsx")


Loaded = tuple[dict[str, FileProfile], dict[str, dict[str, Any]]]


@pytest.fixture(scope="module")
def loaded() -> Loaded:
    """Every available case profiled, and all their loaders (and the control) run in one subprocess."""
    profiles = {c.id: profile_file(c.file, c.root) for c in CASES if c.available}
    jobs = [job(c.id, profiles[c.id].loader, c) for c in CASES if c.id in profiles]
    jobs.append(job("control", pandas_default_program(CONTROL), CONTROL))
    return profiles, run_programs(jobs, limit_s=60, timeout_s=240)


def test_labels_are_well_formed() -> None:
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)) >= 32
    for c in CASES:
        assert c.why and c.columns, c.id
        assert set(c.numeric) <= set(c.columns) or c.n_columns, f"{c.id}: numeric names outside its columns"
        assert set(c.first) | set(c.last) <= set(c.columns) or c.n_columns, f"{c.id}: spot values outside its columns"


def test_the_check_rejects_pandas_defaults_on_a_titled_sheet(loaded: Loaded) -> None:
    found = problems(CONTROL, loaded[1]["control"])
    assert any(p.startswith("columns:") for p in found) and any(p.startswith("rows:") for p in found), found


@pytest.mark.timeout(300)
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_loader_returns_the_labelled_table(case: Case, loaded: Loaded) -> None:
    if not case.available:
        pytest.skip(f"lake {case.lake} not found at {case.root}")
    profiles, results = loaded
    found = problems(case, results[case.id])
    assert not found, f"{case.id} ({case.why}):\n  " + "\n  ".join(found) + f"\nloader:\n{profiles[case.id].loader}"
