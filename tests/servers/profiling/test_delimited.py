"""Delimited text: delimiter, encoding, header past title lines, footnotes, stacked tables."""

from __future__ import annotations

import gzip
import random
import time
from pathlib import Path

import pandas as pd
import pytest

from lakeboard.servers.profiling import profile_file
from lakeboard.servers.profiling.text_sample import HEAD_BYTES
from tests.servers.profiling.loading import profile_and_load

REPORT = (
    "Annual report of widget counts\n"
    "Prepared by the statistics office\n"
    "\n"
    "region,year,count\n"
    'north,2020,"1,200"\n'
    "south,2020,950\n"
    'east,2021,"2,040"\n'
    ",,\n"
    "Note: counts for 2021 are provisional.\n"
    "Source: statistics office\n"
)


def test_preamble_and_footnotes_are_skipped(tmp_path: Path) -> None:
    f = tmp_path / "report.csv"
    f.write_text(REPORT)
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.kind == "table" and prof.format == "csv"
    t = prof.tables[0]
    assert t.header_row == 3 and t.n_rows == 3 and t.n_rows_exact
    assert [c.name for c in t.columns] == ["region", "year", "count"]
    assert t.options["thousands"] == "," and t.options["nrows"] == 3
    assert "Annual report of widget counts" in t.notes and t.title == "Annual report of widget counts"
    assert any(n.startswith("Note: counts for 2021") for n in t.notes)
    assert any(n.startswith("Source:") for n in t.notes)
    df = ns["data"]
    assert df.shape == (3, 3)
    assert df["count"].tolist() == [1200, 950, 2040]
    assert str(df["count"].dtype) == "int64"
    region = next(c for c in t.columns if c.name == "region")
    assert set(region.top_values) == {"north", "south", "east"}
    assert "Annual report of widget counts" in prof.summary
    assert "\n# report.csv: " in prof.loader


def test_semicolon_decimal_comma_latin1(tmp_path: Path) -> None:
    f = tmp_path / "werte.csv"
    f.write_bytes("Stadt;Wert;Jahr\nKöln;1,5;2020\nDüsseldorf;2,25;2021\nMünchen;3,0;2022\n".encode("latin-1"))
    prof, ns = profile_and_load(f)
    t = prof.tables[0]
    assert prof.encoding in ("cp1252", "latin-1")
    assert t.delimiter == ";" and t.options["sep"] == ";" and t.options["decimal"] == ","
    df = ns["data"]
    assert df["Stadt"].tolist() == ["Köln", "Düsseldorf", "München"]
    assert df["Wert"].tolist() == [1.5, 2.25, 3.0]
    stadt = next(c for c in t.columns if c.name == "Stadt")
    assert "Köln" in stadt.top_values


def test_a_decimal_comma_beside_dates_written_with_dots(tmp_path: Path) -> None:
    """`01.03.2020` is a date, not a dot decimal: before, it kept the file's numbers as text."""
    f = tmp_path / "messwerte.csv"
    f.write_text("Datum;Temperatur;Niederschlag\n" + "".join(f"0{i % 9 + 1}.03.2020;{i},5;{i * 2},25\n" for i in range(12)))
    prof, ns = profile_and_load(f)
    assert prof.tables[0].options["decimal"] == "," and "thousands" not in prof.tables[0].options
    df = ns["data"]
    assert df["Temperatur"].tolist()[:3] == [0.5, 1.5, 2.5] and df["Datum"].iloc[0] == "01.03.2020"


def test_thousands_grouped_by_dots_beside_dates_with_times(tmp_path: Path) -> None:
    """An inverter's log: '01.03.2023 07:00' stays text with thousands='.', so '1.768,4' is 1768.4."""
    f = tmp_path / "tageswerte.csv"
    f.write_text("Datum und Uhrzeit;PV Leistung [W]\n" + "".join(
        f"01.03.2023 {7 + i // 4:02d}:{i % 4 * 15:02d};{(i + 1) * 450 // 1000}.{(i + 1) * 450 % 1000:03d},4\n" if i > 2
        else f"01.03.2023 07:{i * 15:02d};{i * 100},0\n" for i in range(20)))
    prof, ns = profile_and_load(f)
    assert prof.tables[0].options["thousands"] == "."
    df = ns["data"]
    assert df["PV Leistung [W]"].tolist()[2:4] == [200.0, 1800.4] and df["Datum und Uhrzeit"].iloc[0] == "01.03.2023 07:00"


