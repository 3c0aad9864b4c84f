"""Value classes of messy files (issue 27, item 1): text missing markers found from the data, a
marker in the first data row (data, not a second header row), and fill values (declared by the
file or by the lake's documents, else only flagged). Each test writes a small file, profiles it,
runs the generated loader on it, and checks the loaded DataFrame against the profile."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openpyxl
import pandas as pd
import pytest

from lakeboard.schemas.profiles import FileProfile, TableProfile
from lakeboard.servers.profiling import profile_file
from lakeboard.servers.profiling.column_stats import FILL_VALUE_NOTE, marker_shaped
from lakeboard.servers.profiling.fill_values import declared_fill_values
from lakeboard.servers.profiling.lake import apply_declarations
from tests.servers.profiling.loading import profile_and_load, run_loader

NUMERIC = ("int64", "float64")


def _frame(data: Any, name: str | None = None) -> pd.DataFrame:
    if isinstance(data, dict):
        data = data[name] if name is not None else next(iter(data.values()))
    assert isinstance(data, pd.DataFrame), type(data)
    return data


def _agrees(table: TableProfile, df: pd.DataFrame) -> None:
    """The profile says what the loader gives: the same columns, numeric where it is numeric."""
    assert [c.name for c in table.columns] == [str(c) for c in df.columns]
    for col in table.columns:
        loaded = pd.api.types.is_numeric_dtype(df[col.name if col.name in df.columns else int(col.name)])
        assert (col.dtype in NUMERIC) == loaded, (col.name, col.dtype, df.dtypes.to_dict())


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# -- text missing markers ---------------------------------------------------------------------------
def test_text_markers_in_numeric_columns_load_as_missing(tmp_path: Path) -> None:
    rows = [f"{1990 + i},{2 + i / 10:.1f},{3 + i / 7:.2f},{40 + i}" for i in range(20)]
    rows[3] = "1993,M,3.43,43"
    rows[7] = "1997,2.7,#VALUE!,47"
    rows[11] = "2001,n.a.,4.57,-"
    rows[15] = "2005,3.5,..,*"
    f = _write(tmp_path / "rain.csv", "Year,Jul,Aug,Days\n" + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    df = _frame(ns["data"])
    table = prof.tables[0]
    assert table.options["na_values"] == {"Jul": ["M", "n.a."], "Aug": ["#VALUE!", ".."], "Days": ["*", "-"]}
    assert df.shape == (20, 4)
    assert df["Jul"].isna().tolist() == [i in (3, 11) for i in range(20)]
    assert df["Aug"].isna().sum() == 2 and df["Days"].isna().sum() == 2
    _agrees(table, df)
    jul = next(c for c in table.columns if c.name == "Jul")
    assert jul.dtype == "float64" and jul.null_fraction == 0.1


def test_a_marker_past_the_sampled_rows_is_found(tmp_path: Path) -> None:
    rows = [f"{i},{(i * 7919) % 1000 / 10:.1f}" for i in range(3000)]
    rows[2717] = "2717,NA*"  # not a marker shape: the column stays text, as pandas reads it
    rows[2718] = "2718,-"
    f = _write(tmp_path / "long.csv", "id,value\n" + "\n".join(rows[:2717] + rows[2718:]) + "\n")
    prof, ns = profile_and_load(f)
    df = _frame(ns["data"])
    assert prof.tables[0].options["na_values"] == {"value": ["-"]}
    assert df["value"].dtype == "float64" and df["value"].isna().sum() == 1
    _agrees(prof.tables[0], df)


def test_a_letter_marker_in_a_long_table_and_text_past_the_sample(tmp_path: Path) -> None:
    rows = [f"{i},{(i * 7919) % 1000 / 10:.1f},{i * 3}" for i in range(3000)]
    for i in range(5, 3000, 40):
        rows[i] = f"{i},M,{i * 3}"
    rows[2900] = "2900,12.5,4999XX"  # a code past the sample: pandas reads that column as text
    prof, ns = profile_and_load(_write(tmp_path / "long_m.csv", "id,rain,code\n" + "\n".join(rows) + "\n"))
    df = _frame(ns["data"])
    assert prof.tables[0].options["na_values"] == {"rain": ["M"]}
    assert df["rain"].dtype == "float64" and df["rain"].isna().sum() == 75
    assert not pd.api.types.is_numeric_dtype(df["code"])
    _agrees(prof.tables[0], df)


def test_categories_and_text_columns_keep_their_tokens(tmp_path: Path) -> None:
    # "K" among grades 1-5 is a code (few repeated numbers); M/F is a text column; four kinds
    # of tokens are labels, not markers.
    lines = ["grade,sex,score,mixed"]
    for i in range(60):
        grade = "K" if i % 6 == 0 else str(1 + i % 5)
        mixed = ["a", "b", "c", "d"][i % 4] if i % 5 == 0 else str(i * 1.5)
        lines.append(f"{grade},{'MF'[i % 2]},{50 + i * 0.7:.1f},{mixed}")
    f = _write(tmp_path / "school.csv", "\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    df = _frame(ns["data"])
    assert "na_values" not in prof.tables[0].options
    assert df["grade"].tolist()[0] == "K" and df["sex"].tolist()[:2] == ["M", "F"]
    _agrees(prof.tables[0], df)


def test_a_frequent_letter_is_a_category_not_a_marker(tmp_path: Path) -> None:
    # "T" (a trace of rain) on a third of the days is one of the column's main values.
    lines = ["day,rain"] + [f"{i},{'T' if i % 3 == 0 else f'{i * 1.3:.1f}'}" for i in range(1, 61)]
    prof, ns = profile_and_load(_write(tmp_path / "trace.csv", "\n".join(lines) + "\n"))
    assert "na_values" not in prof.tables[0].options
    assert (_frame(ns["data"])["rain"] == "T").sum() == 20


def test_punctuation_marks_missing_in_a_text_column(tmp_path: Path) -> None:
    jobs = ["Private", "Self-emp", "Federal-gov", "Local-gov", "State-gov"]
    lines = ["age, workclass, hours"] + [
        f"{20 + i}, {'?' if i % 9 == 0 else jobs[i % 5]}, {30 + i % 20}" for i in range(50)
    ]
    prof, ns = profile_and_load(_write(tmp_path / "census.csv", "\n".join(lines) + "\n"))
    df = _frame(ns["data"])
    # fields written after ", ": pandas skips the space, so names and markers come without it
    assert prof.tables[0].options["skipinitialspace"] and prof.tables[0].options["na_values"] == {"workclass": ["?"]}
    assert list(df.columns) == ["age", "workclass", "hours"]
    assert df["workclass"].isna().sum() == 6 and not (df["workclass"] == "?").any()
    _agrees(prof.tables[0], df)


def test_a_header_of_short_names_is_not_taken_for_markers(tmp_path: Path) -> None:
    lines = ["x,y,z"] + [f"{i * 0.5},{i * 1.5},{i}" for i in range(12)]
    prof, ns = profile_and_load(_write(tmp_path / "xyz.csv", "\n".join(lines) + "\n"))
    df = _frame(ns["data"])
    assert list(df.columns) == ["x", "y", "z"] and len(df) == 12
    assert prof.tables[0].header_row == 0


# -- a marker in the first data row ------------------------------------------------------------------
def test_a_marker_in_the_first_data_row_is_data(tmp_path: Path) -> None:
    lines = ["Year,Jul,Aug,Sep", "1998,M,3.2,4.1"] + [f"{1999 + i},{2 + i / 10:.1f},{3 + i / 9:.2f},{4 + i / 8:.2f}" for i in range(10)]
    prof, ns = profile_and_load(_write(tmp_path / "monthly.csv", "\n".join(lines) + "\n"))
    df = _frame(ns["data"])
    assert list(df.columns) == ["Year", "Jul", "Aug", "Sep"]
    assert len(df) == 11 and df["Year"].iloc[0] == 1998 and pd.isna(df["Jul"].iloc[0])
    _agrees(prof.tables[0], df)


def test_a_marker_in_the_first_data_row_of_a_sheet_is_data(tmp_path: Path) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Rain"
    ws.append(["Monthly rain at the airport, mm"])
    ws.append(["Year", "Jul", "Aug"])
    ws.append([1998, "M", 3.2])
    for i in range(12):
        ws.append([1999 + i, 2 + i / 10, "n.a." if i == 5 else 3 + i / 9])
    wb.save(tmp_path / "rain.xlsx")
    prof, ns = profile_and_load(tmp_path / "rain.xlsx")
    df = _frame(ns["data"], "Rain")
    assert list(df.columns) == ["Year", "Jul", "Aug"] and len(df) == 13
    assert df["Year"].iloc[0] == 1998 and pd.isna(df["Jul"].iloc[0]) and df["Aug"].isna().sum() == 1
    assert df["Jul"].dtype == "float64" and df["Aug"].dtype == "float64"
    _agrees(prof.tables[0], df)


def test_values_under_a_detection_limit_are_data_and_said(tmp_path: Path) -> None:
    """Water-quality exports write a result below the detection limit as "<0.5". On the first data
    row those cells read as text, and the row was taken for the header (the real header became a
    title). They are values; the column loads as text, and a note says why."""
    rows = ["site,date,nitrate_mg_l,lead_ug_l"] + [
        f"S{i % 4},2023-01-{i % 28 + 1:02d},{'<0.5' if i % 5 == 0 else f'{1 + i / 10:.2f}'},{'<1' if i % 3 == 0 else f'{2 + i:.1f}'}"
        for i in range(60)]
    f = tmp_path / "water_quality.csv"
    _write(f, "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    t = prof.tables[0]
    assert [c.name for c in t.columns] == ["site", "date", "nitrate_mg_l", "lead_ug_l"] and t.n_rows == 60
    df = _frame(ns["data"])
    assert df["nitrate_mg_l"].iloc[0] == "<0.5" and (df["nitrate_mg_l"] == "<0.5").sum() == 12
    assert any(n.startswith("'nitrate_mg_l': 12 of 60 numbers are limits ('<0.5')") for n in t.notes), t.notes
    assert not any(n.startswith("'site'") for n in t.notes)
    _agrees(t, df)


def test_a_header_of_age_bands_stays_the_header(tmp_path: Path) -> None:
    """"<5" and ">65" over columns of counts are labels: a number under a limit is taken for a value
    only in a column that holds such limits on other rows too."""
    f = tmp_path / "ages.csv"
    _write(f, "Year,<5,>65\n" + "".join(f"{2000 + i},{i * 10},{i * 5}\n" for i in range(20)))
    prof, ns = profile_and_load(f)
    assert list(_frame(ns["data"]).columns) == ["Year", "<5", ">65"] and prof.tables[0].n_rows == 20


def test_a_sheets_values_under_a_limit_are_said(tmp_path: Path) -> None:
    import openpyxl

    f = tmp_path / "results.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["site", "nitrate"])
    for i in range(30):
        ws.append([f"S{i}", "<0.5" if i % 4 == 0 else 1.0 + i / 10])
    wb.save(f)
    prof, _ = profile_and_load(f)
    assert prof.tables[0].notes == ["'nitrate': 8 of 30 numbers are limits ('<0.5'), so it loads as text; "
                                    "to_numeric(errors='coerce') makes them NaN"]


# -- fill values -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("sentence", "values"),
    [
        ("Missing values are coded as -9999.", ["-9999"]),
        ("Temperatures in degC. Missing values are coded -99.9.", ["-99.9"]),
        ("fill value 1e30 where the sensor failed", ["1e30"]),
        ("_FillValue = 9.96921e+36", ["9.96921e+36"]),
        ("NODATA_value -9999", ["-9999"]),
        ("-999 = missing", ["-999"]),
        ("A value of 99999.9 means no data.", ["99999.9"]),
        ("missing: -9999 or -8888", ["-9999", "-8888"]),
        ("Missing data are marked 'M' or 'n.a.'", ["M", "n.a."]),
        ("Missing values are shown as M.", ["M"]),
        ("missing 12 stations in 2019", []),
        ("Data for 2019 is missing.", []),
        ("The 2020 values are not available.", []),
        ("We dropped stations with missing data in 2019 and 2020.", []),
        ("Station 12 - missing since 2003", []),
        ("Missing data values: Density and Speed = -9999.9, Temp. = -1.00e+05", ["-9999.9", "-1.00e+05"]),
        ("missing: station = 12 were dropped", []),
        ("Number of missing values: 3", []),
        ("Percent of values missing: 12.5", []),
        ("The value for missing source data that cannot be computed or is outside of the range: -999", ["-999"]),
        ("MISSING VALUE 99900.000", ["99900.000"]),
        ("missing values 12 stations were dropped", []),
        ("FireSize/Temp/FRP -9.0 = not computed", ["-9.0"]),
        ("-999 means not determined", ["-999"]),
        ("Start year (-9 = unknown)", ["-9"]),
        ("Sex: 1 = male, 2 = female, 9 = unknown", []),
    ],
)
def test_declared_fill_values_are_read_from_sentences(sentence: str, values: list[str]) -> None:
    assert declared_fill_values(sentence) == values


def test_a_fill_value_declared_above_the_table_is_missing(tmp_path: Path) -> None:
    body = [f"S{i % 3},{i},{10 + i / 4:.2f},{i % 7}" for i in range(30)]
    body[4] = "S1,4,-9999,4"
    body[9] = "S0,9,11.25,-9999"
    text = "Station readings, 2024\nMissing values are coded as -9999.\n\nstation,day,temp,wind\n" + "\n".join(body) + "\n"
    prof, ns = profile_and_load(_write(tmp_path / "readings.csv", text))
    df = _frame(ns["data"])
    table = prof.tables[0]
    assert table.options["na_values"] == ["-9999"]
    assert df["temp"].isna().sum() == 1 and df["wind"].isna().sum() == 1 and len(df) == 30
    temp = next(c for c in table.columns if c.name == "temp")
    assert float(temp.minimum) == df["temp"].min() and float(temp.minimum) > 0
    wind = next(c for c in table.columns if c.name == "wind")
    assert wind.dtype == "float64" and df["wind"].dtype == "float64"  # a gap makes pandas read floats
    assert not any(n.startswith(FILL_VALUE_NOTE) for n in table.notes)
    _agrees(table, df)


def test_a_fill_value_declared_in_a_sheet_note_is_masked(tmp_path: Path) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Flow"
    ws.append(["River flow, m3/s. Fill value: 1e30"])
    ws.append(["site", "flow", "level"])
    for i in range(15):
        ws.append([f"R{i}", 1e30 if i == 6 else 10.5 + i, 2 + i])
    wb.save(tmp_path / "flow.xlsx")
    prof, ns = profile_and_load(tmp_path / "flow.xlsx")
    df = _frame(ns["data"], "Flow")
    assert df["flow"].isna().sum() == 1 and df["flow"].max() < 100
    flow = next(c for c in prof.tables[0].columns if c.name == "flow")
    assert float(flow.maximum) == df["flow"].max()
    _agrees(prof.tables[0], df)


def test_an_undeclared_sentinel_far_outside_its_column_is_read_as_missing(tmp_path: Path) -> None:
    """-9999 among temperatures of 15 to 19, 99999.9 among rainfalls under 4: a mean that took them
    in would be garbage (OMNI's 9999999. temperatures, CDAWeb's -1e31). They are read as NaN,
    and the loader says so."""
    body = [f"{i},{15 + (i % 9) * 0.5:.1f},{0.1 * i:.1f}" for i in range(40)]
    body[12] = "12,-9999,1.2"
    body[20] = "20,16.0,99999.9"
    prof, ns = profile_and_load(_write(tmp_path / "obs.csv", "id,temp,rain\n" + "\n".join(body) + "\n"))
    df = _frame(ns["data"])
    assert df["temp"].isna().sum() == 1 and df["rain"].isna().sum() == 1 and df["rain"].max() < 4
    notes = [n for n in prof.tables[0].notes if n.startswith(FILL_VALUE_NOTE)]
    assert len(notes) == 2 and "'temp'" in notes[0] and "-9999" in notes[0] and "99999.9" in notes[1]
    assert prof.tables[0].options["na_values"] == {"temp": ["-9999"], "rain": ["99999.9"]}
    assert "fill value read as missing: column 'temp'" in prof.loader
    _agrees(prof.tables[0], df)
    # A plausible extreme is not a sentinel: 99 in a column of percentages.
    pct = [f"{i},{i % 99}" for i in range(60)] + ["60,99"]
    prof2, _ = profile_and_load(_write(tmp_path / "pct.csv", "id,share\n" + "\n".join(pct) + "\n"))
    assert not any(n.startswith(FILL_VALUE_NOTE) for n in prof2.tables[0].notes)


def test_fill_values_declared_by_the_lakes_documents(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    (lake / "stations").mkdir(parents=True)
    _write(lake / "stations" / "README.txt", "Station files\n\nTemperatures in degrees C. Missing values are coded as -9999.\n")
    rows = [f"{d},{12 + d / 3:.2f},{d % 6}" for d in range(1, 41)]
    rows[5] = "6,-9999,0"
    _write(lake / "stations" / "north.csv", "day,temp,wind\n" + "\n".join(rows) + "\n")
    # Elsewhere in the lake: a data dictionary declares a column's fill value.
    _write(lake / "variables.csv", "variable,description\n"
           "flow,River flow in cubic metres per second; fill value 1e30 when the gauge failed\n"
           "level,Water level above the gauge datum in metres\n"
           "site,Name of the gauging site on the river\n")
    flows = [f"G{i},{5 + i * 0.25:.2f},{1 + i / 10:.1f}" for i in range(30)]
    flows[8] = "G8,1e30,1.8"
    _write(lake / "gauges.csv", "site,flow,level\n" + "\n".join(flows) + "\n")
    # A table outside the README's folder that holds -9999 among values as wide is not touched.
    other = [f"{i},{i * 450.0:.1f}" for i in range(20)] + ["20,-9999"]
    _write(lake / "other.csv", "id,value\n" + "\n".join(other) + "\n")

    paths = ["stations/README.txt", "stations/north.csv", "variables.csv", "gauges.csv", "other.csv"]
    profiles = [profile_file(lake / p, lake) for p in paths]
    # read as missing before, far outside the temperatures; the README's declaration then changes nothing
    assert any(n.startswith(FILL_VALUE_NOTE) for n in profiles[1].tables[0].notes)
    after: dict[str, FileProfile] = {p.path: p for p in apply_declarations(profiles, lake)}

    north = after["stations/north.csv"]
    df = _frame(run_loader(north)["data"])
    assert df["temp"].isna().sum() == 1 and df["temp"].min() > 0
    temp = next(c for c in north.tables[0].columns if c.name == "temp")
    assert float(temp.minimum) == df["temp"].min()
    _agrees(north.tables[0], df)

    gauges = after["gauges.csv"]
    assert gauges.tables[0].options["na_values"] == {"flow": ["1e30"]}
    df = _frame(run_loader(gauges)["data"])
    assert df["flow"].isna().sum() == 1 and df["flow"].max() < 100
    _agrees(gauges.tables[0], df)

    assert after["other.csv"] is profiles[4] and "na_values" not in profiles[4].tables[0].options
    # Applying twice changes nothing more.
    again = {p.path: p for p in apply_declarations(list(after.values()), lake)}
    assert again["gauges.csv"].tables[0].options == gauges.tables[0].options


def test_a_readme_does_not_turn_small_numbers_of_files_it_does_not_name_into_gaps(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    lake.mkdir()
    _write(lake / "README.md", "# Counts\n\nMissing counts are recorded as 0 in counts.csv.\n")
    counts = "site,count\n" + "\n".join(f"S{i},{i % 4}" for i in range(20)) + "\n"
    _write(lake / "counts.csv", counts)
    _write(lake / "visits.csv", counts.replace("count", "visits"))
    profiles = [profile_file(lake / p, lake) for p in ("README.md", "counts.csv", "visits.csv")]
    after = {p.path: p for p in apply_declarations(profiles, lake)}
    assert _frame(run_loader(after["counts.csv"])["data"])["count"].isna().sum() == 5  # named: taken
    assert after["visits.csv"] is profiles[2]  # not named, and 0 is no sentinel: left alone


def test_indexing_applies_what_a_readme_declares_in_its_bounded_workers(tmp_path: Path) -> None:
    from lakeboard.servers.profiling import profile_lake

    lake = tmp_path / "lake"
    lake.mkdir()
    _write(lake / "README.txt", "Station readings. Missing temperatures are coded as -9999.\n")
    rows = [f"{i},{10 + i / 4:.2f}" for i in range(30)]
    rows[5] = "5,-9999"
    _write(lake / "north.csv", "day,temp\n" + "\n".join(rows) + "\n")
    cache = tmp_path / "cache"
    for _ in range(2):  # the second time from the cache, which keeps what the file alone shows
        north = next(p for p in profile_lake(lake, cache, workers=1) if p.path == "north.csv")
        df = _frame(run_loader(north)["data"])
        assert df["temp"].isna().sum() == 1 and df["temp"].min() > 0
        assert north.loader_check is not None and north.loader_check.verified


def test_codes_written_with_leading_zeros_load_as_text(tmp_path: Path) -> None:
    """Zip, FIPS and site codes are keys: "01001" read as 1001 no longer joins. Months written
    "01" … "12", and a column of years with one typed short, stay numbers."""
    rows = ["zip,county,month,year,income"]
    rows += [f"{1001 + i:05d},{i % 9:03d},{1 + i % 12:02d},{'038' if i == 7 else 2000 + i},{40000 + 97 * i}"
             for i in range(30)]
    path = tmp_path / "incomes.csv"
    path.write_text("\n".join(rows) + "\n")
    prof, ns = profile_and_load(path)
    df = _frame(ns["data"])
    types = {c.name: c.dtype for c in prof.tables[0].columns}
    assert types["zip"] == types["county"] == "str" and types["month"] == types["year"] == types["income"] == "int64"
    assert df["zip"].iloc[0] == "01001" and df["county"].iloc[0] == "000" and df["month"].iloc[0] == 1
    assert prof.loader_check is not None and prof.loader_check.verified


def test_a_phrase_for_a_gap_in_the_first_data_rows_does_not_move_the_header(tmp_path: Path) -> None:
    """'not available' under a column of ages on the first two rows, every other cell text (a
    sample sheet): the header stays the first line. A header naming a column 'Unknown' stays one."""
    ages = ["not available", "not available", "65", "31", "54", "not available", "61", "33", "42", "70"]
    lines = ["Source Name\tOrganism\tDisease\tAge\tUnit"]
    lines += [f"donor{i}\tHomo sapiens\t{'normal' if i % 2 else 'psoriasis'}\t{a}\tyear" for i, a in enumerate(ages)]
    (tmp_path / "samples.tsv").write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(tmp_path / "samples.tsv")
    assert prof.tables[0].header_row == 0 and len(_frame(ns["data"])) == 10
    assert [c.name for c in prof.tables[0].columns][:2] == ["Source Name", "Organism"]

    (tmp_path / "answers.csv").write_text("Year,Yes,No,Unknown\n" + "".join(f"{2000 + i},{i + 3},{i + 5},{i % 4}\n" for i in range(12)))
    prof, _ = profile_and_load(tmp_path / "answers.csv")
    assert [c.name for c in prof.tables[0].columns] == ["Year", "Yes", "No", "Unknown"]


def test_a_sheet_whose_first_patient_has_no_measure_keeps_its_header(tmp_path: Path) -> None:
    """A supplement's cohort table: 'n.d.' and 'NA' fill most of a column of numbers, from the
    first patient on; the header is still the row under the title."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Table S2"
    ws.append(["Table S2. Baseline characteristics of the study cohort"])
    ws.append(["Patient ID", "Age (years)", "Sex", "Stage", "ER status", "Ki-67 (%)", "Follow-up (months)"])
    ki67 = ["n.d.", 37, "n.d.", "n.d.", "NA", "NA", "NA", "n.d.", "n.d.", "NA", "n.d.", "n.d.", 37, 30]
    for i, k in enumerate(ki67):
        ws.append([f"P{i + 1:03d}", 40 + i, "F" if i % 3 else "M", "IV", "NA" if i % 2 else "neg", k, 10 + i])
    ws.append(["NA, not available; n.d., not determined."])
    wb.save(tmp_path / "supplement.xlsx")
    prof, ns = profile_and_load(tmp_path / "supplement.xlsx")
    t = prof.tables[0]
    assert t.header_row == 1 and [c.name for c in t.columns][:2] == ["Patient ID", "Age (years)"]
    assert len(_frame(ns["data"], "Table S2")) == 14


