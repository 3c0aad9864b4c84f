"""Format detection: the extension, checked against the content."""

from __future__ import annotations

import gzip
import zipfile
from pathlib import Path

import numpy as np
import openpyxl
import pandas as pd

from lakeboard.servers.profiling.detect import detect
from lakeboard.servers.profiling.text_sample import detect_encoding, looks_binary


def _xlsx(path: Path) -> None:
    wb = openpyxl.Workbook()
    wb.active.append(["a", "b"])
    wb.active.append([1, 2])
    wb.save(path)


def test_content_wins_over_the_extension(tmp_path: Path) -> None:
    workbook = tmp_path / "book.csv"
    _xlsx(workbook)
    page = tmp_path / "page.csv"
    page.write_text("<!DOCTYPE html><html><body><table><tr><td>1</td></tr></table></body></html>")
    junk = tmp_path / "junk.csv"
    junk.write_bytes(b"\x00\x01\x02\xff" * 500)
    js = tmp_path / "data.txt"
    js.write_text('[{"a": 1}, {"a": 2}]')
    det = detect(workbook)
    assert (det.format, det.reader) == ("excel", "excel") and "Excel workbook" in det.note
    assert detect(page).format == "html" and "HTML" in detect(page).note
    assert detect(junk).format == "binary" and "binary" in detect(junk).note
    assert detect(js).format == "json"


def test_formats_by_extension_and_magic(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text("a,b\n1,2\n")
    (tmp_path / "t.tsv").write_text("a\tb\n1\t2\n")
    (tmp_path / "t.jsonl").write_text('{"a": 1}\n{"a": 2}\n')
    (tmp_path / "t.geojson").write_text('{"type": "FeatureCollection", "features": []}')
    (tmp_path / "g.json").write_text('{"type": "FeatureCollection", "features": []}')
    pd.DataFrame({"a": [1]}).to_parquet(tmp_path / "t.parquet")
    np.save(tmp_path / "t.npy", np.arange(3))
    np.savez(tmp_path / "t.npz", x=np.arange(3))
    (tmp_path / "t.md").write_text("# Title\n")
    (tmp_path / "t.py").write_text("print('hi')\n")
    (tmp_path / "t.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 30)
    (tmp_path / "t.pdf").write_bytes(b"%PDF-1.4\n")
    with zipfile.ZipFile(tmp_path / "t.zip", "w") as z:
        z.writestr("inner.csv", "a\n1\n")
    with gzip.open(tmp_path / "t.csv.gz", "wt") as g:
        g.write("a,b\n1,2\n")
    expected = {
        "t.csv": ("csv", "delimited"),
        "t.tsv": ("tsv", "delimited"),
        "t.jsonl": ("jsonl", "json_files"),
        "t.geojson": ("geo", "geo"),
        "g.json": ("geo", "geo"),
        "t.parquet": ("parquet", "parquet"),
        "t.npy": ("npy", "arrays"),
        "t.npz": ("npz", "arrays"),
        "t.md": ("markdown", "text_documents"),
        "t.py": ("text", "text_documents"),
        "t.png": ("image", "images"),
        "t.pdf": ("pdf", "text_documents"),
        "t.zip": ("zip", "archives"),
        "t.csv.gz": ("csv", "delimited"),
    }
    for name, (fmt, reader) in expected.items():
        det = detect(tmp_path / name)
        assert (det.format, det.reader) == (fmt, reader), name
    assert detect(tmp_path / "t.csv.gz").compression == "gzip"


def test_encodings() -> None:
    assert detect_encoding("naïve".encode("utf-8")) == "utf-8"
    assert detect_encoding(b"\xef\xbb\xbfa,b") == "utf-8-sig"
    assert detect_encoding("a – b".encode("cp1252")) == "cp1252"
    assert detect_encoding(b"a\x81b\xe9") == "latin-1"
    assert detect_encoding("a,b\n".encode("utf-16")) == "utf-16"
    # A multi-byte character cut at the end of a sample is not an error.
    assert detect_encoding("ab€".encode("utf-8")[:-1], final=False) == "utf-8"


def test_binary_sniffing() -> None:
    assert looks_binary(b"\x00\x01\x02\x03" * 10)
    assert not looks_binary(b"plain, text\n")
    assert not looks_binary("a,b\n".encode("utf-16"))


def test_a_sample_sheet_of_sections_is_no_json(tmp_path: Path) -> None:
    """'[Header]' opens an Illumina sample sheet, not a JSON array: it was unreadable as JSON."""
    from tests.servers.profiling.loading import profile_and_load

    f = tmp_path / "SampleSheet.csv"
    lines = ["[Header],,,", "IEMFileVersion,4,,", "Experiment Name,run3,,", ",,,", "[Reads],,,", "151,,,", ",,,",
             "[Data],,,", "Sample_ID,Sample_Name,Sample_Well,index"]
    lines += [f"S{i},P{i:02d}_T,A{i:02d},ACGTACG{i % 10}" for i in range(1, 13)]
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    assert prof.format == "csv" and list(ns["data"].columns) == ["Sample_ID", "Sample_Name", "Sample_Well", "index"]
    assert len(ns["data"]) == 12
    (tmp_path / "a.json").write_bytes(b"[true, false]")
    (tmp_path / "b.txt").write_bytes(b"[null, 1]")
    assert detect(tmp_path / "a.json").format == "json" and detect(tmp_path / "b.txt").format == "json"


def test_an_xml_document_with_a_body_and_a_header_is_no_html_page(tmp_path: Path) -> None:
    """CCSDS orbit messages (<ndm><omm><header/><body>…) were taken for HTML, whose loader failed."""
    f = tmp_path / "stations.xml"
    f.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<ndm><omm><header><ORIGINATOR>X</ORIGINATOR></header>'
                 "<body><segment><metadata><OBJECT_NAME>ISS</OBJECT_NAME></metadata></segment></body></omm></ndm>\n")
    assert detect(f).format == "xml"
    page = tmp_path / "fragment.txt"
    page.write_text("<body><table><tr><td>1</td></tr></table></body>\n")
    assert detect(page).format == "html"
