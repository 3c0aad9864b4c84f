"""Messy table layouts, each in a small generated file, loaded for real by the generated loader:
summary rows under the data, two-row headers over repeated names, headers above sparse rows,
headerless one-column lists, and sparse tables with rows of empty cells."""

from __future__ import annotations

import random
from pathlib import Path

import openpyxl
import pandas as pd

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
    assert df["Year"].astype(str).tolist() == ["2018", "2019", "2020", "2021p"]
    assert df["Fires"].tolist() == [100, 120, 90, 95]
    assert any("Period average" in n for n in prof.tables[0].notes)


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