def test_instrument_and_clinical_words_for_a_gap_are_missing(tmp_path: Path) -> None:
    """qPCR exports write 'Undetermined' where no CT was reached; clinical exports '[Not Available]'."""
    rows = ["Well\tCT\tdays_to_death"]
    rows += [f"{i}\t{'Undetermined' if i % 5 == 0 else 20 + i / 10}\t{'[Not Available]' if i % 4 == 0 else 100 + i}"
             for i in range(24)]
    (tmp_path / "run.txt").write_text("\n".join(rows) + "\n")
    prof, ns = profile_and_load(tmp_path / "run.txt")
    df = _frame(ns["data"])
    assert str(df["CT"].dtype) == "float64" and df["CT"].isna().sum() == 5
    assert str(df["days_to_death"].dtype) == "float64" and df["days_to_death"].isna().sum() == 6


def test_a_logger_s_nan_is_a_marker_not_a_number(tmp_path: Path) -> None:
    """Data loggers write "NAN" for a failed reading: Python's float() reads it, pandas does not,
    so the column loaded as text while the profile said numbers."""
    nan = '"NAN"'
    rows = ['"TIMESTAMP","AirTC_Avg"'] + [f'"2023-07-01 00:{i:02d}:00",{nan if i in (5, 40) else 20 + i / 10}'
                                         for i in range(50)]
    (tmp_path / "logger.dat").write_text("\n".join(rows) + "\n")
    prof, ns = profile_and_load(tmp_path / "logger.dat")
    df = _frame(ns["data"])
    assert str(df["AirTC_Avg"].dtype) == "float64" and df["AirTC_Avg"].isna().sum() == 2
    assert prof.loader_check is not None and prof.loader_check.verified