def test_a_decimal_comma_with_thousands_grouped_by_dots(tmp_path: Path) -> None:
    f = tmp_path / "einwohner.csv"
    f.write_text("Gemeinde;Einwohner;Anteil\n" + "".join(f"G{i};{i + 1}.{i * 37 % 1000:03d},5;{i},25\n" for i in range(12)))
    prof, ns = profile_and_load(f)
    assert prof.tables[0].options["decimal"] == "," and prof.tables[0].options["thousands"] == "."
    assert ns["data"]["Einwohner"].iloc[1] == 2037.5 and ns["data"]["Anteil"].iloc[1] == 1.25


def test_cp1252_punctuation(tmp_path: Path) -> None:
    f = tmp_path / "notes.csv"
    f.write_bytes("item,label\n1,Landline \x96 existing\n2,\x93quoted\x94 name\n".encode("latin-1"))
    prof, ns = profile_and_load(f)
    assert prof.encoding == "cp1252"
    assert ns["data"]["label"].tolist() == ["Landline – existing", "“quoted” name"]


def test_utf8_bom_is_not_in_the_first_column_name(tmp_path: Path) -> None:
    f = tmp_path / "bom.csv"
    f.write_bytes("\ufeffid,name\n1,a\n2,b\n".encode("utf-8"))
    prof, ns = profile_and_load(f)
    assert prof.encoding == "utf-8-sig"
    assert list(ns["data"].columns) == ["id", "name"]


def test_tab_separated_named_csv_with_thousands(tmp_path: Path) -> None:
    f = tmp_path / "areas.csv"
    f.write_text("Year\tNorth\tSouth\n2024\t3,512\tN/A\n2023\t737\t1,000\n2022\t11,843\t9\n")
    prof, ns = profile_and_load(f)
    assert prof.format == "tsv" and prof.tables[0].options["sep"] == "\t"
    assert ns["data"]["North"].tolist() == [3512, 737, 11843]
    assert ns["data"]["South"].isna().sum() == 1


def test_stacked_tables_each_with_its_own_header(tmp_path: Path) -> None:
    f = tmp_path / "stacked.csv"
    f.write_text(
        "Reports by status,,\n"
        ",,\n"
        "Status,Reports,Share\n"
        "Active,100,10%\n"
        "Retired,900,90%\n"
        ",,\n"
        "Branch,Reports,Share\n"
        "Army,600,60%\n"
        "Navy,400,40%\n"
        ",,\n"
        "Of all reports 92% named a branch.,,\n"
        ",,\n"
        "Source: the office,,\n"
    )
    prof, ns = profile_and_load(f)
    assert len(prof.tables) == 2
    first, second = prof.tables
    assert [c.name for c in first.columns] == ["Status", "Reports", "Share"]
    assert [c.name for c in second.columns] == ["Branch", "Reports", "Share"]
    assert "Reports by status" in first.notes
    assert any("92% named a branch" in n for n in second.notes)
    tables = ns["data"]
    assert [df.shape for df in tables.values()] == [(2, 3), (2, 3)]
    assert list(tables.values())[1]["Branch"].tolist() == ["Army", "Navy"]


def test_summary_lines_after_a_table_are_its_footer(tmp_path: Path) -> None:
    f = tmp_path / "payment.csv"
    f.write_text(
        "Method,Reports,Loss\n"
        'Card,"108,881",$275M\n'
        'Cash,"13,609",$308M\n'
        ",,\n"
        'Number of reports,"2,600,678",\n'
        'Reports with a method,"475,905",18% of total\n'
    )
    prof, ns = profile_and_load(f)
    assert len(prof.tables) == 1
    assert any("Number of reports" in n for n in prof.tables[0].notes)
    main = ns["data"]
    assert main["Method"].tolist() == ["Card", "Cash"]
    assert main["Reports"].tolist() == [108881, 13609]


