"""IPAC ASCII tables via astropy: keywords and column descriptions as notes, nulls as NaN."""

from __future__ import annotations

from pathlib import Path

from lakeboard.servers.profiling import profile_file
from tests.servers.profiling.loading import profile_and_load

_IPAC = """\\fixlen = T
\\RowsRetrieved = 3
\\ COLUMN pl_name:   Planet Name
\\ COLUMN pl_orbper: Orbital Period [days]
\\
|     pl_name|  disc_year|   pl_orbper|
|        char|        int|      double|
|            |           |        days|
|        null|       null|        null|
    TOI-700 b        2020    37.42375
    GJ 1214 b        2009        null
   Kepler-1 b        null     2.47061
"""


def test_ipac_table_names_types_and_nulls(tmp_path: Path) -> None:
    f = tmp_path / "planets.tbl"
    f.write_text(_IPAC)
    prof, ns = profile_and_load(f)
    assert prof.format == "ipac" and prof.status == "ok" and prof.loader_check.verified
    t = prof.tables[0]
    assert t.n_rows == 3 and [c.name for c in t.columns] == ["pl_name", "disc_year", "pl_orbper"]
    assert any("Orbital Period [days]" in n for n in t.notes) and any("pl_orbper days" in n for n in t.notes)
    df = ns["data"]
    assert df["pl_name"].tolist() == ["TOI-700 b", "GJ 1214 b", "Kepler-1 b"]
    assert df["pl_orbper"].isna().tolist() == [False, True, False] and df["disc_year"].isna().sum() == 1


def test_ipac_under_another_name_and_a_pipe_delimited_table_is_not_one(tmp_path: Path) -> None:
    named_txt = tmp_path / "query_result.txt"
    named_txt.write_text(_IPAC)
    assert profile_file(named_txt, tmp_path).format == "ipac"
    piped = tmp_path / "browse.txt"  # rows between pipes too: a pipe-delimited table
    piped.write_text("|name  |ra     |\n" + "".join(f"|GRB{i:04d}|{i * 1.5:7.3f}|\n" for i in range(20)))
    assert profile_file(piped, tmp_path).format != "ipac"


def test_damaged_ipac_table_is_unreadable_with_a_reason(tmp_path: Path) -> None:
    f = tmp_path / "broken.tbl"
    f.write_text("\\fixlen = T\n|  a|  b|\n|int|int|\n  x  y\n")  # text under a column typed int
    prof = profile_file(f, tmp_path)
    assert prof.format == "ipac" and prof.status == "unreadable" and "IPAC" in prof.reason
