"""Excel workbooks: every sheet, header offsets, notes, stacked tables, damaged files."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import openpyxl

from lakeboard.servers.profiling import excel, profile_file
from tests.servers.profiling.loading import profile_and_load


def _workbook(path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Summary"
    ws.append(["Annual estimates of the resident population"])
    ws.append([])
    ws.append(["Area", "Population", "Growth"])
    for row in (["North", 1200, 0.5], ["South", 3400, 1.25], ["East", 560, -0.3]):
        ws.append(row)
    ws.append(["Source: the statistics office"])
    ws.append(["Release date: December"])

    data = wb.create_sheet("Readings")
    data.append(["station", "when", "value"])
    for i in range(40):
        data.append([f"st{i % 4}", datetime(2024, 1, 1 + i % 28), i * 1.5])

    wb.create_sheet("Empty")

    wide = wb.create_sheet("By year")
    wide.append(["Region", "Base", "Estimate", None])
    wide.append([None, None, 2020, 2021])
    wide.append(["North", 10, 11, 12])
    wide.append(["South", 20, 21, 22])

    stacked = wb.create_sheet("Stacked")
    stacked.append(["Reports by status"])
    stacked.append(["Status", "Reports"])
    stacked.append(["Open", 5])
    stacked.append(["Closed", 7])
    stacked.append([])
    stacked.append(["Reports by channel"])
    stacked.append(["Channel", "Reports"])
    stacked.append(["Phone", 8])
    stacked.append(["Email", 4])
    wb.save(path)


def test_every_sheet_with_its_header_offset(tmp_path: Path) -> None:
    f = tmp_path / "book.xlsx"
    _workbook(f)
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.format == "excel" and prof.kind == "table"
    by_name = {t.name: t for t in prof.tables}
    summary = by_name["Summary"]
    assert summary.header_row == 2 and summary.n_rows == 3
    assert summary.options["skiprows"] == 2 and summary.options["nrows"] == 3
    assert "Annual estimates of the resident population" in summary.notes
    assert summary.title == "Annual estimates of the resident population"
    assert by_name["Readings"].title is None
    assert "Source: the statistics office" in summary.notes
    area = next(c for c in summary.columns if c.name == "Area")
    assert set(area.top_values) == {"North", "South", "East"}

    readings = by_name["Readings"]
    assert readings.n_rows == 40 and readings.header_row == 0
    when = next(c for c in readings.columns if c.name == "when")
    assert when.dtype.startswith("datetime64")

    assert [c.name for c in by_name["By year"].columns] == ["Region", "Base", "Estimate 2020", "Estimate 2021"]
    assert {"Stacked: Reports by status", "Stacked: Reports by channel"} <= set(by_name)
    assert prof.attributes["empty_sheets"] == "Empty"
    assert prof.attributes["sheets"] == "Summary, Readings, Empty, By year, Stacked"

    sheets = ns["data"]
    assert sheets["Summary"].shape == (3, 3) and sheets["Summary"]["Population"].tolist() == [1200, 3400, 560]
    assert sheets["Readings"].shape == (40, 3)
    assert sheets["By year"]["Estimate 2021"].tolist() == [12, 22]
    assert sheets["Stacked: Reports by channel"]["Channel"].tolist() == ["Phone", "Email"]
    assert sheets["Stacked: Reports by status"]["Reports"].tolist() == [5, 7]


def test_a_narrower_table_under_a_wider_one_loads_without_padding_columns(tmp_path: Path) -> None:
    """A paper's supplementary sheet stacks tables of different widths. pandas pads every row it reads
    to the widest row above, so the narrower table under a wider one got an empty `Unnamed: 3`
    column, and its loader check failed."""
    f = tmp_path / "supplement.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Table S1"
    ws.append(["Table S1A. Patients"])
    ws.append(["Patient", "Age", "Sex", "Stage"])
    for i in range(8):
        ws.append([f"P{i}", 40 + i, "F" if i % 2 else "M", ["I", "II", "III"][i % 3]])
    ws.append([])
    ws.append(["Table S1B. Lab values"])
    ws.append(["Patient", "Hb", "WBC"])
    for i in range(6):
        ws.append([f"P{i}", 12.5 + i / 10, 5000 + i * 100])
    wb.save(f)
    prof, ns = profile_and_load(f)
    lab = next(t for t in prof.tables if t.title == "Table S1B. Lab values")
    assert [c.name for c in lab.columns] == ["Patient", "Hb", "WBC"]
    assert list(ns["data"][lab.name].columns) == ["Patient", "Hb", "WBC"]
    assert prof.loader_check.verified, prof.loader_check


def test_tables_side_by_side_are_read_apart_and_a_spacer_column_is_not_a_split(tmp_path: Path) -> None:
    f = tmp_path / "supplement.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S2"
    ws.append(["Table S2A. Up-regulated genes", None, None, "Table S2B. Proteins"])
    ws.append(["Gene", "log2FC", "p", None, "Protein", "Score"])
    for i in range(9):
        ws.append([f"G{i}", 1.5 + i, 0.01 * i, None] + ([f"PR{i}", i * 3] if i < 5 else [None, None]))
    spaced = wb.create_sheet("Spacer")  # one table: the measures of the same samples, grouped
    spaced.append(["Sample", "A1", "A2", None, "B1", "B2"])
    for i in range(10):
        spaced.append([f"S{i}", i, i * 2, None, i * 3, i * 4])
    wb.save(f)
    prof, ns = profile_and_load(f)
    by_title = {t.title: t for t in prof.tables}
    genes, proteins = by_title["Table S2A. Up-regulated genes"], by_title["Table S2B. Proteins"]
    assert [c.name for c in genes.columns] == ["Gene", "log2FC", "p"] and genes.n_rows == 9
    assert [c.name for c in proteins.columns] == ["Protein", "Score"] and proteins.n_rows == 5
    data = ns["data"]
    assert data[proteins.name]["Protein"].tolist() == [f"PR{i}" for i in range(5)]
    assert data[genes.name].shape == (9, 3)
    assert data["Spacer"].shape == (10, 6)
    assert prof.loader_check.verified, prof.loader_check


def test_a_header_of_dates_and_a_table_that_starts_in_column_c(tmp_path: Path) -> None:
    """Monthly columns headed by date cells: the header was read as a row of data (dates are values).
    A table that starts in column C loaded two empty 'Unnamed' columns."""
    f = tmp_path / "monthly.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Monthly"
    ws.append(["Region"] + [datetime(2024, m, 1) for m in range(1, 7)])
    for i in range(10):
        ws.append([f"R{i}"] + [i * m for m in range(1, 7)])
    offset = wb.create_sheet("Offset")
    offset.append([])
    offset.append([None, None, "Name", "Value"])
    for i in range(10):
        offset.append([None, None, f"n{i}", i * 1.5])
    wb.save(f)
    prof, ns = profile_and_load(f)
    monthly, shifted = prof.tables
    assert monthly.columns[0].name == "Region" and monthly.columns[1].name.startswith("2024-01-01") and monthly.n_rows == 10
    assert [c.name for c in shifted.columns] == ["Name", "Value"]
    assert ns["data"]["Monthly"].shape == (10, 7) and list(ns["data"]["Offset"].columns) == ["Name", "Value"]
    assert prof.loader_check.verified, prof.loader_check


def test_big_sheet_is_sampled_and_its_rows_estimated(tmp_path: Path) -> None:
    f = tmp_path / "big.xlsx"
    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet("rows")
    ws.append(["id", "group", "value"])
    n = excel.MAX_ROWS + 500
    for i in range(n):
        ws.append([i, f"g{i % 7}", i / 3])
    wb.save(f)
    prof, ns = profile_and_load(f)
    t = prof.tables[0]
    assert not t.n_rows_exact and abs(t.n_rows - n) <= 1
    assert ns["data"]["rows"].shape == (n, 3)


def test_damaged_workbooks_say_why(tmp_path: Path) -> None:
    good = tmp_path / "good.xlsx"
    _workbook(good)
    truncated = tmp_path / "truncated.xlsx"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    junk = tmp_path / "junk.xlsx"
    junk.write_bytes(b"\x01\x02garbage" * 100)
    text = tmp_path / "text.xlsx"
    text.write_text("a,b\n1,2\n")
    p1, p2, p3 = (profile_file(p, tmp_path) for p in (truncated, junk, text))
    assert p1.status == "unreadable" and "damaged" in p1.reason
    assert p2.status == "unreadable" and p2.reason
    # A CSV saved under an Excel name is read as what it is.
    assert p3.status == "ok" and p3.format == "csv" and "named .xlsx" in p3.attributes["note"]
    for p in (p1, p2):
        assert "return None" in p.loader


def test_a_table_above_a_wider_one_loads_its_own_columns(tmp_path: Path) -> None:
    """Two tables stacked in a sheet, the lower one a column wider: calamine pads every row of
    the sheet to its full width, so the upper table is read with its own columns only."""
    f = tmp_path / "supplement.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["A. Discovery cohort"])
    ws.append(["SNP", "Chr", "P"])
    for i in range(6):
        ws.append([f"rs{100 + i}", i + 1, 1e-8 * (i + 1)])
    ws.append([])
    ws.append(["B. Validation cohort"])
    ws.append(["SNP", "Chr", "P", "P (meta-analysis)"])
    for i in range(6):
        ws.append([f"rs{200 + i}", i + 1, 1e-7 * (i + 1), 1e-9 * (i + 1)])
    wb.save(f)
    prof, ns = profile_and_load(f)
    assert prof.loader_check.verified, prof.loader_check.reasons
    first, second = ns["data"].values()
    assert list(first.columns) == ["SNP", "Chr", "P"] and len(first) == 6
    assert list(second.columns) == ["SNP", "Chr", "P", "P (meta-analysis)"]


def test_groups_over_years_then_a_blank_row_then_the_data(tmp_path: Path) -> None:
    """A court caseload table: merged groups ('Commenced', 'Terminated') over years written as
    text, a blank row, then the rows. The two header rows name the columns."""
    f = tmp_path / "caseload.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Table C-1."])
    ws.append(["Civil Cases Commenced and Terminated, 2022 and 2023"])
    ws.append([])
    ws.append(["District", "Commenced", None, "Terminated", None])
    ws.append([None, "2022", "2023", "2022", "2023"])
    ws.merge_cells("B4:C4")
    ws.merge_cells("D4:E4")
    ws.append([])
    for i in range(12):
        ws.append([f"D{i}", 100 + i, 110 + i, 90 + i, 95 + i])
    wb.save(f)
    prof, ns = profile_and_load(f)
    df = ns["data"]["Sheet"]
    assert list(df.columns) == ["District", "Commenced 2022", "Commenced 2023", "Terminated 2022", "Terminated 2023"]
    assert len(df) == 12 and df["Terminated 2023"].iloc[0] == 95 and prof.loader_check.verified


def test_labels_merged_down_beside_groups_over_their_columns(tmp_path: Path) -> None:
    """A paper's supplementary table: 'Protein' and 'Gene' merged down two rows, groups merged
    across their replicates ('Tumour (T)' over T1 … T3). The names row alone named the first two
    columns 'Unnamed: 0' and 'Unnamed: 1'."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Table S2"
    ws.append(["Supplementary Table S2. Log2 intensities of quantified proteins."])
    ws.append(["Protein", "Gene", "Tumour (T)", None, None, "Normal (N)", None, None])
    ws.append([None, None, "T1", "T2", "T3", "N1", "N2", "N3"])
    ws.merge_cells("A2:A3")
    ws.merge_cells("B2:B3")
    ws.merge_cells("C2:E2")
    ws.merge_cells("F2:H2")
    for i in range(20):
        ws.append([f"P{60709 + i}", f"G{i}", *[21 + i / 10 + k / 7 for k in range(6)]])
    f = tmp_path / "mmc2.xlsx"
    wb.save(f)
    prof, ns = profile_and_load(f)
    df = ns["data"]["Table S2"]
    assert list(df.columns) == ["Protein", "Gene", "T1", "T2", "T3", "N1", "N2", "N3"] and df.shape == (20, 8)
    assert prof.loader_check.verified, prof.loader_check


