"""Tables far wider than a profile reads: a million columns, lines longer than the head, a few
thousand columns in a small file. Each gives a bounded profile of its first columns, a note that
says the rest were left out, and a loader that reads those same columns."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from lakeboard.servers.profiling import profile_file
from lakeboard.servers.profiling.column_stats import MAX_COLUMNS
from tests.servers.profiling.loading import run_loader


def test_a_million_columns_is_profiled_by_its_first_columns(tmp_path: Path) -> None:
    path = tmp_path / "wide.csv"
    n = 1_000_000
    with open(path, "w") as f:
        f.write(",".join(f"c{i}" for i in range(n)) + "\n")
        for r in range(2):
            f.write(",".join(str((i + r) % 10) for i in range(n)) + "\n")

    prof = profile_file(path, tmp_path)

    assert prof.status == "ok", prof.reason
    [table] = prof.tables
    assert [c.name for c in table.columns] == [f"c{i}" for i in range(MAX_COLUMNS)]
    assert table.n_rows == 2 and table.n_rows_exact
    assert any(f"first {MAX_COLUMNS:,} columns" in note for note in table.notes)
    assert table.options["usecols"] == list(range(MAX_COLUMNS))
    assert len(prof.model_dump_json()) < 1_000_000  # bounded, whatever the width


@pytest.mark.parametrize("seed", range(4))
def test_lines_wider_than_the_head_keep_the_same_columns_in_profile_and_loader(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    delim = rng.choice([",", "\t", ";", "|"])
    width = rng.randint(15_000, 30_000)
    names = [f"{rng.choice(['temp', 'rain', 'pm25'])}_{i}_{'x' * rng.randint(20, 60)}" for i in range(width)]
    if seed % 2:  # quoted names holding the delimiter
        names = [f'"{name}{delim}q"' if i % 7 == 0 else name for i, name in enumerate(names)]
    rows = rng.randint(1, 4)
    path = tmp_path / f"wide{seed}.csv"
    with open(path, "w") as f:
        f.write(delim.join(names) + "\n")
        for r in range(rows):
            f.write(delim.join(str(rng.randint(0, 99)) for _ in range(width)) + "\n")

    prof = profile_file(path, tmp_path)

    assert prof.status == "ok", prof.reason
    [table] = prof.tables
    assert 0 < len(table.columns) <= MAX_COLUMNS
    assert any("(widen usecols to read others)" in note for note in table.notes)
    assert table.n_rows == rows
    data = run_loader(prof)["data"]
    assert list(data.columns) == [c.name for c in table.columns] and len(data) == rows
    assert table.columns[0].name == names[0].strip('"')


def test_a_few_thousand_columns_in_a_small_file_are_capped_too(tmp_path: Path) -> None:
    width = 3 * MAX_COLUMNS
    path = tmp_path / "many.csv"
    path.write_text(",".join(f"v{i}" for i in range(width)) + "\n" + ",".join("1" for _ in range(width)) + "\n")

    prof = profile_file(path, tmp_path)

    [table] = prof.tables
    assert len(table.columns) == MAX_COLUMNS
    assert any(f"has {width:,} columns" in note for note in table.notes)
    data = run_loader(prof)["data"]
    assert data.shape == (1, MAX_COLUMNS)
