"""Messy table layouts, each in a small generated file, loaded for real by the generated loader:
summary rows under the data, two-row headers over repeated names, headers above sparse rows,
headerless one-column lists, and sparse tables with rows of empty cells."""

from __future__ import annotations

import random
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from tests.servers.profiling.loading import profile_and_load

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def _only_table(data: object) -> pd.DataFrame:
    if isinstance(data, dict):
        assert len(data) == 1, list(data)
        (data,) = data.values()
    assert isinstance(data, pd.DataFrame)
    return data


# -- footers ---------------------------------------------------------------------------------


def test_summary_rows_under_monthly_values_are_left_out_and_noted(tmp_path: Path) -> None:
    f = tmp_path / "rainfall.csv"
    rows = ["Month,Rain (mm),Days"] + [f"{m},{10 + i * 3.5},{i + 2}" for i, m in enumerate(MONTHS)]
    rows += ["Average,29.25,7.5", "HIGHEST:,48.5,13", "lowest.,10.0,2"]
    f.write_text("\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert df["Month"].tolist() == MONTHS
    assert df["Rain (mm)"].dtype == "float64" and df["Days"].dtype == "int64"
    (t,) = prof.tables
    assert t.n_rows == 12
    footers = [n for n in t.notes if "summary row" in n]
    assert len(footers) == 3 and "Average 29.25 7.5" in footers[0]


def test_a_label_under_a_column_of_years_is_a_footer_but_a_provisional_year_is_data(tmp_path: Path) -> None:
    f = tmp_path / "yearly.csv"
    f.write_text("Year,Fires,Acres\n2018,100,2000\n2019,120,2500\n2020,90,1800\n2021p,95,1900\n"
                 "Period average,101,2050\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert df["Year"].tolist() == [2018, 2019, 2020, 2021]  # the provisional mark 'p' dropped, the year a number
    assert df["Fires"].tolist() == [100, 120, 90, 95]
    assert any("Period average" in n for n in prof.tables[0].notes)


def test_a_last_row_named_otherwise_stays_data_unless_it_adds_up(tmp_path: Path) -> None:
    """A transit feed's station under its numbered stops is data; a "United States" under states
    is a summary only because its numbers are the sums of theirs."""
    f = tmp_path / "stops.txt"
    rows = ["stop_id,stop_name,stop_lat,stop_lon,location_type"]
    rows += [f"{i:05d},Stop {i},37.{700 + i},-122.{400 + i},0" for i in range(1, 30)]
    rows += ["place_CS,Central Station,37.776,-122.394,1"]
    f.write_text("\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    assert len(ns["data"]) == 30 and ns["data"]["stop_id"].iloc[-1] == "place_CS"
    assert not any("summary row" in n for n in prof.tables[0].notes)
    g = tmp_path / "states.csv"
    g.write_text("FIPS,Reports,Losses\n01,100,2000\n02,120,2500\n04,90,1800\nUnited States,310,6300\n")
    prof, ns = profile_and_load(g)
    assert len(ns["data"]) == 3 and any("United States" in n for n in prof.tables[0].notes)


def test_last_rows_with_empty_cells_stay_data(tmp_path: Path) -> None:
    f = tmp_path / "ranks.csv"
    f.write_text("Rank,State,Reports\n1,Florida,900\n2,Georgia,800\n3,Nevada,700\n"
                 ",District of Columbia,50\n,Puerto Rico,40\n")
    prof, ns = profile_and_load(f)
    assert ns["data"]["State"].tolist()[-2:] == ["District of Columbia", "Puerto Rico"]
    assert prof.tables[0].n_rows == 5


def test_summary_lines_after_a_blank_row_are_footers_not_a_second_table(tmp_path: Path) -> None:
    f = tmp_path / "contact.csv"
    f.write_text(
        "Reports by contact method,,,,\n"
        ",,,,\n"
        "Method,Reports,Share,Loss,Median\n"
        'Email,"371,651",25%,$502M,$600\n'
        'Phone,"284,659",19%,$948M,"$1,500"\n'
        'Text,"246,784",16%,$470M,"$1,000"\n'
        ",,,,\n"
        'Number of reports,"2,600,678",,,\n'
        'Reports with a method,"1,509,002",58% of total,,\n'
        ",,,,\n"
        "Source: the survey office,,,,\n"
    )
    prof, ns = profile_and_load(f)
    df = _only_table(ns["data"])
    assert df["Method"].tolist() == ["Email", "Phone", "Text"]
    assert df["Reports"].tolist() == [371651, 284659, 246784]
    notes = prof.tables[0].notes
    assert any("Number of reports" in n for n in notes) and any("Source" in n for n in notes)


def test_summary_rows_of_a_sheet_are_left_out(tmp_path: Path) -> None:
    f = tmp_path / "monthly.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Rain"
    ws.append(["Monthly rainfall"])
    ws.append(["Month", "Rain", "Days"])
    for i, m in enumerate(MONTHS):
        ws.append([m, 10 + i * 2.5, i])
    ws.append(["Total", 285.0, 66])
    ws.append(["Max", 37.5, 11])
    wb.save(f)
    prof, ns = profile_and_load(f)
    df = ns["data"]["Rain"]
    assert df["Month"].tolist() == MONTHS and df["Rain"].dtype == "float64"
    assert sum("summary row" in n for n in prof.tables[0].notes) == 2


# -- two-row headers -------------------------------------------------------------------------

SITE_NAMES = ["Date", "SiteA Coliform", "SiteA E.coli", "SiteB Coliform", "SiteB E.coli"]


def test_site_names_over_repeated_measures_are_kept_in_the_names(tmp_path: Path) -> None:
    f = tmp_path / "beaches.csv"
    f.write_text(
        ",SiteA,,SiteB,\n"
        "Date,Coliform,E.coli,Coliform,E.coli\n"
        "2020-06-01,5,3,7,2\n2020-06-02,6,1,8,0\n2020-06-03,4,2,9,1\n"
    )
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert list(df.columns) == SITE_NAMES
    assert [c.name for c in prof.tables[0].columns] == SITE_NAMES
    assert df["SiteB Coliform"].tolist() == [7, 8, 9] and df["Date"].tolist()[0] == "2020-06-01"


def test_merged_site_cells_of_a_sheet_become_combined_names(tmp_path: Path) -> None:
    f = tmp_path / "beaches.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Samples"
    ws.append(["Bacteria counts at the beaches"])
    ws.append([None, "North Beach", None, None, "South Beach", None, None])
    ws.merge_cells("B2:D2")
    ws.merge_cells("E2:G2")
    ws.append(["Date", "Coliform", "E.coli", "Enterococci", "Coliform", "E.coli", "Enterococci"])
    for i in range(6):
        ws.append([f"2020-06-0{i + 1}", i, i + 1, i + 2, i + 3, i + 4, i + 5])
    wb.save(f)
    prof, ns = profile_and_load(f)
    df = ns["data"]["Samples"]
    assert list(df.columns) == [
        "Date", "North Beach Coliform", "North Beach E.coli", "North Beach Enterococci",
        "South Beach Coliform", "South Beach E.coli", "South Beach Enterococci",
    ]
    assert df.shape == (6, 7) and df["South Beach Enterococci"].tolist() == [5, 6, 7, 8, 9, 10]


def test_a_units_row_above_distinct_names_stays_a_note(tmp_path: Path) -> None:
    f = tmp_path / "chem.csv"
    f.write_text(",,(ppm),(ppm)\nSite,Depth,Al,Si\nA,0.1,1.0,2.0\nB,0.2,1.5,2.5\n")
    _, ns = profile_and_load(f)
    assert list(ns["data"].columns) == ["Site", "Depth", "Al", "Si"]


# -- header detection ------------------------------------------------------------------------


def test_a_header_over_sparse_first_rows_is_the_header(tmp_path: Path) -> None:
    f = tmp_path / "members.csv"
    lines = ["id,name,age,city,score"]
    for i in range(40):
        age = "" if i % 2 else str(20 + i)
        city = "" if i < 10 else "Oslo"
        score = "" if i % 3 else "1.5"
        lines.append(f"{i},n{i},{age},{city},{score}")
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert list(df.columns) == ["id", "name", "age", "city", "score"]
    assert df["id"].tolist() == list(range(40)) and prof.tables[0].n_rows == 40
    assert df["age"].dtype == "float64"


def test_headerless_one_column_lists_keep_their_first_value(tmp_path: Path) -> None:
    numbers = tmp_path / "numbers.csv"
    numbers.write_text("\n".join(str(1000 + i * 7) for i in range(20)) + "\n")
    codes = tmp_path / "codes.csv"
    codes.write_text("\n".join(f"AB{i:03d}" for i in range(15)) + "\n")
    sheet = tmp_path / "values.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Values"
    for i in range(15):
        ws.append([2.5 * i + 0.5])
    wb.save(sheet)

    prof, ns = profile_and_load(numbers)
    assert prof.tables[0].options.get("header", 0) is None
    assert ns["data"].iloc[:, 0].tolist() == [1000 + i * 7 for i in range(20)]
    prof, ns = profile_and_load(codes)
    assert ns["data"].iloc[:, 0].tolist() == [f"AB{i:03d}" for i in range(15)]
    prof, ns = profile_and_load(sheet)
    assert ns["data"]["Values"].iloc[:, 0].tolist() == [2.5 * i + 0.5 for i in range(15)]


def test_a_one_column_list_of_names_keeps_its_header(tmp_path: Path) -> None:
    f = tmp_path / "states.csv"
    f.write_text("Name\nConnecticut\nMaine\nVermont\n")
    _, ns = profile_and_load(f)
    assert ns["data"]["Name"].tolist() == ["Connecticut", "Maine", "Vermont"]


# -- sparse tables ---------------------------------------------------------------------------


def _survey(f: Path, n: int, seed: int = 7) -> list[list[str]]:
    rng = random.Random(seed)
    rows: list[list[str]] = []
    lines = ["q1,q2,q3,q4,q5,comment"]
    for i in range(n):
        if i % 7 == 0:
            lines.append(",,,,,")  # a respondent who answered nothing
            continue
        row = [str(rng.randint(1, 5)) if rng.random() < 0.5 else "" for _ in range(5)]
        row.append(rng.choice(["", "", "good", "too long"]))
        if not any(row):
            row[2] = "3"
        rows.append(row)
        lines.append(",".join(row))
    f.write_text("\n".join(lines) + "\n")
    return rows


def test_a_sparse_survey_with_empty_rows_stays_one_table(tmp_path: Path) -> None:
    f = tmp_path / "survey.csv"
    rows = _survey(f, 400)
    prof, ns = profile_and_load(f)
    assert len(prof.tables) == 1
    df = _only_table(ns["data"])
    assert list(df.columns) == ["q1", "q2", "q3", "q4", "q5", "comment"]
    assert len(df) == len(rows) == prof.tables[0].n_rows
    assert df["q3"].dtype == "float64"
    expected = [float(r[2]) if r[2] else None for r in rows]
    assert [None if pd.isna(v) else v for v in df["q3"]] == expected


def test_a_table_after_blank_rows_with_its_own_header_is_still_a_second_table(tmp_path: Path) -> None:
    f = tmp_path / "two.csv"
    f.write_text("Site,Count\nA,1\n,2\nB,3\n,,\n,,\nYear,Rain,Snow\n2020,1.5,0\n2021,2.5,3\n")
    prof, ns = profile_and_load(f)
    assert len(prof.tables) == 2
    first, second = ns["data"].values()
    assert first["Count"].tolist() == [1, 2, 3]
    assert list(second.columns) == ["Year", "Rain", "Snow"] and second["Year"].tolist() == [2020, 2021]


def test_a_rule_under_an_aligned_header_is_skipped(tmp_path: Path) -> None:
    f = tmp_path / "daily.dat"
    lines = ["DAILY OBSERVATIONS", "DATE      STN   TMAX", "--------  ---  -----"]
    lines += [f"202401{d:02d}  APT  {d * 1.5:5.1f}" for d in range(1, 11)]
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert list(df.columns) == ["DATE", "STN", "TMAX"] and prof.tables[0].n_rows == 10
    assert df["STN"].tolist()[0] == "APT" and df["TMAX"].dtype == "float64"


def test_summary_rows_at_the_end_of_a_file_bigger_than_its_sample_are_skipped(tmp_path: Path) -> None:
    from lakeboard.servers.profiling.text_sample import HEAD_BYTES

    f = tmp_path / "orders.csv"
    row = "2024-01-01,north,12,3.5\n"
    n = (2 * HEAD_BYTES) // len(row)
    with f.open("w") as out:
        out.write("date,region,qty,price\n" + row * n + f"Total,,{12 * n},\nAverage,,12,3.5\n")
    prof, ns = profile_and_load(f)
    t = prof.tables[0]
    assert t.options.get("skipfooter") == 2 and t.n_rows == n
    df = ns["data"]
    assert len(df) == n and df["qty"].dtype == "int64" and df["date"].iloc[-1] == "2024-01-01"


def test_a_sparse_sheet_with_a_blank_row_under_its_header_stays_one_table(tmp_path: Path) -> None:
    f = tmp_path / "survey.xlsx"
    rng = random.Random(3)
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Answers"
    ws.append(["q1", "q2", "q3", "comment"])
    ws.append([None] * 4)
    answered = 0
    for i in range(200):
        if i % 6 == 0:
            ws.append([None] * 4)
            continue
        row = [rng.choice([None, 1, 2, 3]) for _ in range(3)] + [rng.choice([None, "ok"])]
        if not any(row):
            row[1] = 2
        ws.append(row)
        answered += 1
    wb.save(f)
    prof, ns = profile_and_load(f)
    assert len(prof.tables) == 1 and prof.tables[0].n_rows == answered
    df = ns["data"]["Answers"]
    assert list(df.columns) == ["q1", "q2", "q3", "comment"] and len(df) == answered


def test_a_row_of_field_definitions_under_the_header_is_skipped(tmp_path: Path) -> None:
    # the RDB layout of hydrological exports: '#' comments, the names, then each field's width and
    # type (5s: text, 14n: number, 20d: date), then the data
    f = tmp_path / "flow.rdb"
    lines = ["#", "# Stream flow, daily means", "# retrieved: 2024-02-01", "#",
             "agency\tsite_no\tdatetime\tflow\tflow_cd", "5s\t15s\t20d\t14n\t10s"]
    lines += [f"AG\t0042\t2024-01-{d:02d}\t{100 + d * 7}\tA" for d in range(1, 21)]
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert list(df.columns) == ["agency", "site_no", "datetime", "flow", "flow_cd"]
    assert df.shape == (20, 5) and df["flow"].tolist()[:2] == [107, 114]
    # a bare comment mark names nothing
    assert prof.tables[0].title == "# Stream flow, daily means" and "titled '# Stream flow" in prof.summary


def test_a_header_of_months_names_a_wide_table(tmp_path: Path) -> None:
    """Columns headed by months ("2024-01"): the header was read as data, as years once were."""
    f = tmp_path / "monthly.csv"
    f.write_text("Region,2024-01,2024-02,2024-03\n" + "".join(f"R{i},{i},{i * 2},{i * 3}\n" for i in range(10)))
    prof, ns = profile_and_load(f)
    assert list(ns["data"].columns) == ["Region", "2024-01", "2024-02", "2024-03"] and ns["data"].shape == (10, 4)
    dates = tmp_path / "events.csv"  # dates in the data rows are data
    dates.write_text("Name,Start,End\n" + "".join(f"E{i},2024-01-{i + 1:02d},2024-02-{i + 1:02d}\n" for i in range(10)))
    prof, ns = profile_and_load(dates)
    assert list(ns["data"].columns) == ["Name", "Start", "End"] and ns["data"].shape == (10, 3)


def test_a_rule_under_the_header_and_a_table_drawn_with_pipes(tmp_path: Path) -> None:
    """A rule of dashes under the names was taken for a second header row ("name ----"); a table
    drawn with pipes ("| site | temp |") had an empty column at each border."""
    ruled = tmp_path / "ruled.csv"
    ruled.write_text("name,value,unit\n----,-----,----\n" + "".join(f"n{i},{i * 1.5},kg\n" for i in range(20)))
    piped = tmp_path / "table.txt"
    piped.write_text("| site | temp | rain |\n|------|:----:|------|\n"
                     + "".join(f"| s{i} | {i * 1.1:.1f} | {i * 2} |\n" for i in range(12)))
    prof, ns = profile_and_load(ruled)
    assert list(ns["data"].columns) == ["name", "value", "unit"] and ns["data"].shape == (20, 3)
    prof, ns = profile_and_load(piped)
    assert list(ns["data"].columns) == ["site", "temp", "rain"] and ns["data"]["rain"].tolist()[:3] == [0, 2, 4]
    assert prof.loader_check.verified, prof.loader_check


def test_a_table_between_pipes_with_no_rule_and_padded_names(tmp_path: Path) -> None:
    """HEASARC's browse tables: each field padded to its column's width, a pipe at each edge, no
    rule under the names. The names kept their padding ('ra      ') and the empty field before the
    first pipe made a column of its own ('Unnamed: 0')."""
    f = tmp_path / "grbs.txt"
    f.write_text("|name        |ra      |dec     |t90     |\n" + "".join(
        f"|GRB2312{i:02d}555|{10 + i * 3.1:8.4f}|{-5 + i:+8.4f}|{i * 1.7:8.3f}|\n" for i in range(15)))
    prof, ns = profile_and_load(f)
    assert list(ns["data"].columns) == ["name", "ra", "dec", "t90"] and ns["data"].shape == (15, 4)
    assert ns["data"]["dec"].iloc[0] == -5.0
    assert prof.loader_check.verified, prof.loader_check


@pytest.mark.parametrize(("second", "names"), [
    # units join the names they stand under
    ("s,degC,hPa,%", ["time s", "temperature degC", "pressure hPa", "humidity %"]),
    # a database export's column types are skipped; they were taken for the names, and the names for a title
    ("int,varchar(20),float64,DATE", ["time", "temperature", "pressure", "humidity"]),
])
def test_a_row_under_the_names(tmp_path: Path, second: str, names: list[str]) -> None:
    f = tmp_path / "met.csv"
    lines = ["time,temperature,pressure,humidity", second]
    lines += [f"{i},{20 + i * 0.1:.1f},{1000 + i},{50 + i % 7}" for i in range(30)]
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert list(df.columns) == names and prof.tables[0].title is None
    assert df.shape == (30, 4) and df[names[2]].tolist()[:2] == [1000, 1001]


def test_a_logger_export_with_names_units_and_sampling_rows_is_read(tmp_path: Path) -> None:
    # a data logger's table: a line about the logger (wider than the table), the names, their
    # units, how each was sampled, then the records
    f = tmp_path / "station.dat"
    lines = ['"LOG5","Station1","M1000","1234","M1000.Std","CPU:met.prog","5678","Hourly"',
             '"TIMESTAMP","RECORD","AirT_Avg","RH","WS_Avg"', '"TS","RN","Deg C","%","meters/second"',
             '"","","Avg","Smp","Avg"']
    lines += [f'"2024-01-01 {h:02d}:00:00",{h},{5 + h * 0.25:.2f},{60 + h},{2 + h * 0.5:.1f}' for h in range(24)]
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert list(df.columns) == ["TIMESTAMP TS", "RECORD RN", "AirT_Avg Deg C Avg", "RH % Smp", "WS_Avg meters/second Avg"]
    assert df.shape == (24, 5) and df["RECORD RN"].tolist()[:3] == [0, 1, 2]
    assert prof.tables[0].title.startswith("LOG5 Station1")


def test_excels_delimiter_line_is_no_title(tmp_path: Path) -> None:
    f = tmp_path / "export.csv"
    f.write_text("sep=;\nname;value\n" + "".join(f"n{i};{i * 1.5}\n" for i in range(20)))
    prof, ns = profile_and_load(f)
    assert list(ns["data"].columns) == ["name", "value"] and ns["data"].shape == (20, 2)
    assert prof.tables[0].title is None and "titled" not in prof.summary


def test_a_section_mark_is_no_title_and_a_header_sentence_declares_the_missing_value(tmp_path: Path) -> None:
    """A point-data export wraps its header in "-BEGIN HEADER-" and "-END HEADER-", and one of its
    lines gives the value of missing data at its end."""
    f = tmp_path / "point_daily.csv"
    rows = [f"2020,1,{d},{-5 + d / 4:.2f},{-999 if d == 7 else d / 2}" for d in range(1, 32)]
    f.write_text("-BEGIN HEADER-\nSatellite and Reanalysis Daily Data\n"
                 "The value for missing source data that cannot be computed: -999\n"
                 "-END HEADER-\nYEAR,MO,DY,T2M,PRECTOT\n" + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    assert prof.tables[0].title == "Satellite and Reanalysis Daily Data"
    df = ns["data"]
    assert df.shape == (31, 5) and df["PRECTOT"].isna().sum() == 1 and df["PRECTOT"].min() > 0


def test_key_value_lines_over_a_blank_line_over_the_table_are_notes(tmp_path: Path) -> None:
    """An instrument export opens with "key,value" lines, then a blank line, then its table. The
    last key/value line was taken for a two-column header, and the table for its rows."""
    f = tmp_path / "station.csv"
    rows = [f"2024-02-{d:02d},{5 + d / 3:.1f},{d / 4 - 2:.1f},{['0.0', 'T', '1.2'][d % 3]}" for d in range(1, 29)]
    f.write_text("Station,KSEA\nElevation,131\nUnits,metric\n\nDate,Tmax,Tmin,Precip\n" + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    t = prof.tables[0]
    assert len(prof.tables) == 1 and [c.name for c in t.columns] == ["Date", "Tmax", "Tmin", "Precip"]
    assert t.notes[:3] == ["Station KSEA", "Elevation 131", "Units metric"]
    assert ns["data"].shape == (28, 4) and ns["data"]["Tmax"].dtype == float
    assert prof.loader_check.verified, prof.loader_check


def test_an_ephemeris_table_lies_between_its_start_and_end_marks(tmp_path: Path) -> None:
    """JPL Horizons writes its rows between "$$SOE" and "$$EOE", named by the line above a rule of
    asterisks; the names were lost (columns 0, 1, 2 ...)."""
    rule = "*" * 79
    rows = [f" 2024-Jan-{d:02d} 00:00, , , {270 + d * 0.5:.5f}, {-23.5 + d * 0.1:.5f},   1.{d % 10}0," for d in range(1, 31)]
    f = tmp_path / "horizons_results.txt"
    f.write_text("\n".join([rule, "JPL/HORIZONS                      499 Mars", "Target body name: Mars (499)", rule,
                            " Date__(UT)__HR:MN, , , R.A._(ICRF), DEC__(ICRF),  APmag,", rule, "$$SOE", *rows, "$$EOE",
                            rule, "Column meaning:", " TIME  Times PRIOR to 1962 are UT1", rule]) + "\n")
    prof, ns = profile_and_load(f)
    t = prof.tables[0]
    assert [c.name for c in t.columns] == ["Date__(UT)__HR:MN", "Unnamed: 1", "Unnamed: 2", "R.A._(ICRF)", "DEC__(ICRF)",
                                           "APmag"]
    df = ns["data"]
    assert df.shape == (30, 6) and df["DEC__(ICRF)"].iloc[0] == -23.4
    assert t.title == "JPL/HORIZONS 499 Mars" and "Column meaning:" in t.notes and rule not in t.notes
    assert prof.loader_check.verified, prof.loader_check


def test_an_icartt_file_takes_its_header_length_from_its_first_line(tmp_path: Path) -> None:
    # ICARTT (format 1001): "N, 1001", then N - 1 header lines of which the last names the columns;
    # the lines above hold commas too ("PI, name"), fields are written after ", "
    header = ["Someone, Ana", "Institute", "Aircraft", "Campaign", "1, 1", "2024, 01, 05, 2024, 02, 01", "1",
              "Start_UTC, seconds", "2", "1, 1", "-9999, -9999", "O3, ppbv", "CO, ppbv", "0", "1"]
    lines = [f"{len(header) + 2}, 1001", *header, "Start_UTC, O3, CO"]
    lines += [f"{36000 + i * 10}, {30 + i * 0.5:.1f}, {100 + i}" for i in range(40)]
    f = tmp_path / "flight_20240105.ict"
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert list(df.columns) == ["Start_UTC", "O3", "CO"] and df.shape == (40, 3)
    assert df["O3"].tolist()[:2] == [30.0, 30.5] and prof.tables[0].n_rows == 40


def test_a_header_repeated_among_the_data_starts_a_table_of_its_own(tmp_path: Path) -> None:
    # two exports joined end to end: the second's header is no row of data
    f = tmp_path / "joined.csv"
    lines = ["date,value"] + [f"2024-01-{d:02d},{d}" for d in range(1, 16)]
    lines += ["date,value"] + [f"2024-02-{d:02d},{d * 2}" for d in range(1, 16)]
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    assert [t.n_rows for t in prof.tables] == [15, 15]
    first, second = ns["data"].values()
    assert first["value"].tolist()[-1] == 15 and second["value"].tolist()[:2] == [2, 4]
    # joined from many: one table, with a note that says what to drop
    many = tmp_path / "many.csv"
    many.write_text("".join("date,value\n" + "".join(f"2024-{m:02d}-{d:02d},{d}\n" for d in (1, 2, 3)) for m in range(1, 31)))
    prof, ns = profile_and_load(many)
    assert len(prof.tables) == 1 and any("header line is repeated 29 times" in n for n in prof.tables[0].notes)
    assert len(ns["data"]) == 119


def test_a_series_written_with_its_index_keeps_its_name(tmp_path: Path) -> None:
    """pandas writes a one-column frame as ',sales' over 'date,value' rows: the header has one
    name beside the index's empty cell, and is no title."""
    s = pd.Series([0.5 + i / 10 for i in range(15)], index=pd.date_range("2020-01-01", periods=15), name="sales")
    s.to_csv(tmp_path / "sales.csv")
    prof, ns = profile_and_load(tmp_path / "sales.csv")
    df = ns["data"]
    assert prof.tables[0].header_row == 0 and prof.tables[0].title is None
    assert list(df.columns) == ["Unnamed: 0", "sales"] and len(df) == 15


def test_a_comment_block_longer_than_the_table_does_not_make_it_a_document(tmp_path: Path) -> None:
    """An RDB download of ten days carries a notice of twenty '#' lines: the lines that split at a
    tab were then a minority, and the file was a text document. The notice's banner is no title."""
    f = tmp_path / "site.rdb"
    lines = ["# " + "-" * 30 + " WARNING " + "-" * 30, "# Some of the data may be provisional."]
    lines += [f"# note line {i} about the site and its codes" for i in range(18)]
    lines += ["agency_cd\tsite_no\tdatetime\tdischarge\tcode", "5s\t15s\t20d\t14n\t10s"]
    lines += [f"USGS\t01646500\t2023-01-{d:02d}\t{800 + d}\tA" for d in range(1, 11)]
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    assert prof.kind == "table" and ns["data"].shape == (10, 5)
    assert ns["data"]["site_no"].iloc[0] == "01646500"
    assert prof.tables[0].title == "# Some of the data may be provisional."


def test_sentences_with_a_comma_each_are_a_document(tmp_path: Path) -> None:
    f = tmp_path / "notes.txt"
    f.write_text("# Project notes\n\nThis folder holds the exports, one per site.\n\nEach file has a header, "
                 "then its rows.\nValues are in mm, except for the snow.\nWrite to me, or to the whole team.\n")
    prof, _ = profile_and_load(f)
    assert prof.kind == "document"
    labelled = tmp_path / "sentiment.txt"  # a label and a sentence a line: a table
    labelled.write_text("".join(f"{'positive' if i % 2 else 'negative'}, I liked film number {i} a lot.\n" for i in range(20)))
    prof, _ = profile_and_load(labelled)
    assert prof.kind == "table" and prof.format == "csv" and len(prof.tables[0].columns) == 2


def test_commented_rows_over_a_header_are_notes(tmp_path: Path) -> None:
    """cBioPortal's clinical files: four '#' rows (display names, descriptions, types, priorities)
    split at tabs like the table, then the header. A '#' header over rows of values stays the
    header, its first name without the mark (VCF's '#CHROM', CAMS's '# Observation period')."""
    f = tmp_path / "data_clinical_patient.txt"
    lines = ["#Patient Identifier\tOverall Survival (Months)\tSex", "#Identifier of a patient.\tMonths survived.\tSex.",
             "#STRING\tNUMBER\tSTRING", "#1\t1\t1", "PATIENT_ID\tOS_MONTHS\tSEX"]
    lines += [f"P-{i:03d}\t{10 + i * 1.5}\t{'Male' if i % 2 else 'Female'}" for i in range(12)]
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    assert list(ns["data"].columns) == ["PATIENT_ID", "OS_MONTHS", "SEX"] and len(ns["data"]) == 12
    assert str(ns["data"]["OS_MONTHS"].dtype) == "float64"

    g = tmp_path / "features.csv"
    g.write_text("#featureID,mz,score\n" + "".join(f"f{i},{100 + i}.5,{i / 10}\n" for i in range(10)))
    prof, ns = profile_and_load(g)
    assert list(ns["data"].columns) == ["featureID", "mz", "score"] and len(ns["data"]) == 10


def test_a_directive_row_of_types_under_the_header_is_skipped(tmp_path: Path) -> None:
    """QIIME 2's sample metadata: '#q2:types' then a type per column, under the header."""
    f = tmp_path / "sample-metadata.tsv"
    lines = ["sample-id\tbody-site\tyear", "#q2:types\tcategorical\tnumeric"]
    lines += [f"S{i}\t{'gut' if i % 2 else 'skin'}\t{2008 + i % 3}" for i in range(10)]
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    assert list(ns["data"].columns) == ["sample-id", "body-site", "year"] and len(ns["data"]) == 10


def test_a_geo_series_matrix_is_read_between_its_table_marks(tmp_path: Path) -> None:
    """GEO's series matrix: '!Series_…' and '!Sample_…' attribute lines, then the expression
    table between '!series_matrix_table_begin' and '!series_matrix_table_end'."""
    f = tmp_path / "GSE1_series_matrix.txt"
    lines = ['!Series_title\t"Expression of tumours"', '!Series_geo_accession\t"GSE1"', "",
             '!Sample_title\t"T1"\t"T2"\t"N1"', '!Sample_geo_accession\t"GSM1"\t"GSM2"\t"GSM3"',
             "!series_matrix_table_begin", '"ID_REF"\t"GSM1"\t"GSM2"\t"GSM3"']
    lines += [f'"{200000 + i}_at"\t{5 + i / 7:.4f}\t{6 + i / 9:.4f}\t{7 + i / 11:.4f}' for i in range(20)]
    lines += ["!series_matrix_table_end"]
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert list(df.columns) == ["ID_REF", "GSM1", "GSM2", "GSM3"] and len(df) == 20
    assert str(df["GSM1"].dtype) == "float64" and any("Expression of tumours" in n for n in prof.tables[0].notes)


def test_an_arff_file_is_named_by_its_attributes(tmp_path: Path) -> None:
    """Weka's ARFF: '@attribute' lines name the columns, the rows follow '@data', '?' is missing."""
    f = tmp_path / "diabetes.arff"
    lines = ["% Pima Indians Diabetes", "@relation pima", "", "@attribute 'preg' numeric",
             "@attribute plas numeric", "@attribute 'body mass' real", "@attribute class {neg,pos}", "", "@data"]
    lines += [f"{i % 7},{100 + i},{'?' if i == 3 else 30 + i / 10},{'pos' if i % 3 else 'neg'}" for i in range(15)]
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert list(df.columns) == ["preg", "plas", "body mass", "class"] and len(df) == 15
    assert str(df["body mass"].dtype) == "float64" and df["body mass"].isna().sum() == 1


def test_an_empty_field_in_the_header_alone_does_not_shift_the_names(tmp_path: Path) -> None:
    """NOAA's tide predictions write 'Date \\t\\tDay\\tTime…': one field more in the header than in
    the rows, so pandas named the dates' column 'Unnamed: 1' and every name after it moved by one."""
    f = tmp_path / "annual.txt"
    lines = ["Annual Tide Predictions", "Station: 1", "", "Date \t\tDay\tTime\tPred(Ft)\tHigh/Low"]
    lines += [f"2023/01/{d:02d}\tSun\t04:0{d % 10} AM\t{4 + d / 10:.2f}\t{'H' if d % 2 else 'L'}" for d in range(1, 21)]
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert list(df.columns) == ["Date", "Day", "Time", "Pred(Ft)", "High/Low"] and len(df) == 20
    assert df["Date"].iloc[0] == "2023/01/01" and str(df["Pred(Ft)"].dtype) == "float64"


def test_a_frame_with_two_levels_of_columns_written_by_pandas(tmp_path: Path) -> None:
    """to_excel writes years over repeated measures ('2022' over 'Revenue, Cost'), then an empty
    row of index names: the years were folded into a title, the measures were 'Revenue.1', and the
    empty row made every number a float."""
    columns = pd.MultiIndex.from_product([["2022", "2023"], ["Revenue", "Cost"]])
    frame = pd.DataFrame([[100 + i, 50 + i, 110 + i, 55 + i] for i in range(8)], columns=columns,
                         index=pd.Index([f"S{i}" for i in range(8)], name="Store"))
    frame.to_excel(tmp_path / "financials.xlsx", sheet_name="Financials")
    prof, ns = profile_and_load(tmp_path / "financials.xlsx")
    df = ns["data"]["Financials"] if isinstance(ns["data"], dict) else ns["data"]
    assert list(df.columns)[1:] == ["2022 Revenue", "2022 Cost", "2023 Revenue", "2023 Cost"] and len(df) == 8
    assert str(df["2022 Revenue"].dtype) == "int64"


def test_a_pivot_table_written_by_pandas_is_named_by_its_index_and_columns(tmp_path: Path) -> None:
    """A pivot's sheet: the values' name over the months (the title), the columns' name in the
    first cell, then a row with the index's name alone ('Region'): columns were 0 … 3."""
    rows = [{"Region": r, "Month": m, "Sales": 10 * i + j} for i, r in enumerate(["North", "South", "East", "West"])
            for j, m in enumerate(["Jan", "Feb", "Mar"])]
    pivot = pd.DataFrame(rows).pivot_table(index="Region", columns="Month", values=["Sales"])
    pivot.to_excel(tmp_path / "report.xlsx", sheet_name="Pivot")
    prof, ns = profile_and_load(tmp_path / "report.xlsx")
    df = ns["data"]["Pivot"] if isinstance(ns["data"], dict) else ns["data"]
    assert list(df.columns) == ["Region", "Feb", "Jan", "Mar"] and len(df) == 4
    assert prof.tables[0].title == "Sales"


def test_downloads_joined_end_to_end_with_their_notices_are_a_table_each(tmp_path: Path) -> None:
    """Two RDB downloads in one file, each with its '#' notice, its header and its row of types:
    the second's notice, header and types were rows of the first, and every column was text."""
    f = tmp_path / "two_sites.rdb"
    lines = []
    for site in ("01646500", "01594440"):
        lines += ["# ---- WARNING ----", f"# Data provided for site {site}", "#",
                  "agency_cd\tsite_no\tdatetime\tflow", "5s\t15s\t20d\t14n"]
        lines += [f"USGS\t{site}\t2023-01-{d:02d}\t{400 + d}" for d in range(1, 16)]
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    assert len(prof.tables) == 2 and len({t.name for t in prof.tables}) == 2
    frames = list(ns["data"].values())
    assert [len(df) for df in frames] == [15, 15] and all(str(df["flow"].dtype) == "int64" for df in frames)
    assert frames[1]["site_no"].iloc[0] == "01594440"


def test_a_plate_reader_grid_is_headed_by_its_column_numbers(tmp_path: Path) -> None:
    """Plate readers export 1 … 12 over rows A … H (an empty or '<>' corner), then 'End Time:'
    after a blank line: the numbers were a row of data, and the end time a row that made column 1 text."""
    f = tmp_path / "od450.csv"
    lines = ["Application: reader", "Wavelength 450 nm", "", "<>;" + ";".join(str(c) for c in range(1, 13))]
    lines += [f"{r};" + ";".join(f"{(i * 13 + c) % 30 / 10:.4f}".replace(".", ",") for c in range(12))
              for i, r in enumerate("ABCDEFGH")]
    lines += ["", "End Time:;14.03.2021 10:23:05"]
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert list(df.columns)[1:] == [str(c) for c in range(1, 13)] and len(df) == 8
    assert str(df["1"].dtype) == "float64" and any("End Time" in n for n in prof.tables[0].notes)

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Layout"
    ws.append([None, *range(1, 13)])
    for i, r in enumerate("ABCDEFGH"):
        ws.append([r, *[f"S{i}-{c}" for c in range(1, 13)]])
    wb.save(tmp_path / "plate.xlsx")
    prof, ns = profile_and_load(tmp_path / "plate.xlsx")
    df = ns["data"]["Layout"] if isinstance(ns["data"], dict) else ns["data"]
    assert len(df) == 8 and list(df.columns)[1:4] == [1, 2, 3]


def test_a_header_of_years_with_a_note_mark_on_some(tmp_path: Path) -> None:
    """ONS sheets head columns with years, some marked ('2021 [note 2]', '2022 [provisional]'): as
    many years (numbers) as labels, the header was taken for a note and the columns were 0 … 7."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Table_1"
    ws.append(["Table 1: income by region, 2017 to 2022 [note 1]"])
    ws.append(["Source: Office for National Statistics"])
    ws.append(["ITL code", "ITL region name", 2017, 2018, 2019, 2020, "2021 [note 2]", "2022 [provisional]"])
    for i in range(8):
        ws.append([f"UK{chr(67 + i)}", f"Region {i}", *(1000 + 100 * k + i for k in range(6))])
    wb.save(tmp_path / "regions.xlsx")
    prof, ns = profile_and_load(tmp_path / "regions.xlsx")
    df = ns["data"]["Table_1"] if isinstance(ns["data"], dict) else ns["data"]
    assert list(df.columns)[:3] == ["ITL code", "ITL region name", 2017] and len(df) == 8


def test_a_vizier_table_of_names_units_and_a_rule_with_padded_gaps(tmp_path: Path) -> None:
    """VizieR's TSV: '#' lines, the names, a line of units, a rule of dashes, then fields padded
    with spaces, an empty one all spaces. The rule was the header, and the padded gaps made
    columns of numbers text."""
    f = tmp_path / "asu.tsv"
    lines = ["# VizieR Astronomical Server", "#Column\tPlx\t(F9.4)\tParallax", "",
             "RA_ICRS\tSource\tPlx\tGmag", "deg\t\tmas\tmag", "---------\t------\t-------\t------"]
    lines += [f"{56.7 + i / 100:.5f}\t{665074 + i}\t{'       ' if i % 3 == 0 else f'{i / 3:7.4f}'}\t{10 + i / 7:.3f}"
              for i in range(12)]
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert list(df.columns) == ["RA_ICRS deg", "Source", "Plx mas", "Gmag mag"] and len(df) == 12
    assert str(df["Plx mas"].dtype) == "float64" and df["Plx mas"].isna().sum() == 4


def test_an_ephemeris_under_a_preamble_longer_than_its_rows(tmp_path: Path) -> None:
    """A Horizons vector table of a few days: the preamble's lines outnumber the rows, so no
    delimiter split most lines and the file was a text document."""
    f = tmp_path / "horizons_results.txt"
    preamble = ["*" * 60, "Revised: April 12 2021 Mars 499", *[f"Preamble line {i} about the target body" for i in range(20)],
                "*" * 60, "JDTDB, Calendar Date (TDB), X, Y, Z,", "*" * 60]
    rows = [f"{2460310.5 + d}, A.D. 2024-Jan-{d + 1:02d} 00:00:00.0000, {-2.1e7 + d * 2e6:.6E}, {-2.16e8:.6E}, {-4.0e6:.6E},"
            for d in range(5)]
    f.write_text("\n".join(preamble + ["$$SOE", *rows, "$$EOE", "*" * 60, "Column meaning: ..."]) + "\n")
    prof, ns = profile_and_load(f)
    assert prof.kind == "table" and list(ns["data"].columns) == ["JDTDB", "Calendar Date (TDB)", "X", "Y", "Z"]
    assert len(ns["data"]) == 5


def test_values_written_with_their_range_are_data_not_a_second_header(tmp_path: Path) -> None:
    """Estimates written with their interval ('630308[495000-801000]') in some rows, 0 and blanks
    in others: the first rows were taken for two header rows under the real header (the names
    became 'Land2 Land3', '0 6003[5003-7003]' …), and a real lake's table was read so."""
    rows = ["Country,Year,Cases,Deaths,Cases_median,Cases_min,Cases_max,Deaths_median,Deaths_min,Deaths_max,Region"]
    for i in range(40):
        if i % 6 in (1, 3, 4, 5):
            rows.append(f"Land{i}, 2017,0,0,0,,,0,,,Region{i % 4}")
        else:
            c, d = 6000 + i, 30 + i
            rows.append(f"Land{i}, 2017,{c}[{c - 900}-{c + 900}],{d}[{d - 9}-{d + 9}],{c},{c - 900},{c + 900},{d},{d - 9},{d + 9},"
                        f"Region{i % 4}")
    (tmp_path / "estimates.csv").write_text("\n".join(rows) + "\n")
    prof, ns = profile_and_load(tmp_path / "estimates.csv")
    assert [c.name for c in prof.tables[0].columns][:3] == ["Country", "Year", "Cases"] and len(ns["data"]) == 40


def test_a_row_of_registry_ids_under_the_names_is_skipped(tmp_path: Path) -> None:
    """TCGA's clinical files: names, the same fields' names again, then each field's registry id
    ('CDE_ID:2003301'); the ids were taken for the names."""
    f = tmp_path / "clinical_patient.txt"
    lines = ["uuid\tbarcode\tgender\tage_at_diagnosis", "uuid\tbarcode\tgender\tage_at_initial_diagnosis",
             "CDE_ID:\tCDE_ID:2003301\tCDE_ID:2200604\tCDE_ID:2006657"]
    lines += [f"{i:08x}-6cb3\tTCGA-A1-A{i:03d}\t{'MALE' if i % 2 else 'FEMALE'}\t{40 + i}" for i in range(15)]
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    assert list(ns["data"].columns) == ["uuid", "barcode", "gender", "age_at_initial_diagnosis"] and len(ns["data"]) == 15
    assert str(ns["data"]["age_at_initial_diagnosis"].dtype) == "int64"


def test_a_spread_under_a_mean_is_a_footer_but_a_state_named_sd_is_data(tmp_path: Path) -> None:
    """FlowJo tables end with 'Mean' then 'SD' rows: the SD row stayed data (and kept the mean in).
    'SD' alone at the end of a table of states is South Dakota."""
    rows = ["Sample,CD3,CD4"] + [f"Tube_{i:03d}.fcs,{50 + i},{40 + i}" for i in range(12)] + ["Mean,55.5,45.5", "SD,3.6,3.6"]
    (tmp_path / "flow.csv").write_text("\n".join(rows) + "\n")
    prof, ns = profile_and_load(tmp_path / "flow.csv")
    assert len(ns["data"]) == 12 and any("SD 3.6" in n for n in prof.tables[0].notes)
    states = ["State,Reports"] + [f"{s},{100 + i}" for i, s in enumerate(["AL", "AK", "AZ", "NY", "OH", "PA", "RI", "SC", "SD"])]
    (tmp_path / "states.csv").write_text("\n".join(states) + "\n")
    prof, ns = profile_and_load(tmp_path / "states.csv")
    assert len(ns["data"]) == 9 and ns["data"]["State"].iloc[-1] == "SD"


def test_a_row_that_numbers_the_columns_under_the_header(tmp_path: Path) -> None:
    """IRS SOI's tables number their columns under the header ('(1)', '(2)' …): the row was read
    as the first data row, and every column of numbers loaded as objects. A '[1]' in place of a
    number points to a footnote: a gap."""
    rows = [f'"${i},000 under ${i + 5},000",{9300000 + i * 1000},{5.6 + i / 10:.2f},{23250000 + i * 7}' for i in range(20)]
    rows[3] = '"$3,000 under $8,000",9303000,[1],23250021'
    f = tmp_path / "21in11si.csv"
    f.write_text("Size of adjusted gross income,Number of returns,Percent of total,Amount\n,(1),(2),(3)\n" + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert list(df.columns) == ["Size of adjusted gross income", "Number of returns", "Percent of total", "Amount"]
    assert len(df) == 20 and df["Number of returns"].dtype == "int64" and df["Percent of total"].isna().sum() == 1
    assert prof.loader_check.verified, prof.loader_check


def test_a_header_under_a_long_comment_preamble(tmp_path: Path) -> None:
    """NOAA's paleoclimate archive writes 80-150 '#' lines over the header: it is looked for past them."""
    f = tmp_path / "core.txt"
    lines = [f"# {k}: description line {k} of the study" for k in range(120)]
    lines += ["depth\tage\tvalue"] + [f"{i * 0.5}\t{i * 12}\t{-400 - i % 7}.5" for i in range(300)]
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.tables[0].header_row == 120
    assert list(ns["data"].columns) == ["depth", "age", "value"] and len(ns["data"]) == 300


def test_groups_of_rows_between_blank_lines_stay_one_table(tmp_path: Path) -> None:
    """A census transcription: households parted by blank lines, each opening with its schedule
    number; an uncertain age ('41?') in a household's second row made it a header of a new table."""
    f = tmp_path / "census.csv"
    lines = ["Census transcription", "", "Schedule,Address,Name,Relation,Condition,Age (M),Age (F),Occupation,Where born"]
    for h in range(1, 16):
        lines.append(f"{h},{h * 3} Brick Lane,Ann Head{h},Head,Mar,{30 + h},,Weaver,Kent")
        lines.append(f",,John Kin{h},Wife,Mar,,{'41?' if h % 4 == 0 else 20 + h},Tailor,Essex")
        for k in range(4):
            lines.append(f",,Kin{h}-{k},{'Dau' if k % 2 else 'Son'},Unm,{k + 2},,Scholar,Poland")
        lines.append("")
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    assert len(prof.tables) == 1 and prof.tables[0].header_row == 2
    df = ns["data"]
    assert len(df) == 90 and list(df.columns)[:3] == ["Schedule", "Address", "Name"]
    assert df["Name"].tolist()[-1] == "Kin15-3"


def test_a_wide_sparse_table_under_metadata_rows_keeps_its_header(tmp_path: Path) -> None:
    """A hospital's price list: two rows of metadata (names, then values), the header naming 30
    payers' columns, and rows that fill a few of them: the header was taken 50 rows down."""
    payers = [f"standard_charge|payer{k // 2}|negotiated_{'dollar' if k % 2 else 'percentage'}" for k in range(80)]
    lines = ["hospital_name,last_updated_on,version", "St. Joseph's,2024-07-01,2.0.0",
             ",".join(["description", "code", "setting", "gross", "cash", *payers])]
    for i in range(200):
        cells = [f"ITEM {i}", str(70000 + i), "inpatient", f"{4000 + i}.71", f"{2000 + i}.23"] + [""] * 80
        for k in range(80):
            if (i * 31 + k * 17) % 100 < 35 + i % 10:  # a payer's amount, or its methodology in words
                cells[5 + k] = f"{100 + (i + k) % 900}.{k % 100:02d}" if (i + k) % 3 else "fee schedule"
        lines.append(",".join(cells))
    f = tmp_path / "standardcharges.csv"
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    assert prof.tables[0].header_row == 2 and len(ns["data"]) == 200
    assert list(ns["data"].columns)[:2] == ["description", "code"]
    assert prof.loader_check.verified


def test_a_header_of_numbers_in_even_steps_names_the_columns(tmp_path: Path) -> None:
    """A Modbus poll names its columns by register (40001 … 40006) and a spectrum by wavelength
    (400, 410 …) under '#' comments; a data row whose numbers happen to rise stays data."""
    f = tmp_path / "meter.csv"
    rows = [f"2024-01-15T08:00:{i:02d},{2291 + i},{1259 - i * 3},{5007 + i % 4},{i % 2},{845 + i},{62 + i}" for i in range(40)]
    f.write_text("# modpoll 3.10\n# Slave address: 1\ntimestamp,40001,40002,40003,40004,40005,40006\n" + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    assert list(ns["data"].columns)[:3] == ["timestamp", "40001", "40002"] and len(ns["data"]) == 40
    g = tmp_path / "spectra.csv"
    g.write_text("sample,400,410,420,430\n" + "\n".join(f"S{i},0.{i + 10},0.{i + 31},0.{i + 17},0.{50 - i}" for i in range(30)) + "\n")
    prof, ns = profile_and_load(g)
    assert list(ns["data"].columns) == ["sample", "400", "410", "420", "430"] and len(ns["data"]) == 30
    h = tmp_path / "counts.csv"
    h.write_text("site,a,b,c,d\n" + "\n".join(f"S{i},{i},{i + 1},{i + 2},{i + 3}" for i in range(30)) + "\n")
    prof, ns = profile_and_load(h)
    assert list(ns["data"].columns) == ["site", "a", "b", "c", "d"] and len(ns["data"]) == 30


def test_rows_that_total_others_among_the_data_are_noted(tmp_path: Path) -> None:
    """A court caseload table opens with 'Statewide Total' and a sheet ends each line with its
    subtotal: kept as data, they are named in a note. A long table whose dimension has a 'Total'
    category, and a list of variables named 'total_fire', get no such note."""
    f = tmp_path / "caseloads.csv"
    f.write_text("County,Filed,Disposed\nStatewide Total,9000,8000\n"
                 + "\n".join(f"County {i},{100 + i},{90 + i}" for i in range(40))
                 + "\nNorth District subtotal,2000,1800\n" + "\n".join(f"Town {i},{50 + i},{40 + i}" for i in range(10)) + "\n")
    prof, _ = profile_and_load(f)
    (note,) = [n for n in prof.tables[0].notes if "total others" in n]
    assert "'Statewide Total' (row 1)" in note and "'North District subtotal' (row 42)" in note
    g = tmp_path / "long.csv"
    g.write_text("sex,year,value\n" + "\n".join(f"{['Total', 'Male', 'Female'][i % 3]},{2000 + i // 3},{i}" for i in range(60)) + "\n")
    h = tmp_path / "variables.csv"
    h.write_text("variable,unit,scale\n" + "\n".join(f"{['total_fire', 'rain_sum', 'temp_max'][i % 3]}_{i},mm,{i}" for i in range(30)) + "\n")
    for other in (g, h):
        prof, _ = profile_and_load(other)
        assert not any("total others" in n for n in prof.tables[0].notes), other.name