def test_a_title_over_a_corner_cell_names_no_column(tmp_path: Path) -> None:
    """A plate layout: 'Plate 1 layout' over a header whose corner cell is empty (1 … 12). A
    title names no column: only a row with groups over the named columns lends its labels."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Plate 1 layout"])
    ws.append([None, *range(1, 13)])
    for r in "ABCDEFGH":
        ws.append([r, *[f"S{r}-{k}" for k in range(1, 13)]])
    f = tmp_path / "plate.xlsx"
    wb.save(f)
    prof, ns = profile_and_load(f)
    assert prof.tables[0].columns[0].name != "Plate 1 layout"


def test_dates_kept_as_day_numbers_in_a_column_named_for_dates(tmp_path: Path) -> None:
    """A sheet whose 'Date/Time Ordered' cells are formatted General holds Excel's day numbers
    (44435.8021): they load as datetimes; numbers of the same size under another name stay numbers."""
    f = tmp_path / "orders.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Request #", "Date/Time Ordered", "Gallons"])
    for i in range(30):
        ws.append([f"A-{i}", 44435.75 + i * 0.5, 44000 + i])
    wb.save(f)
    prof, ns = profile_and_load(f)
    cols = {c.name: c.dtype for c in prof.tables[0].columns}
    assert cols["Date/Time Ordered"] == "datetime64[ns]" and cols["Gallons"] == "int64"
    df = ns["data"]["Sheet"]
    assert str(df["Date/Time Ordered"].iloc[0]) == "2021-08-27 18:00:00" and df["Gallons"].iloc[1] == 44001
    assert prof.loader_check.verified


def test_number_cells_beside_text_cells_written_with_marks(tmp_path: Path) -> None:
    """A resource-order sheet: 'Hours Flown' holds numbers and a few text cells '3.4*' (estimates),
    'Cost' numbers and a few '$16,560.00'; both load as numbers. A column of numbers beside words
    keeps its objects."""
    f = tmp_path / "orders.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Request", "Hours Flown", "Cost", "Remarks"])
    for i in range(40):
        ws.append([f"A-{i}", f"{i / 10 + 1:.1f}*" if i % 7 == 3 else i / 10 + 1,
                   f"${1000 + i:,}.00" if i % 5 == 2 else 1000 + i, "released" if i % 6 == 4 else i])
    wb.save(f)
    prof, ns = profile_and_load(f)
    cols = {c.name: c.dtype for c in prof.tables[0].columns}
    assert cols["Hours Flown"] == "float64" and cols["Cost"] == "int64" and cols["Remarks"] == "object"
    df = ns["data"]["Sheet"]
    assert df["Hours Flown"].iloc[10] == 2.0 and df["Cost"].iloc[7] == 1007
    assert prof.loader_check.verified
