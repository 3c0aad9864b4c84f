"""Two-line element sets: one row per satellite, by the standard's columns."""

from __future__ import annotations

import zipfile
from datetime import datetime
from pathlib import Path

import pytest

from lakeboard.servers.profiling.orbital_elements import looks_like, read_tle
from lakeboard.servers.relevance.index_fields import field_tokens
from tests.servers.profiling.loading import profile_and_load

ISS = [
    "ISS (ZARYA)",
    "1 25544U 98067A   24001.50000000  .00016717  00000-0  10270-3 0  9005",
    "2 25544  51.6416 247.4627 0006703 130.5360 325.0288 15.72125391563537",
]
DEBRIS = [
    "1 49863U 21102D   24032.25000000 -.00000123  12345-5 -11606-4 0  9991",
    "2 49863  97.5012  10.0000 1234567  90.0000 270.0000 14.90000000 12345",
]


def test_element_sets_are_read_by_their_columns() -> None:
    iss, debris = read_tle(ISS + DEBRIS)
    assert iss["name"] == "ISS (ZARYA)" and debris["name"] is None
    assert iss["catalog_number"] == 25544 and iss["international_designator"] == "98067A"
    assert iss["epoch"] == datetime(2024, 1, 1, 12) and iss["inclination_deg"] == 51.6416
    assert iss["eccentricity"] == pytest.approx(0.0006703) and iss["bstar"] == pytest.approx(0.10270e-3)
    assert iss["mean_motion_rev_per_day"] == 15.72125391 and iss["revolution_number"] == 56353
    assert debris["mean_motion_ddot"] == pytest.approx(0.12345e-5) and debris["bstar"] == pytest.approx(-0.11606e-4)
    assert debris["mean_motion_dot"] == -0.00000123 and debris["eccentricity"] == pytest.approx(0.1234567)


def test_lines_that_only_start_like_element_sets_are_not_read_as_them() -> None:
    text = ["1 apple", "2 pears", "1 2 3", "notes", "2 25544 mismatched"] * 6
    assert not looks_like(text) and read_tle(text) == []
    assert not looks_like(ISS)  # one set is no catalog


def _catalog(n: int) -> str:
    lines = []
    for i in range(n):
        lines += [f"SAT {i}", ISS[1].replace("25544", f"{40000 + i}"), ISS[2].replace("25544", f"{40000 + i}")]
    return "\n".join(lines) + "\n"


def test_a_catalog_file_is_a_table_of_satellites_and_its_loader_reads_it(tmp_path: Path) -> None:
    f = tmp_path / "active.txt"
    f.write_text(_catalog(40))
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert prof.format == "tle" and prof.tables[0].n_rows == 40 and prof.loader_check.verified
    assert df.shape == (40, 16) and df["catalog_number"].tolist()[:2] == [40000, 40001]
    assert df["name"].tolist()[-1] == "SAT 39" and str(df["epoch"].dtype).startswith("datetime64")
    assert "two-line element sets (TLE): 40 satellites" in prof.summary
    assert {"orbit", "satellit"} <= set(field_tokens(prof)["titles"])  # a request for orbits finds it


def test_a_catalog_inside_a_zip_is_read_from_the_archive(tmp_path: Path) -> None:
    f = tmp_path / "catalogs.zip"
    with zipfile.ZipFile(f, "w") as z:
        z.writestr("tle/active.tle", _catalog(12))
    prof, ns = profile_and_load(f)
    assert prof.members[0].format == "tle"
    assert ns["data"]["tle/active.tle"].shape == (12, 16) and prof.loader_check.verified


def test_a_history_of_unnamed_element_sets_passes_its_loader_check(tmp_path: Path) -> None:
    """Two-line sets with no name line (a satellite's history): the empty name column was numbers
    in the profile and objects in the loader, and the check failed."""
    f = tmp_path / "history_25544.tle"
    f.write_text("\n".join(line for line in _catalog(6).splitlines() if line[:2] in ("1 ", "2 ")) + "\n")
    prof, ns = profile_and_load(f)
    assert prof.format == "tle" and ns["data"].shape == (6, 16) and prof.loader_check.verified, prof.loader_check
