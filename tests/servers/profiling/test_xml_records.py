"""XML files of repeated records are tables; other XML is a document; entities are never resolved."""

from __future__ import annotations

from pathlib import Path

from tests.servers.profiling.loading import profile_and_load


def test_repeated_records_are_a_table_of_their_attributes_and_text_children(tmp_path: Path) -> None:
    f = tmp_path / "stations.xml"
    f.write_text("<?xml version='1.0'?>\n<network xmlns='urn:example:stations'>\n  <source>survey 2024</source>\n"
                 + "".join(f"  <station id='{i}'><name>S{i}</name><elev>{100 + i * 2.5}</elev>"
                           f"<location><lat>6{i}.1</lat></location></station>\n" for i in range(25))
                 + "</network>\n")
    prof, ns = profile_and_load(f)
    t = prof.tables[0]
    assert prof.status == "ok" and prof.kind == "table" and prof.format == "xml", prof.reason
    assert t.name == "station" and t.n_rows == 25 and [c.name for c in t.columns] == ["id", "name", "elev"]
    assert prof.loader_check.verified, prof.loader_check
    df = ns["data"]
    assert df.shape == (25, 3) and df["elev"].iloc[2] == 105.0 and df["name"].iloc[-1] == "S24"


def test_xml_without_records_is_a_document(tmp_path: Path) -> None:
    f = tmp_path / "note.xml"
    f.write_text("<?xml version='1.0'?>\n<article><title>On rain</title><p>It rained.</p></article>\n")
    prof, ns = profile_and_load(f)
    assert prof.kind == "document" and "On rain" in prof.text and "On rain" in ns["data"]


def test_external_entities_are_never_resolved(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-VALUE")
    f = tmp_path / "rows.xml"
    f.write_text(f"<?xml version='1.0'?>\n<!DOCTYPE r [<!ENTITY x SYSTEM '{secret.as_uri()}'>]>\n<r>"
                 + "".join(f"<row a='{i}' b='{i * 2}'><c>&x;</c></row>" for i in range(4)) + "</r>\n")
    prof, ns = profile_and_load(f)
    assert prof.kind == "table" and ns["data"].shape == (4, 2), prof.summary
    assert "TOP-SECRET-VALUE" not in prof.model_dump_json() and "TOP-SECRET-VALUE" not in ns["data"].to_csv()


def test_malformed_xml_is_read_as_text_and_says_so(tmp_path: Path) -> None:
    f = tmp_path / "cut.xml"
    f.write_text("<?xml version='1.0'?>\n<r><row a='1'><b>2</b></row><row a='2'><b>3</b>\n")
    prof, _ = profile_and_load(f)
    assert prof.kind == "document" and "not well-formed XML" in prof.summary


def test_xml_under_another_name_is_read_by_its_content(tmp_path: Path) -> None:
    f = tmp_path / "export.txt"
    f.write_text("<?xml version='1.0'?>\n<r>" + "".join(f"<row a='{i}' c='x'/>" for i in range(5)) + "</r>")
    prof, ns = profile_and_load(f)
    assert prof.format == "xml" and "named .txt" in prof.attributes["note"] and ns["data"].shape == (5, 2)


def test_compressed_xml_is_read_as_xml(tmp_path: Path) -> None:
    import gzip

    f = tmp_path / "stations.xml.gz"
    f.write_bytes(gzip.compress(("<?xml version='1.0'?>\n<r>" + "".join(f"<row a='{i}' b='x{i}'/>" for i in range(6))
                                 + "</r>").encode()))
    prof, ns = profile_and_load(f)
    assert prof.format == "xml" and prof.tables[0].n_rows == 6 and prof.loader_check.verified, prof.summary
    assert ns["data"].shape == (6, 2) and ns["data"]["a"].sum() == 15


def test_records_grouped_under_elements_carry_the_group_s_attributes(tmp_path: Path) -> None:
    """A historian's export: samples under each tag, whose name and units tell the series apart."""
    f = tmp_path / "export.xml"
    parts = ['<?xml version="1.0"?>', '<Export server="H1">']
    for tag, units in (("CL2", "mg/L"), ("TURB", "NTU")):
        parts.append(f'<Tag name="{tag}" units="{units}">')
        parts += [f'<Sample ts="2024-01-31T00:{i:02d}" value="{i / 10}"/>' for i in range(30)]
        parts.append("</Tag>")
    parts.append("</Export>")
    f.write_text("\n".join(parts))
    prof, ns = profile_and_load(f)
    assert [c.name for c in prof.tables[0].columns] == ["ts", "value", "Tag.name", "Tag.units"]
    df = ns["data"]
    assert df.groupby("Tag.units")["value"].count().to_dict() == {"NTU": 30, "mg/L": 30}
    assert "server" not in " ".join(df.columns)  # the root's attributes are the file's, not a group's
    assert prof.loader_check.verified


def test_records_under_elements_of_several_names_carry_none_of_their_attributes(tmp_path: Path) -> None:
    """<tag k v> under nodes and ways (as OpenStreetMap writes them, here under another root), whose
    attributes differ; a group seen only past the profiled records would give the loader columns
    the profile lacks."""
    f = tmp_path / "map.xml"
    parts = ['<?xml version="1.0"?>', '<export version="0.6">']
    parts += [f'<node id="{i}" lat="45.{i}" lon="-122.{i}"><tag k="amenity" v="cafe{i}"/></node>' for i in range(20)]
    parts += [f'<way id="{100 + i}"><nd ref="{i}"/><tag k="highway" v="residential"/></way>' for i in range(10)]
    parts.append("</export>")
    f.write_text("\n".join(parts))
    prof, ns = profile_and_load(f)
    assert [c.name for c in prof.tables[0].columns] == ["k", "v"] and len(ns["data"]) == 30
    assert prof.loader_check.verified
