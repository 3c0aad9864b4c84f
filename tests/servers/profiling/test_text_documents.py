"""Documents: PDF page count and leading text, Word, Markdown, plain text and code."""

from __future__ import annotations

import zipfile
from pathlib import Path

from lakeboard.servers.profiling import profile_file
from tests.servers.profiling.loading import profile_and_load


def make_pdf(path: Path, pages: list[str]) -> None:
    """A minimal valid PDF with one line of Helvetica text per page."""
    objs: list[bytes] = []
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(len(pages)))
    objs.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objs.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    font = 3 + 2 * len(pages)
    for i, text in enumerate(pages):
        content = f"BT /F1 18 Tf 72 720 Td ({text}) Tj ET".encode()
        objs.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode()
        )
        objs.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    objs.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objs, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    path.write_bytes(bytes(out))


def test_pdf_pages_and_text(tmp_path: Path) -> None:
    f = tmp_path / "report.pdf"
    make_pdf(f, ["Annual water quality report", "Nitrate levels by district"])
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.kind == "document" and prof.format == "pdf"
    assert prof.attributes["pages"] == "2"
    assert "Annual water quality report" in prof.text and "Nitrate levels" in prof.text
    assert "Annual water quality report" in prof.summary
    assert "Nitrate levels by district" in ns["data"]


def test_damaged_pdf(tmp_path: Path) -> None:
    f = tmp_path / "broken.pdf"
    f.write_bytes(b"%PDF-1.4\n" + b"\x00garbage" * 50)
    prof = profile_file(f, tmp_path)
    assert prof.status == "unreadable" and prof.reason


def test_markdown_text_and_code(tmp_path: Path) -> None:
    md = tmp_path / "README.md"
    md.write_text("# Data dictionary\n\nColumn `acres` is the burned area.\n")
    code = tmp_path / "fetch.py"
    code.write_text("import os\nprint(os.getcwd())\n")
    p1, ns1 = profile_and_load(md)
    p2, ns2 = profile_and_load(code)
    assert p1.format == "markdown" and "Data dictionary" in p1.summary and "acres" in ns1["data"]
    assert p2.kind == "document" and "source code (py)" in p2.summary and ns2["data"].startswith("import os")


def test_docx(tmp_path: Path) -> None:
    f = tmp_path / "memo.docx"
    xml = (
        '<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        "<w:body><w:p><w:r><w:t>Methods memo</w:t></w:r></w:p>"
        "<w:p><w:r><w:t>Samples were taken </w:t></w:r><w:r><w:t>monthly.</w:t></w:r></w:p></w:body></w:document>"
    )
    with zipfile.ZipFile(f, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("word/document.xml", xml)
    prof, ns = profile_and_load(f)
    assert prof.format == "docx" and "Methods memo" in prof.summary
    assert ns["data"] == "Methods memo\nSamples were taken monthly."