def test_a_statistics_office_s_sheet_of_years_with_gaps(tmp_path: Path) -> None:
    """IMF/World Bank downloads: a header of years stored as numbers, '..' in the latest years
    (in most rows of the last), and a footnote 'n/a indicates data not available'. The loader's
    per-column na_values were keyed '2022' while pandas labels the column 2022, so '..' stayed;
    'n/a' was declared as the two markers 'n' and 'a'; and a column mostly '..' stayed text."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "WEO"
    ws.append(["Country", 2021, 2022, 2023])
    for i in range(10):
        ws.append([f"Country {i}", 1.5 + i, ".." if i % 4 == 0 else 2.5 + i, 3.5 + i if i < 3 else ".."])
    ws.append(["Note: n/a indicates data not available."])
    wb.save(tmp_path / "weo.xlsx")
    prof, ns = profile_and_load(tmp_path / "weo.xlsx")
    df = _frame(ns["data"], "WEO")
    assert len(df) == 10 and [str(df[c].dtype) for c in df.columns[1:]] == ["float64"] * 3
    assert df.iloc[:, 2].isna().sum() == 3 and df.iloc[:, 3].isna().sum() == 7
    assert "n/a" in str(prof.tables[0].options["na_values"]) and "'n'" not in str(prof.tables[0].options["na_values"])
    assert declared_fill_values("Missing values are shown as n/a or -999") == ["n/a", "-999"]


def test_a_column_of_yes_no_and_numbers_keeps_the_header(tmp_path: Path) -> None:
    """'no' is marker-shaped (two letters) but a value of a flag column: counted as a gap, the
    flag column of 'yes', 'no', 1, 0 was one of values, and the first row became the header."""
    rows = ["sample,measurement,flag"] + [f"s{i},{'N/A' if i % 9 == 2 else 12.5 + i / 10},{['yes', 'no', '1', '0'][i % 4]}"
                                          for i in range(30)]
    (tmp_path / "mixed.csv").write_text("\n".join(rows) + "\n")
    prof, ns = profile_and_load(tmp_path / "mixed.csv")
    assert [c.name for c in prof.tables[0].columns] == ["sample", "measurement", "flag"] and len(_frame(ns["data"])) == 30


def test_a_phrase_for_no_value_is_missing_in_text_columns_too(tmp_path: Path) -> None:
    """'(null)' in a column of times and in a column of park names (most of its cells): no time or
    name is written so. A bare word ('None', 'Unknown') may be a name, and stays."""
    rows = []
    for i in range(30):
        time = "(null)" if i % 4 == 0 else f"{i % 24:02d}:{i % 60:02d}:00"
        park = f"PARK {i % 5}" if i % 5 == 0 else "(null)"
        rows.append(f"{1000 + i},{time},{park},{'Unknown' if i % 3 == 0 else 'Known'}")
    f = _write(tmp_path / "complaints.csv", "id,to_time,park,status\n" + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    df = _frame(ns["data"])
    assert df["to_time"].isna().sum() == 8 and df["to_time"].iloc[1] == "01:01:00"
    assert df["park"].isna().sum() == 24 and df["park"].iloc[0] == "PARK 0"
    assert df["status"].isna().sum() == 0 and prof.loader_check.verified


def test_a_mark_of_the_table_is_a_gap_where_it_is_most_of_a_column(tmp_path: Path) -> None:
    """'X' (not applicable) in the columns of states: a marker of the table, so also in a state's
    column where it is most of the cells, which alone would read as a code. A column of codes
    that holds no marker of the table keeps its letters."""
    rows = []
    for i in range(20):
        rows.append(f"T{i:02d},{'X' if i == 3 else 1000 + i},{'X' if i % 3 else 500 + i},{2000 + i},"
                    f"{'K' if i % 5 == 0 else i % 4}")
    f = _write(tmp_path / "taxes.csv", "Item,Alabama,Alaska,Arizona,Grade\n" + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    df = _frame(ns["data"])
    assert df["Alabama"].isna().sum() == 1 and df["Alaska"].isna().sum() == 13
    assert df["Alaska"].dtype.kind == "f" and (df["Grade"] == "K").sum() == 4
    assert prof.loader_check.verified


def test_a_letter_code_does_not_spread_to_columns_of_a_few_repeated_numbers(tmp_path: Path) -> None:
    """'T' (a trace) among measured rainfall is read as a gap there, as before; in the snowfall
    column, of a few repeated numbers, it is most of the cells and stays a value."""
    rows = []
    for i in range(30):
        rain = "T" if i % 9 == 4 else f"{i * 0.07:.2f}"
        rows.append(f"2023-02-{i % 28 + 1:02d},{rain},{'T' if i % 5 in (1, 2, 3) else '1.2'},{i % 4}")
    f = _write(tmp_path / "precip.csv", "Date,Precipitation,Snowfall,Snow Depth\n" + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    df = _frame(ns["data"])
    assert len(df) == 30 and df["Precipitation"].isna().sum() == 3
    assert (df["Snowfall"] == "T").sum() == 18


def test_a_statistics_office_s_bracketed_symbols_and_a_gis_null_are_gaps(tmp_path: Path) -> None:
    """'[x]' and '[c]' (not available, confidential) in a column of a few repeated rates, and ArcGIS's
    '<Null>' among measurements, are gaps: a code that stands for a value is written bare."""
    rows = [f"E0{i:04d},{['0', '0.1', '0.2'][i % 3] if i % 9 else ('[x]' if i % 2 else '[c]')},"
            f"{'<Null>' if i % 11 == 3 else f'{i * 1.7:.1f}'}" for i in range(60)]
    f = _write(tmp_path / "rates.csv", "Area Code,Homicide,Acres\n" + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    df = _frame(ns["data"])
    assert df["Homicide"].dtype == "float64" and df["Homicide"].isna().sum() == 7
    assert df["Acres"].dtype == "float64" and df["Acres"].isna().sum() == 6
    assert prof.loader_check.verified


def test_rows_alternating_a_code_with_numbers_are_rows(tmp_path: Path) -> None:
    """A daily weather export where 'T' (a trace) is most of two columns, alternating with numbers
    from row to row: no two rows were of the same kinds, so the table was read from its last row."""
    rows = [f"2023-02-{i + 1:02d},{'T' if i == 4 else f'{i * 0.07:.2f}'},{'T' if i % 2 else '1.2'},"
            f"{'T' if i % 3 else '1'}" for i in range(15)]
    f = _write(tmp_path / "precip.csv", "Date,Precipitation,Snowfall,Snow Depth\n" + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    df = _frame(ns["data"])
    assert list(df.columns) == ["Date", "Precipitation", "Snowfall", "Snow Depth"] and len(df) == 15
    assert (df["Snowfall"] == "T").sum() == 7


def test_a_dash_among_short_codes_is_a_value(tmp_path: Path) -> None:
    """A mutation file's alleles: A, C, G, T, and '-' for a deletion. Taken for a gap, every
    deletion lost its allele. Among words (a city's name) a lone '-' is still a gap."""
    alleles = "ACGT-"
    rows = [f"GENE{i}\t{36293220 + i * 7919}\t{alleles[i % 5]}\t{['Boston', 'Denver', 'Austin', 'Seattle', '-'][i % 5]}"
            for i in range(30)]
    f = _write(tmp_path / "calls.maf", "Hugo_Symbol\tStart_Position\tTumor_Seq_Allele2\tCity\n" + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    df = _frame(ns["data"])
    assert (df["Tumor_Seq_Allele2"] == "-").sum() == 6
    assert df["City"].isna().sum() == 6


@pytest.mark.parametrize(("values", "kept"), [
    ([f"{-5 - i % 17}" for i in range(30)] + ["-99"], True),  # a storm's -99 nT among quiet hours: a value
    ([f"{(i * 977) % 15025}" for i in range(60)] + ["99999"], True),  # incomes capped at 99999: a top code
    ([f"{80000 + i * 1700}" for i in range(60)] + ["9999999"], False),  # ten times the largest: a fill
    ([f"{6920 + i * 7}" for i in range(30)] + ["-99999"], False),  # negative, five digits: a fill
])
def test_which_sentinels_are_read_as_missing(tmp_path: Path, values: list[str], kept: bool) -> None:
    prof, ns = profile_and_load(_write(tmp_path / "series.csv", "hour,value\n" + "".join(f"{i},{v}\n" for i, v in enumerate(values))))
    df = _frame(ns["data"])
    assert (df["value"].isna().sum() == 0) == kept
    note = next(n for n in prof.tables[0].notes if n.startswith(FILL_VALUE_NOTE))
    assert ("possibly" in note) == kept


def test_a_field_its_types_row_declares_numeric_reads_its_codes_as_gaps(tmp_path: Path) -> None:
    """USGS RDB: '14n' declares the gage height a number, so 'Eqp' (equipment failure) and 'Ice'
    are gaps there, whatever their share; a '10s' field of codes keeps its text."""
    rows = [f"USGS\t07374000\t2021-01-{i % 28 + 1:02d}\t{'Eqp' if 5 <= i < 40 else 'Ice' if i % 13 == 0 else f'{11 + i / 100:.2f}'}\tP"
            for i in range(60)]
    f = _write(tmp_path / "dv.rdb", "# USGS daily values\n#\nagency_cd\tsite_no\tdatetime\t149138_00065_00003\tcd\n"
               "5s\t15s\t20d\t14n\t10s\n" + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    df = _frame(ns["data"])
    assert df["149138_00065_00003"].dtype == "float64" and df["149138_00065_00003"].isna().sum() == 37
    assert (df["cd"] == "P").all() and df["site_no"].iloc[0] == "07374000"
    assert prof.loader_check.verified


def test_a_dagger_in_brackets_marks_a_gap() -> None:
    """NCES writes '(†)' where a value does not apply, and 'NR †' is a marker with its footnote."""
    assert marker_shaped("(†)") and marker_shaped("‡") and marker_shaped("NR †")
    assert not marker_shaped("12 †") and not marker_shaped("Total †")


def test_a_statistics_office_s_legend_of_four_symbols_and_a_column_of_dashes(tmp_path: Path) -> None:
    """Statistics Canada marks gaps four ways ('..', '...', 'x', 'F'); a prison census writes '–'
    for no women in all but two institutions. Both columns load as numbers."""
    marks = ["..", "x", "F", "..."]
    rows = ['"Region {}","{}","{}"'.format(i, marks[i % 4] if i % 3 == 0 else f"{i * 1234:,}",
                                           "–" if i not in (4, 10) else f"{i * 310:,}") for i in range(40)]
    f = _write(tmp_path / "crime.csv", "Geography,2018,Female\n" + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    df = _frame(ns["data"])
    assert df["2018"].dtype == "float64" and df["2018"].isna().sum() == 14 and df["2018"].max() == 38 * 1234
    assert df["Female"].dtype == "float64" and df["Female"].notna().sum() == 2
    assert prof.loader_check.verified
