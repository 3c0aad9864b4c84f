"""VOTable documents (astronomical query results): tables named by their FIELDs, read with astropy."""

from __future__ import annotations

from pathlib import Path

from tests.servers.profiling.loading import profile_and_load


def _table(name: str, n: int) -> str:
    rows = "".join(f"<TR><TD>{i}</TD><TD>{10 + i * 0.5}</TD><TD>{-20 + i}</TD></TR>" for i in range(n))
    return (f'<TABLE name="{name}"><DESCRIPTION>Stars of {name}</DESCRIPTION>'
            '<FIELD name="source_id" datatype="long"/><FIELD name="ra" datatype="double" unit="deg"/>'
            '<FIELD name="dec" datatype="double" unit="deg" ucd="pos.eq.dec"/>'
            f"<DATA><TABLEDATA>{rows}</TABLEDATA></DATA></TABLE>")


def _document(*tables: str) -> str:
    return ('<?xml version="1.0"?>\n<VOTABLE version="1.4" xmlns="http://www.ivoa.net/xml/VOTable/v1.3">'
            f'<RESOURCE type="results">{"".join(tables)}</RESOURCE></VOTABLE>\n')


def test_a_votable_is_a_table_named_by_its_fields_whatever_its_extension(tmp_path: Path) -> None:
    """Its <TABLE>, <TR> and <TD> made it an HTML page without tables."""
    for name in ("cluster.vot", "cluster_result.xml"):
        f = tmp_path / name
        f.write_text(_document(_table("cluster", 25)))
        prof, ns = profile_and_load(f)
        t = prof.tables[0]
        assert prof.format == "votable" and [c.name for c in t.columns] == ["source_id", "ra", "dec"]
        assert t.n_rows == 25 and "units: ra deg, dec deg" in t.notes and t.title == "Stars of cluster"
        assert ns["data"].shape == (25, 3) and ns["data"]["dec"].iloc[2] == -18
        assert prof.loader_check.verified, prof.loader_check


def test_each_table_of_a_votable_and_a_damaged_one(tmp_path: Path) -> None:
    f = tmp_path / "two.vot"
    f.write_text(_document(_table("near", 5), _table("far", 8)))
    prof, ns = profile_and_load(f)
    assert [t.name for t in prof.tables] == ["near", "far"]
    assert ns["data"]["far"].shape == (8, 3) and prof.loader_check.verified
    bad = tmp_path / "bad.vot"
    bad.write_text(_document(_table("cut", 5))[:300])
    prof, _ = profile_and_load(bad)
    assert prof.status == "unreadable" and prof.reason.startswith("not a readable VOTable")