def test_quoted_fields_with_line_breaks(tmp_path: Path) -> None:
    f = tmp_path / "stations.csv"
    rows = ["id,name,description,elevation"]
    for i in range(30):
        desc = f'"site {i} is north of the pass.\n\nthe mast sits above the trees"' if i % 3 == 0 else f"site {i}"
        rows.append(f"{i},station {i},{desc},{1000 + i}")
    f.write_text("\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    assert len(prof.tables) == 1
    t = prof.tables[0]
    assert t.n_rows == 30 and [c.name for c in t.columns] == ["id", "name", "description", "elevation"]
    assert ns["data"].shape == (30, 4)


def test_headerless_numbers(tmp_path: Path) -> None:
    f = tmp_path / "matrix.csv"
    f.write_text("1,2.5,3\n4,5.5,6\n7,8.5,9\n")
    prof, ns = profile_and_load(f)
    assert prof.tables[0].options["header"] is None
    assert ns["data"].shape == (3, 3)


def test_year_labels_in_the_header(tmp_path: Path) -> None:
    f = tmp_path / "wide.csv"
    f.write_text("State,2019,2020,2021\nAlabama,1,2,3\nAlaska,4,5,6\n")
    prof, ns = profile_and_load(f)
    assert prof.tables[0].header_row == 0
    assert list(ns["data"].columns) == ["State", "2019", "2020", "2021"]
    assert ns["data"].shape == (2, 4)


def test_two_row_header_is_combined(tmp_path: Path) -> None:
    f = tmp_path / "estimates.csv"
    f.write_text(
        "Population estimates by area\n"
        "Area,Base,Estimate,,\n"
        ",,2020,2021,2022\n"
        "North,100,101,102,103\n"
        "South,200,201,202,203\n"
    )
    prof, ns = profile_and_load(f)
    names = [c.name for c in prof.tables[0].columns]
    assert names == ["Area", "Base", "Estimate 2020", "Estimate 2021", "Estimate 2022"]
    assert ns["data"].shape == (2, 5) and ns["data"]["Estimate 2022"].tolist() == [103, 203]


def test_single_column_list(tmp_path: Path) -> None:
    f = tmp_path / "states.csv"
    f.write_text("Name\nConnecticut\nMaine\nVermont\n")
    prof, ns = profile_and_load(f)
    assert prof.status == "ok"
    assert ns["data"]["Name"].tolist() == ["Connecticut", "Maine", "Vermont"]


def test_padding_delimiters_do_not_become_columns(tmp_path: Path) -> None:
    f = tmp_path / "padded.csv"
    f.write_text("Title of the table,,,\n,,,\na,b,,\n1,2,,\n3,4,,\n")
    prof, ns = profile_and_load(f)
    assert list(ns["data"].columns) == ["a", "b"]


def test_rows_longer_than_the_header_do_not_shift_into_the_index(tmp_path: Path) -> None:
    f = tmp_path / "trailing.csv"
    f.write_text("a,b,c\n1,2,3,\n4,5,6,\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert df["a"].tolist() == [1, 4] and df["c"].tolist() == [3, 6]


def test_missing_value_marker_from_the_preamble(tmp_path: Path) -> None:
    f = tmp_path / "monthly.csv"
    f.write_text('Title: monthly fires\nMissing: -999\n\nDate,"Acres"\n200001,40757\n200002,-999\n')
    prof, ns = profile_and_load(f)
    assert prof.tables[0].options["na_values"] == ["-999"]
    assert ns["data"]["Acres"].isna().tolist() == [False, True]


def test_windows_and_old_mac_line_endings(tmp_path: Path) -> None:
    crlf = tmp_path / "windows.csv"
    crlf.write_bytes(b"Old export,\r\n,\r\nx,y\r\n1,2\r\n3,4\r\n,\r\nSource: the export tool\r\n")
    cr = tmp_path / "mac.csv"
    cr.write_bytes(b"Old export\rx,y\r1,2\r3,4\r")
    for f in (crlf, cr):
        prof, ns = profile_and_load(f)
        assert list(ns["data"].columns) == ["x", "y"] and ns["data"].shape == (2, 2), f.name


def test_gzip_compressed_csv(tmp_path: Path) -> None:
    f = tmp_path / "data.csv.gz"
    with gzip.open(f, "wt") as g:
        g.write("Export of readings\n\nsite,value\n" + "".join(f"s{i},{i}\n" for i in range(50)))
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.attributes.get("compression") == "gzip"
    assert ns["data"].shape == (50, 2)


def test_empty_and_blank_files(tmp_path: Path) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    blank = tmp_path / "blank.csv"
    blank.write_text("\n  \n\n")
    p1, p2 = profile_file(empty, tmp_path), profile_file(blank, tmp_path)
    assert p1.status == "empty" and "0 bytes" in (p1.reason or "")
    assert p2.status == "empty" and p2.reason


def test_a_header_with_no_rows_is_said_to_be_one(tmp_path: Path) -> None:
    """A table exported with no rows: its reason names the header, not 'notes or blank lines'."""
    f = tmp_path / "export.csv"
    f.write_text("# exported 2024-05-01\nid,name,value\n")
    prof = profile_file(f, tmp_path)
    assert prof.status == "empty" and "a header (id, name, value) and nothing under it" in prof.reason
    notes = tmp_path / "notes.csv"
    notes.write_text("# nothing was exported\n")
    assert "only notes or blank lines" in profile_file(notes, tmp_path).reason


def test_binary_junk_named_csv(tmp_path: Path) -> None:
    f = tmp_path / "junk.csv"
    f.write_bytes(bytes(range(256)) * 40)
    prof = profile_file(f, tmp_path)
    assert prof.status == "unreadable"
    assert "binary" in prof.reason and ".csv" in prof.reason


def test_big_file_is_profiled_from_its_head_and_tail(tmp_path: Path) -> None:
    f = tmp_path / "big.csv"
    row = "2024-01-01,north,widget,12,3.5\n"
    n = (3 * HEAD_BYTES) // len(row)
    with f.open("w") as out:
        out.write("Export of all orders\n\n")
        out.write("date,region,product,qty,price\n")
        out.write(row * n)
        out.write("\nTotals are provisional and may change.\nSource: order system\n")
    t0 = time.perf_counter()
    prof, ns = profile_and_load(f)
    assert time.perf_counter() - t0 < 30
    t = prof.tables[0]
    assert t.n_rows == n and t.n_rows_exact  # counted line ends past the sample
    assert t.options.get("skipfooter") == 3 and t.options.get("engine") == "python"
    assert t.title == "Export of all orders"
    assert any("Source: order system" in note for note in t.notes)
    assert ns["data"].shape == (n, 5)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_big_file_row_count_skips_every_empty_line_as_pandas_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, newline: str
) -> None:
    from lakeboard.servers.profiling import delimited

    monkeypatch.setattr(delimited, "COUNT_CHUNK_BYTES", 4093)  # many chunk ends, some inside runs
    rng = random.Random(7)
    lines = ["id,name"]
    while len(lines) < (2 * HEAD_BYTES) // 12:
        lines.append(f"{len(lines)},n{len(lines) % 11}")
        if rng.random() < 0.01:  # runs of empty and space-only lines, also past the sample
            lines.extend(rng.choice(["", "", "  "]) for _ in range(rng.randint(1, 4)))
    f = tmp_path / "gaps.csv"
    f.write_bytes((newline.join(lines) + newline).encode())
    assert f.stat().st_size > HEAD_BYTES
    prof = profile_file(f, tmp_path)
    t = prof.tables[0]
    assert t.n_rows_exact and t.n_rows == len(pd.read_csv(f))


def test_huge_sparse_file_is_read_in_bounded_time_and_memory(tmp_path: Path) -> None:
    import resource

    f = tmp_path / "huge.csv"
    with f.open("w") as out:
        out.write("id,value\n" + "".join(f"{i},{i * 2}\n" for i in range(1000)))
    with f.open("r+b") as out:
        out.truncate(2 << 30)  # 2 GB: sparse, the rest reads as NUL bytes
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    prof = profile_file(f, tmp_path)
    assert time.perf_counter() - t0 < 10
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 200
    assert prof.status == "ok" and prof.size_bytes == 2 << 30
    t = prof.tables[0]
    assert not t.n_rows_exact and [c.name for c in t.columns] == ["id", "value"]
    assert t.options.get("encoding_errors") == "replace"


def test_loader_reads_the_same_frame_as_the_profile_sample(tmp_path: Path) -> None:
    f = tmp_path / "sample.csv"
    f.write_text("a,b\n" + "".join(f"{i},x{i % 3}\n" for i in range(100)))
    prof, ns = profile_and_load(f)
    assert isinstance(ns["data"], pd.DataFrame) and len(ns["data"]) == prof.tables[0].n_rows == 100
    assert prof.tables[0].sample_rows[0] == {"a": 0, "b": "x0"}
    assert len(prof.tables[0].sample_rows) == 20


def test_statistics_cover_a_table_sorted_by_a_category(tmp_path: Path) -> None:
    states = [f"State{k:02d}" for k in range(40)]
    f = tmp_path / "sorted.csv"
    f.write_text("state,value\n" + "".join(f"{s},{i}\n" for s in states for i in range(100)))
    prof = profile_file(f, tmp_path)
    state = prof.tables[0].columns[0]
    assert state.n_unique == 40 and len(state.top_values) == 30
    assert prof.tables[0].sample_rows[0] == {"state": "State00", "value": 0}
    assert prof.tables[0].n_rows == 4000


def test_rows_written_with_their_names_keep_them(tmp_path: Path) -> None:
    """R's write.table: a header of the value columns, and each row led by its name. The names are
    a column, and each value stays under its own name (not shifted one to the left)."""
    f = tmp_path / "toptags.txt"
    rows = "".join(f'"ENSG{i:011d}"\t{i / 10}\t{i * 2}\t{i}e-10\n' for i in range(1, 31))
    f.write_text('"logFC"\t"logCPM"\t"PValue"\n' + rows)
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert list(df.columns) == ["Unnamed: 0", "logFC", "logCPM", "PValue"] and len(df) == 30
    assert df["Unnamed: 0"].iloc[0] == "ENSG00000000001" and df["PValue"].iloc[0] == 1e-10
    assert prof.loader_check.verified


def test_rows_longer_than_the_header_without_names_keep_the_header(tmp_path: Path) -> None:
    """Rows with a field more than the header, the first fields repeating: not row names."""
    f = tmp_path / "log.csv"
    f.write_text("site,reading\n" + "".join(f"{'north' if i % 2 else 'south'},{i},extra{i}\n" for i in range(30)))
    prof, ns = profile_and_load(f)
    assert list(ns["data"].columns) == ["site", "reading"] and ns["data"]["reading"].iloc[3] == 3


def test_european_lab_export_with_limits_and_gaps_in_its_first_rows(tmp_path: Path) -> None:
    """';' with decimal commas, a BOM and CRLF; the first rows hold values under a detection limit
    ('<0,5') and 'n.d.': they are rows, not a second header. 'n.d.' in most of a column of numbers
    is still a gap, while a bare word in most of a column keeps it text."""
    f = tmp_path / "labor.csv"
    rows = ["\ufeffProben-ID;Entnahmedatum;Glukose [mmol/l];Laktat [mmol/l];CRP [mg/l];Status"]
    for i in range(30):
        lactate = f"{2 + i % 7},{i % 10}" if i % 3 == 0 else "n.d."
        crp = "<0,5" if i % 4 == 0 else f"{10 + i},{i % 10}"
        rows.append(f"LAB-{22000 + i};{1 + i % 28:02d}.12.2022;{5 + i % 9},{i % 10};{lactate};{crp};"
                    f"{'Pending' if i % 3 else 3}")
    f.write_bytes(("\r\n".join(rows) + "\r\n").encode("utf-8"))
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert list(df.columns)[:3] == ["Proben-ID", "Entnahmedatum", "Glukose [mmol/l]"] and len(df) == 30
    assert df["Glukose [mmol/l]"].iloc[1] == 6.1
    assert df["Laktat [mmol/l]"].isna().sum() == 20 and df["Laktat [mmol/l]"].iloc[0] == 2.0
    assert df["CRP [mg/l]"].iloc[0] == "<0,5"  # a value under a limit is not a gap: kept, with a note
    assert df["Status"].iloc[1] == "Pending"


def test_rows_that_leave_the_first_column_empty_and_subtotals_in_them(tmp_path: Path) -> None:
    """A query tool's export: a Notes column empty but in its 'Total' rows, one under each group.
    The first row of data (whose codes read as numbers where later rows hold ranges) is a row,
    not a second header; the last 'Total' row is a subtotal like the others, not a footer."""
    f = tmp_path / "deaths.txt"
    lines = ['"Notes"\t"State"\t"Age Group"\t"Age Group Code"\tDeaths\tPopulation\tCrude Rate']
    for s, state in enumerate(["Alabama", "Alaska", "Arizona", "Arkansas", "Colorado"]):
        for a, (group, code) in enumerate([("< 1 year", "1"), ("1-4 years", "1-4"), ("5-14 years", "5-14"),
                                           ("15-24 years", "15-24")]):
            deaths = "Suppressed" if (s + a) % 5 == 3 else str(100 + 7 * s + a)
            rate = f"{0.5 + a:.1f} (Unreliable)" if a == 1 else f"{20 + s + a}.{a}"
            lines.append(f'\t"{state}"\t"{group}"\t"{code}"\t{deaths}\t{50000 + s * 1000 + a}\t{rate}')
        lines.append(f'"Total"\t"{state}"\t\t\t{500 + s}\t{200000 + s}\t{30 + s}.0')
    lines += ['"---"', '"Dataset: Underlying Cause of Death"', '"Query Parameters:"', '"---"']
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert list(df.columns) == ["Notes", "State", "Age Group", "Age Group Code", "Deaths", "Population", "Crude Rate"]
    assert len(df) == 25 and df["Age Group"].iloc[0] == "< 1 year" and df["Notes"].iloc[-1] == "Total"
    assert df["Deaths"].isna().sum() == 4


def test_pipes_inside_the_values_of_a_table_aligned_by_spaces_are_no_delimiter(tmp_path: Path) -> None:
    """HMMER's tables: columns aligned by spaces, ids holding pipes ('sp|P94328|GNB1_HUMAN'). Split at
    the pipes they made three columns of garbage. A table split by pipes whose values hold two
    spaces stays one."""
    f = tmp_path / "hits.tblout"
    f.write_text("# target name  accession  query name  E-value  score\n" + "".join(
        f"Dom{i:<8} PF{i:05d}.3  sp|P{i:05d}|G{i}_HUMAN    {i}.5e-10   {100 + i}.3   {i % 3}.1\n" for i in range(20)))
    prof = profile_file(f, tmp_path)
    assert all(t.delimiter != "|" for t in prof.tables)
    g = tmp_path / "notes.txt"
    g.write_text("id | name | notes\n" + "".join(f"{i} | n{i} | entry  {i}\n" for i in range(20)))
    assert profile_file(g, tmp_path).tables[0].delimiter == "|"


def test_thousands_grouped_by_spaces(tmp_path: Path) -> None:
    """French and SI tables group thousands with a space ("8 886 524"): the column was text."""
    space = " "
    rows = [f"Région {i};{8 + i}{space}{886 + i:03d}{space}524;{15096 + i},21" for i in range(12)]
    f = tmp_path / "regions.csv"
    f.write_text("Région;Population;Revenu médian\n" + "\n".join(rows) + "\n", encoding="utf-8")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert df["Population"].tolist()[:2] == [8886524, 9887524] and df["Revenu médian"].iloc[0] == 15096.21
    assert prof.loader_check.verified, prof.loader_check


def test_rows_of_bare_delimiters_under_the_data_are_not_rows(tmp_path: Path) -> None:
    """A spreadsheet's export pads with empty columns and ends with rows of commas: pandas read
    those as rows of NaN (95 rows where the profile counted 90, the loader check failed)."""
    rows = [f"1/{i % 28 + 1}/2023,Rent,rent #{i},{40 + i}.5,Alex,,,," for i in range(20)]
    f = tmp_path / "budget.csv"
    f.write_text("Date,Category,Description,Amount,Paid By,,,,\r\n" + "\r\n".join(rows + [",,,,,,,,"] * 5) + "\r\n")
    prof, ns = profile_and_load(f)
    assert ns["data"].shape == (20, 5) and prof.tables[0].n_rows == 20
    assert prof.loader_check.verified, prof.loader_check


def test_a_survey_export_with_its_questions_and_import_ids_under_the_names(tmp_path: Path) -> None:
    """Qualtrics writes three header rows: the names, each question's text, then a JSON object per
    column. The JSON row, nearest the data, named the columns ('{"ImportId": "QID1"}')."""
    names = '"StartDate","Progress","Q1","Q2_1"'
    questions = '"Start Date","Progress","How satisfied are you?","Please rate: - Speed"'
    ids = ",".join(f'"{{""ImportId"": ""{q}""}}"' for q in ("startDate", "progress", "QID1", "QID2_1"))
    rows = [f'"2023-10-0{i % 9 + 1} 09:03:00","{20 + i}","Somewhat satisfied","{i % 5 + 1}"' for i in range(15)]
    f = tmp_path / "survey.csv"
    f.write_text("\ufeff" + "\n".join([names, questions, ids, *rows]) + "\n", encoding="utf-8")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert list(df.columns) == ["StartDate", "Progress", "Q1", "Q2_1"] and df.shape == (15, 4)
    assert df["Progress"].dtype == "int64"
    assert any("How satisfied are you?" in n for n in prof.tables[0].notes)
    assert prof.loader_check.verified, prof.loader_check


def test_three_decimals_after_a_comma_in_a_table_split_by_semicolons(tmp_path: Path) -> None:
    """EEA's air-quality export: semicolons, every value with three decimals after a comma
    ('21,485'). Read as thousands, each value was 1,000 times too big."""
    rows = [f"FR;STA-FR{i:05d};PM10;{10 + i},{(i * 37) % 1000:03d};µg/m3;2022-11-{i % 28 + 1:02d} 00:00:00 +01:00"
            for i in range(20)]
    f = tmp_path / "aq.csv"
    f.write_text("Countrycode;Station;Pollutant;Concentration;Unit;DatetimeBegin\n" + "\n".join(rows) + "\n", encoding="utf-8")
    prof, ns = profile_and_load(f)
    assert ns["data"]["Concentration"].iloc[1] == 11.037
    assert prof.tables[0].options.get("decimal") == ","


def test_a_space_after_each_comma_of_the_header_only(tmp_path: Path) -> None:
    """NOAA CO-OPS water levels: 'Date Time, Water Level, Sigma, Quality ' over rows with no
    spaces. pandas kept the spaces in the names (' Water Level')."""
    rows = [f"2023-08-01 00:{i * 6 % 60:02d},{0.8 + i / 100:.3f},0.003,p" for i in range(20)]
    f = tmp_path / "wl.csv"
    f.write_text("Date Time, Water Level, Sigma, Quality \n" + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    assert list(ns["data"].columns) == ["Date Time", "Water Level", "Sigma", "Quality"] and ns["data"].shape == (20, 4)
    assert prof.loader_check.verified, prof.loader_check


def test_a_long_block_of_query_notes_under_the_rows(tmp_path: Path) -> None:
    """CDC WONDER ends its exports with twenty lines and more of query notes, parted by '---'
    rules and headed 'Query Parameters:'. The notes past the last rows looked at were read as
    rows, '---' as a missing value."""
    rows = [f'\t"State {s}"\t"{s:02d}"\t"{y}"\t{100 + s * 7 + y % 3}\t{10 + s / 10:.1f}' for s in range(1, 30) for y in range(2017, 2022)]
    notes = ['"---"', '"Dataset: Underlying Cause of Death"', '"Query Parameters:"', '"Group By: State; Year"',
             '"Show Totals: True"', '"---"', '"Help: See the help page for more information."', '"---"',
             '"Query Date: Feb 12, 2024 3:48:21 PM"', '"---"', '"Messages:"', '"1. Rows with zero values are hidden."',
             '"---"', '"Caveats:"', '"1. Death rates are flagged as Unreliable when the numerator is 20 or less."']
    f = tmp_path / "Underlying Cause of Death.txt"
    f.write_text('"Notes"\t"State"\t"State Code"\t"Year"\t"Deaths"\t"Crude Rate"\n' + "\n".join(rows + notes) + "\n")
    prof, ns = profile_and_load(f)
    assert ns["data"].shape == (145, 6) and ns["data"]["Deaths"].dtype == "int64"
    assert any("Query Parameters:" in n for n in prof.tables[0].notes)


def test_rows_of_annotations_marked_under_the_names(tmp_path: Path) -> None:
    """Perseus writes the names, then a row of column types ('#!{Type}E') and one of groups
    ('#!{C:Group}Ctrl'): the two were taken for the header ('#!{Type}E #!{C:Group}Ctrl', 'E Ctrl')
    and the names for a title."""
    names = ["LFQ intensity Ctrl_1", "LFQ intensity Ctrl_2", "LFQ intensity EGF_1", "Gene names"]
    rows = [f"{28 + i / 10:.3f}\t{27 + i / 9:.3f}\t{29 + i / 11:.3f}\tG{i}" for i in range(25)]
    f = tmp_path / "matrix.txt"
    f.write_text("\t".join(names) + "\n#!{Type}E\tE\tE\tT\n#!{C:Group}Ctrl\tCtrl\tEGF\t\n" + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    assert list(ns["data"].columns) == names and ns["data"].shape == (25, 4)
    assert any("#!{C:Group}" in n for n in prof.tables[0].notes)
    assert prof.loader_check.verified, prof.loader_check


def test_fields_split_by_dollar_signs(tmp_path: Path) -> None:
    """The FDA's adverse event files (FAERS) split their fields with '$': they were text documents.
    Sentences with as many amounts on each line stay a document."""
    rows = [f"{143799795 + i}${14379979 + i}${i % 5 + 1}$F$$2023101{i % 10}${20 + i}$YR${'M' if i % 2 else 'F'}${50 + i / 10:.1f}$KG"
            for i in range(20)]
    f = tmp_path / "DEMO23Q4.txt"
    f.write_text("primaryid$caseid$caseversion$i_f_code$event_dt$mfr_dt$age$age_cod$sex$wt$wt_cod\n" + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    assert ns["data"].shape == (20, 11) and ns["data"]["wt"].iloc[1] == 50.1
    prose = tmp_path / "report.txt"
    prose.write_text("".join(f"In quarter {i} the firm earned ${i + 5}M, spent ${i + 2}M {'on staff ' * (i % 3)}and kept ${i}M.\n"
                             for i in range(20)))
    assert profile_file(prose, tmp_path).tables == [] or profile_file(prose, tmp_path).tables[0].delimiter != "$"


def test_a_wide_export_whose_rows_fill_few_fields(tmp_path: Path) -> None:
    """A reference manager's export: 12 fields named on the first line, each row filling a few of
    them, differently. The rows agreed too little to be taken for data: a row near the end was
    the header, the 36 above it titles, and 37 of 40 records were lost."""
    names = ["Key", "Item Type", "Publication Year", "Author", "Title", "ISBN", "ISSN", "DOI", "Pages", "Volume",
             "Publisher", "Notes"]
    rows = []
    for i in range(40):
        cells = [f"K{i:04d}", ["journalArticle", "book", "bookSection"][i % 3], str(1990 + i % 30), f"Author {i}",
                 f"A title about site {i}", "", "", "", "", "", "", ""]
        for j in range(5, 12):
            if (i * j) % 4 == 0:
                cells[j] = [f"978-{i}", f"0003-{i:03d}X", f"10.1017/{i}", f"{i}-{i + 9}", str(i % 20), "Press", "note"][j - 5]
        rows.append(",".join(f'"{c}"' for c in cells))
    f = tmp_path / "library.csv"
    f.write_text(",".join(f'"{n}"' for n in names) + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    prof, ns = profile_and_load(f)
    assert list(ns["data"].columns) == names and ns["data"].shape == (40, 12)


def test_a_headerless_table_of_text_keeps_its_first_row(tmp_path: Path) -> None:
    f = tmp_path / "places.csv"
    f.write_text("".join(f"Place {i},Region {i % 4},Country {i % 3}\n" for i in range(20)))
    prof, ns = profile_and_load(f)
    assert len(ns["data"]) == 20


def test_a_tab_separated_file_padded_to_widths(tmp_path: Path) -> None:
    """BLS's LABSTAT files pad fields to a width ('CUSR0000SA0      \\t2018\\tM01\\t     252.542'):
    the names and the ids kept their spaces, and no filter on an id matched."""
    rows = [f"{sid:<30}\t{2018 + i // 12}\tM{i % 12 + 1:02d}\t{250 + i / 3:12.3f}\t" for sid in ("CUSR0000SA0", "CUUR0000SA0")
            for i in range(15)]
    f = tmp_path / "cu.data.1.AllItems"
    f.write_text(f"{'series_id':<30}\tyear\tperiod\t{'value':>12}\tfootnote_codes\n" + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert list(df.columns) == ["series_id", "year", "period", "value", "footnote_codes"]
    assert (df["series_id"] == "CUSR0000SA0").sum() == 15 and df["value"].iloc[0] == 250.0
    assert prof.loader_check.verified, prof.loader_check


@pytest.mark.parametrize(("encoding", "names", "place"), [
    ("cp932", ["都道府県", "総数", "男", "女"], "北海道"),  # Japan's e-Stat writes Shift_JIS
    ("gb18030", ["省份", "人口", "男性", "女性"], "广东省"),  # China's statistics portals write GBK
])
def test_japanese_and_chinese_exports_decode(tmp_path: Path, encoding: str, names: list[str], place: str) -> None:
    """A Shift_JIS or GBK file was decoded as latin-1: every name and label garbled."""
    rows = [f"{place if i == 0 else f'{place}{i}'},{5000 + i},{2400 + i},{2600 + i}" for i in range(20)]
    f = tmp_path / "population.csv"
    f.write_bytes((",".join(names) + "\n" + "\n".join(rows) + "\n").encode(encoding))
    prof, ns = profile_and_load(f)
    assert prof.encoding == encoding and list(ns["data"].columns) == names and ns["data"].iloc[0, 0] == place


def test_western_eight_bit_text_stays_cp1252(tmp_path: Path) -> None:
    f = tmp_path / "orte.csv"
    f.write_bytes("Ort,Größe,Café\n".encode("cp1252") + "".join(f"Zürich {i},{i},Straße\n" for i in range(10)).encode("cp1252"))
    assert profile_file(f, tmp_path).encoding == "cp1252"
