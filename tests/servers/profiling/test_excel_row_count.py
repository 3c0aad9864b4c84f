"""A workbook too big to read whole reports its true row count, or says "at least N" (issue 17 item 9).

The sheets are written by hand into a zip: a few thousand rows, then enough blank space that
the sheet's XML is larger than what is read whole, as in a zip bomb (a small file that expands
to a huge sheet). The first test uses the real bound (a 65 MB sheet); the others lower the bound
to 2 MB, so that their sheets are 3 MB: the same reading, for far less CPU in the profile and in
its loader check.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from lakeboard.schemas.profiles import TableProfile
from lakeboard.servers.profiling import excel, profile_file

ROWS = 5000  # more than the profiler samples
SMALL_BOUND = 2 << 20  # what calamine may read whole, in all but the first test; a sheet of ROWS rows is 0.4 MB
NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PACKAGE_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>'
)


def _write_workbook(path: Path, n_rows: int, dimension: str | None, padding_bytes: int) -> None:
    """One sheet, "readings": a header row and `n_rows` data rows, then `padding_bytes` of blank space."""
    # Level 1: the blank space still shrinks about 200 to 1, for a third of the default level's CPU.
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        z.writestr("[Content_Types].xml", CONTENT_TYPES)
        z.writestr("_rels/.rels", f'<Relationships xmlns="{PACKAGE_RELS}"><Relationship Id="rId1" '
                   f'Type="{REL_NS}/officeDocument" Target="xl/workbook.xml"/></Relationships>')
        z.writestr("xl/workbook.xml", f'<workbook {NS} xmlns:r="{REL_NS}"><sheets>'
                   '<sheet name="readings" sheetId="1" r:id="rId1"/></sheets></workbook>')
        z.writestr("xl/_rels/workbook.xml.rels", f'<Relationships xmlns="{PACKAGE_RELS}"><Relationship Id="rId1" '
                   f'Type="{REL_NS}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>')
        with z.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as sheet:
            sheet.write(f'<?xml version="1.0" encoding="UTF-8"?><worksheet {NS}>'.encode())
            if dimension is not None:
                sheet.write(f'<dimension ref="{dimension}"/>'.encode())
            sheet.write(b'<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>station</t></is></c>'
                        b'<c r="B1" t="inlineStr"><is><t>reading</t></is></c></row>')
            sheet.write("".join(f'<row r="{i}"><c r="A{i}"><v>{i % 7}</v></c><c r="B{i}"><v>{i * 0.5}</v></c></row>'
                                for i in range(2, n_rows + 2)).encode())
            step = 1 << 22
            for start in range(0, padding_bytes, step):
                sheet.write(b" " * min(step, padding_bytes - start))
            sheet.write(b"</sheetData></worksheet>")


@pytest.fixture
def small_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(excel, "CALAMINE_MAX_SHEET_BYTES", SMALL_BOUND)


def _profile(tmp_path: Path, n_rows: int, dimension: str | None, big: bool = True) -> tuple[str, TableProfile]:
    path = tmp_path / "readings.xlsx"
    _write_workbook(path, n_rows, dimension, excel.CALAMINE_MAX_SHEET_BYTES + (1 << 20) if big else 0)
    with zipfile.ZipFile(path) as z:  # the sheet is on the side of the bound the test is about
        assert (z.getinfo("xl/worksheets/sheet1.xml").file_size > excel.CALAMINE_MAX_SHEET_BYTES) == big
    prof = profile_file(path, tmp_path)
    assert prof.status == "ok", prof.reason
    assert [c.name for c in prof.tables[0].columns] == ["station", "reading"]
    return prof.summary, prof.tables[0]


def test_a_huge_sheet_reports_the_row_count_of_its_dimension(tmp_path: Path) -> None:
    summary, table = _profile(tmp_path, ROWS, "A1:B13600001")
    assert table.n_rows == 13_600_000 and not table.n_rows_exact
    assert "~13600000 rows" in summary


@pytest.mark.usefixtures("small_bound")
def test_a_huge_sheet_without_a_dimension_says_at_least(tmp_path: Path) -> None:
    summary, table = _profile(tmp_path, ROWS, None)
    assert not table.n_rows_exact and table.n_rows < ROWS
    assert f"at least {table.n_rows} rows" in summary


@pytest.mark.usefixtures("small_bound")
def test_a_dimension_that_understates_the_sheet_is_read_past(tmp_path: Path) -> None:
    for dimension in ("A1", "A1:B10"):  # some writers leave A1
        summary, table = _profile(tmp_path, ROWS, dimension)
        assert not table.n_rows_exact and table.n_rows > 10, dimension
        assert f"at least {table.n_rows} rows" in summary, dimension


@pytest.mark.usefixtures("small_bound")
def test_a_huge_sheet_read_to_its_end_is_counted_exactly(tmp_path: Path) -> None:
    for dimension in ("A1:B101", None, "A1"):
        summary, table = _profile(tmp_path, 100, dimension)
        assert table.n_rows == 100 and table.n_rows_exact, dimension
        assert "(100 rows" in summary


@pytest.mark.usefixtures("small_bound")
def test_a_sheet_read_whole_counts_every_row(tmp_path: Path) -> None:
    for dimension in ("A1:B5001", None):
        summary, table = _profile(tmp_path, ROWS, dimension, big=False)
        assert table.n_rows == ROWS, dimension
        assert f"~{ROWS} rows" in summary or f"({ROWS} rows" in summary
