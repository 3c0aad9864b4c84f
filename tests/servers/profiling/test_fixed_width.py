"""Tables aligned with spaces: whitespace-separated and fixed-width columns."""

from __future__ import annotations

from pathlib import Path

from tests.servers.profiling.loading import profile_and_load


def test_whitespace_separated_with_preamble(tmp_path: Path) -> None:
    f = tmp_path / "station.dat"
    lines = ["Station 42 hourly export", "Units: degrees C, hPa", "", "hour   temp   pressure"]
    lines += [f"{h:>4}   {10 + h * 0.5:>5.1f}   {1000 + h:>6}" for h in range(24)]
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.format == "fwf" and prof.kind == "table"
    t = prof.tables[0]
    assert t.delimiter == "whitespace" and t.header_row == 3 and t.n_rows == 24
    assert [c.name for c in t.columns] == ["hour", "temp", "pressure"]
    assert "Station 42 hourly export" in t.notes
    assert ns["data"].shape == (24, 3) and ns["data"]["pressure"].iloc[-1] == 1023


def test_fixed_width_with_spaces_inside_values(tmp_path: Path) -> None:
    f = tmp_path / "cities.txt"
    rows = [("name", "country", "pop"), ("New York", "USA", "8336817"), ("Los Angeles", "USA", "3979576")]
    rows += [(f"Town {i}", "Some Land", str(1000 + i)) for i in range(10)]
    f.write_text("".join(f"{a:<14}{b:<12}{c:>9}\n" for a, b, c in rows))
    prof, ns = profile_and_load(f)
    assert prof.format == "fwf" and prof.tables[0].delimiter == "fixed-width"
    df = ns["data"]
    assert list(df.columns) == ["name", "country", "pop"]
    assert df["name"].tolist()[:2] == ["New York", "Los Angeles"] and df.shape == (12, 3)


def test_prose_is_a_document_not_a_table(tmp_path: Path) -> None:
    f = tmp_path / "readme.txt"
    f.write_text(
        "This folder holds the survey exports.\n"
        "Each file covers one month, and the columns are described in the dictionary.\n"
        "Values of -999 mean the sensor was offline.\n"
    )
    prof, ns = profile_and_load(f)
    assert prof.kind == "document" and prof.format == "text"
    assert "survey exports" in ns["data"]


def test_a_file_named_fixed_width_is_read_as_aligned_before_any_delimiter(tmp_path: Path) -> None:
    rows = [("station", "temp", "rain")] + [(f"S{i:02d}", f"{10 + i * 0.5:.1f}", str(i * 3)) for i in range(20)]
    text = "".join(f"{a:<10}{b:>6}\t{c:>5}\n" for a, b, c in rows)  # a tab that would pass for a delimiter
    (tmp_path / "obs.fwf").write_text(text)
    (tmp_path / "obs.txt").write_text(text)
    prof, ns = profile_and_load(tmp_path / "obs.fwf")
    assert prof.format == "fwf" and [c.name for c in prof.tables[0].columns] == ["station", "temp", "rain"]
    assert ns["data"].shape == (20, 3)
    prof, _ = profile_and_load(tmp_path / "obs.txt")  # the same text under a plain name: split at the tab
    assert prof.format == "tsv" and len(prof.tables[0].columns) == 2


def test_a_commented_header_names_the_columns_and_its_units_row_is_a_note(tmp_path: Path) -> None:
    """Station and buoy exports comment out their header and a row of units under it: read as
    data, the units row made every column text, and the spans merged two columns."""
    f = tmp_path / "station_41001_2024.txt"
    rows = [f"2024 01 {d:02d} {h:02d} 00 {250 + h:3d}  {6 + h / 10:.1f}  {'MM' if h % 8 == 0 else f'{8 + h / 10:.1f}'}"
            f" 1015.{h % 10}  10.{h % 10}" for d in (1, 2) for h in range(24)]
    f.write_text("# hourly observations, moored buoy\n"
                 "#YY  MM DD hh mm WDIR WSPD  GST   PRES  ATMP\n"
                 "#yr  mo dy hr mn degT m/s   m/s   hPa   degC\n" + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    t = prof.tables[0]
    assert [c.name for c in t.columns] == ["YY", "MM", "DD", "hh", "mm", "WDIR", "WSPD", "GST", "PRES", "ATMP"]
    assert t.n_rows == 48 and t.notes[0] == "hourly observations, moored buoy"
    assert "units: YY yr, MM mo, DD dy, hh hr, mm mn, WDIR degT, WSPD m/s" in t.notes[1]
    df = ns["data"]
    assert df.shape == (48, 10) and df["WSPD"].dtype == float and df["PRES"].dtype == float
    assert df["GST"].isna().sum() == 6 and df["GST"].dtype == float  # "MM" marks a missing value
    assert prof.loader_check.verified, prof.loader_check


def test_a_row_of_group_labels_ruled_with_dashes_over_the_names_is_a_note(tmp_path: Path) -> None:
    """Space-weather products stack a commented row of group labels ("---- Solar Wind ----") over
    the names; it has as many words as the data has fields, and it was taken for the names. Its
    note says which values are missing, one per label."""
    f = tmp_path / "solar_wind_1m.txt"
    rows = [f"2024 01 01  {i // 60:02d}{i % 60:02d}   60310  {i * 60:6d}    0    "
            f"{'-9999.9' if i == 4 else f'{2 + i / 10:7.1f}'}    {400 + i:7.1f}     {1e4 + i * 100:.2e}" for i in range(30)]
    f.write_text(":Created: 2024 Jan 01 0001 UT\n"
                 "# Missing data values: Density and Speed = -9999.9, Temp. = -1.00e+05\n"
                 "#                Modified Seconds\n"
                 "# UT Date   Time  Julian  of the   ----------------  Solar Wind  -----------\n"
                 "# YR MO DA  HHMM    Day     Day    S    Density     Speed      Temperature\n"
                 "#-------------------------------------------------------------------------------\n"
                 + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    t = prof.tables[0]
    assert [c.name for c in t.columns] == ["YR", "MO", "DA", "HHMM", "Day", "Day.1", "S", "Density", "Speed", "Temperature"]
    df = ns["data"]
    assert df.shape == (30, 10) and df["Density"].isna().sum() == 1 and df["Density"].min() > 0
    assert prof.loader_check.verified, prof.loader_check


def test_iaga_2002_geomagnetic_data(tmp_path: Path) -> None:
    """Observatory minute data (INTERMAGNET's IAGA-2002): header records and the names each end with
    a '|'; the header was read as a two-column table of its records."""
    head = [" Format                 IAGA-2002", " Source of Data         British Geological Survey (BGS)",
            " Station Name           Eskdalemuir", " IAGA Code              ESK",
            " # This data file was created using Geomag Algorithms."]
    lines = [f"{ln:<69}|" for ln in head] + [f"{'DATE       TIME         DOY     ESKX      ESKY      ESKZ      ESKF':<69}|"]
    lines += [f"2020-01-01 00:{i:02d}:00.000 001  {17000 + i:9.2f} {-600 - i:9.2f} {47000 + i:9.2f} "
              f"{'99999.00' if i % 10 == 0 else f'{50000 + i:.2f}':>9}" for i in range(40)]
    f = tmp_path / "esk20200101dmin.min"
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    t = prof.tables[0]
    assert [c.name for c in t.columns] == ["DATE", "TIME", "DOY", "ESKX", "ESKY", "ESKZ", "ESKF"]
    assert t.title == "IAGA-2002 geomagnetic data: Eskdalemuir" and "IAGA Code: ESK" in t.notes
    df = ns["data"]
    assert df.shape == (40, 7) and df["ESKF"].isna().sum() == 4 and df["ESKX"].iloc[3] == 17003
    assert prof.loader_check.verified, prof.loader_check


def test_a_units_row_under_the_names_joins_them(tmp_path: Path) -> None:
    """Units written under the names, right-aligned like the numbers: the row was read as data,
    and made every column text."""
    f = tmp_path / "monthly.txt"
    f.write_text("Year  Month   Precip    Temp\n              (mm)      (C)\n"
                 + "".join(f"{2000 + i // 12:4d}  {i % 12 + 1:5d}  {i * 2.5:7.1f}  {i / 3 - 5:6.1f}\n" for i in range(36)))
    prof, ns = profile_and_load(f)
    assert [c.name for c in prof.tables[0].columns] == ["Year", "Month", "Precip (mm)", "Temp (C)"]
    df = ns["data"]
    assert df.shape == (36, 4) and df["Precip (mm)"].dtype == float and df["Year"].iloc[0] == 2000
    assert prof.loader_check.verified, prof.loader_check


def test_aligned_tables_one_after_another_are_tables_of_their_own(tmp_path: Path) -> None:
    """A report of two aligned tables, each under a title and a header: the second's title, header
    and rows were read as more rows of the first (every column text)."""
    f = tmp_path / "report.txt"
    stations = "".join(f"S{i:02d}    Site{i:<6d}  {100 + i * 50:4d}\n" for i in range(8))
    readings = "".join(f"S{i % 8:02d}    2024-01-{i % 28 + 1:02d}   {i / 2 - 3:5.1f}\n" for i in range(25))
    f.write_text("Table 1. Stations\n\nID     Name        Elev\n" + stations
                 + "\nTable 2. Readings\n\nID     Date         Temp\n" + readings + "\nEnd of report\n")
    prof, ns = profile_and_load(f)
    names = [t.name for t in prof.tables]
    assert names == ["Table 1. Stations", "Table 2. Readings"]
    data = ns["data"]
    assert data["Table 1. Stations"].shape == (8, 3) and data["Table 1. Stations"]["Elev"].dtype == int
    assert data["Table 2. Readings"].shape == (25, 3) and data["Table 2. Readings"]["Temp"].iloc[0] == -3.0
    assert "End of report" in prof.tables[1].notes
    assert prof.loader_check.verified, prof.loader_check


def test_a_commented_line_of_another_width_is_a_note_not_a_header(tmp_path: Path) -> None:
    f = tmp_path / "run.txt"
    f.write_text("# run 7, calibrated\n" + "".join(f"{i:3d} {i * 0.5:6.1f} {i * 2:4d}\n" for i in range(20)))
    prof, ns = profile_and_load(f)
    t = prof.tables[0]
    assert prof.status == "ok" and "names" not in t.options and t.notes == ["# run 7, calibrated"], t.options
    assert ns["data"].shape == (20, 3)


def test_fields_separated_by_single_spaces_are_columns_though_not_aligned(tmp_path: Path) -> None:
    """Values of varying widths, one space apart (a program's plain output): not aligned in
    character columns, but every line splits into as many fields. Before, a header made a
    two-column fixed-width table (`flux err` one name), and no header made a text document."""
    named = tmp_path / "light_curve.dat"
    named.write_text("time flux err\n" + "".join(f"{i * 0.01:.2f} {1000 + i * 37.5} {i % 7 * 0.3:.1f}\n" for i in range(30)))
    prof, ns = profile_and_load(named)
    assert [c.name for c in prof.tables[0].columns] == ["time", "flux", "err"], prof.summary
    assert ns["data"].shape == (30, 3) and ns["data"]["flux"].iloc[-1] == 1000 + 29 * 37.5

    bare = tmp_path / "samples.txt"
    bare.write_text("".join(f"{i} {i * 0.5} {i * 2}\n" for i in range(20)))
    prof, ns = profile_and_load(bare)
    assert prof.kind == "table" and prof.tables[0].options.get("header", 0) is None, prof.summary
    assert ns["data"].shape == (20, 3) and prof.loader_check.verified


def test_numbers_under_a_block_of_comments_are_a_table_without_names(tmp_path: Path) -> None:
    """A monthly record under its data centre's notice, whose columns are described in words on
    two commented lines that do not split into one name per column."""
    f = tmp_path / "monthly_mean.txt"
    notice = ["# " + "-" * 40, "# USE OF THESE DATA", "# These data are made freely available.", "#",
              "#            decimal       monthly    de-season",
              "#             date         average     alized"]
    rows = [f"  {1958 + m // 12}  {m % 12 + 1:3d}  {1958 + m / 12:10.4f}  {315 + m / 10:8.2f}  {314 + m / 10:8.2f}"
            for m in range(24)]
    f.write_text("\n".join(notice + rows) + "\n")
    prof, ns = profile_and_load(f)
    assert prof.kind == "table" and ns["data"].shape == (24, 5)
    assert any("USE OF THESE DATA" in n for n in prof.tables[0].notes)


def test_the_commented_names_nearest_the_rows_name_them_and_a_status_code_is_no_fill_value(tmp_path: Path) -> None:
    """Space-weather text files: a notice whose lines have as many words as the rows ('# SOURCE:
    Geomagnetic Observatory …'), a format line, then the names right above the rows. And '9 = no
    data' among a status column's codes is not a fill value: dropped everywhere, it took every day 9."""
    f = tmp_path / "Kp_ap.txt"
    head = ["# SOURCE: Geomagnetic Observatory Niemegk, GFZ German Research Centre for Geosciences",
            "# Status: 0 = nominal data, 1 to 8 = bad data record, 9 = no data",
            "#iii iii iii ffffff fffff ii", "# The parameters in each line are:",
            "#YYY MM DD hh.h Kp D"]
    rows = [f"2024 01 {d:02d} {h:04.1f} {d / 3:.3f} {d % 3}" for d in range(1, 12) for h in (0.0, 3.0)]
    f.write_text("\n".join(head + rows) + "\n")
    prof, ns = profile_and_load(f)
    assert [c.name for c in prof.tables[0].columns] == ["YYY", "MM", "DD", "hh.h", "Kp", "D"]
    assert ns["data"]["DD"].isna().sum() == 0 and len(ns["data"]) == 22


def test_fill_values_of_a_whitespace_table_are_read_as_missing(tmp_path: Path) -> None:
    """A buoy's hourly file: 99.00 where the wave sensor gave nothing, far outside its other
    heights. As for a CSV, it is read as missing, and the loader's comment says so."""
    f = tmp_path / "buoy.txt"
    lines = ["#YY  MM DD hh WVHT  PRES", "#yr  mo dy hr    m   hPa"]
    for h in range(24):
        wave = "99.00" if h % 6 == 0 else f"{1 + h / 20:.2f}"
        lines.append(f"2023 01 01 {h:02d} {wave:>5} {1010 + h / 10:.1f}")
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    notes = [n for n in prof.tables[0].notes if n.startswith("fill value read as missing")]
    assert len(notes) == 1 and "'WVHT' holds 99" in notes[0]
    assert "fill value read as missing" in prof.loader and ns["data"]["WVHT"].max() < 3
    assert ns["data"]["WVHT"].isna().sum() == 4 and prof.loader_check.verified, prof.loader_check


def test_a_range_line_over_the_rows_and_notes_under_them(tmp_path: Path) -> None:
    """A climate index as NOAA PSL writes it: the first and last year on a line, a row per year of
    twelve monthly values, then the missing-value code, the index's name and its source. The rows
    are read by whitespace (not by column positions that the range line would merge)."""
    f = tmp_path / "nino34.data"
    lines = ["  1950  1979"]
    for y in range(1950, 1980):
        lines.append(f"  {y}" + "".join(f"{((y * 7 + m * 3) % 29 - 14) / 10:8.2f}" for m in range(12)))
    lines += ["  -99.99", "  NINO34", "  HadISST", "  https://example.org/timeseries/", "  anomalies from 1981-2010"]
    f.write_text("\n".join(lines) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert df.shape == (30, 13) and df[0].tolist()[:2] == [1950, 1951]
    assert df[1].iloc[0] == ((1950 * 7) % 29 - 14) / 10
    assert "NINO34" in prof.tables[0].notes and prof.loader_check.verified


def test_names_between_commas_in_the_comments_over_a_blank_line(tmp_path: Path) -> None:
    """Names written between commas in the last comment line ('% Year, Annual Anomaly, ...'), a
    blank line between the comments and the rows."""
    f = tmp_path / "summary.txt"
    head = ["% A brief summary of the land-surface average results.", "% Temperatures are in Celsius.", "%",
            "% Year, Annual Anomaly, Annual Unc., Five-year Anomaly", " "]
    rows = [f"  {1850 + i}  {i / 100 - 0.4:8.3f}  {0.35 - i / 1000:8.3f}  " + ("     NaN" if i < 2 else f"{i / 90 - 0.4:8.3f}")
            for i in range(20)]
    f.write_text("\n".join(head + rows) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert list(df.columns) == ["Year", "Annual Anomaly", "Annual Unc.", "Five-year Anomaly"] and len(df) == 20
    assert df["Five-year Anomaly"].isna().sum() == 2 and prof.loader_check.verified


def test_a_comment_mark_of_the_files_own_and_columns_described_by_number(tmp_path: Path) -> None:
    """PODAAC's sea-level series: every header line starts with 'HDR' (no '#'), the columns are
    described as a numbered list in it, and a line declares the missing value. The file was read as
    a text document; the numbered descriptions now name the columns, the missing value is NaN."""
    header = ["HDR Global Mean Sea Level Data", "HDR ", "HDR MISSING VALUE 99900.000", "HDR ", "HDR column description",
              "HDR 1 altimeter type 0=dual-frequency  999=single frequency (ie Poseidon-1)",
              "HDR 2 year+fraction of year (mid-cycle)",
              "HDR 3 GMSL (Global Isostatic Adjustment (GIA) not applied) variation (mm) with respect to a 20-year mean",
              "HDR 4 smoothed (60-day Gaussian type filter) GMSL (GIA applied) variation (mm); annual signal removed",
              "HDR Header_End-----------------------------------------"]
    rows = [f"   0  {1993 + i / 36:.4f}  {-37 + i / 10:8.2f}  {99900.0 if i < 2 else -36 + i / 10:9.2f}" for i in range(30)]
    f = tmp_path / "GMSL_v5.txt"
    f.write_text("\n".join(header + rows) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert prof.kind == "table" and df.shape == (30, 4)
    assert list(df.columns) == ["altimeter type 0=dual-frequency", "year+fraction of year (mid-cycle)",
                                "GMSL (Global Isostatic Adjustment (GIA) not applied)",
                                "smoothed (60-day Gaussian type filter) GMSL (GIA applied)"]
    assert df.iloc[:, 3].isna().tolist()[:3] == [True, True, False]
    assert "Global Mean Sea Level Data" in prof.tables[0].notes


def test_lines_that_all_start_with_one_word_are_not_comments(tmp_path: Path) -> None:
    """Records that each start with their type ('A 1 2 3') keep their reading: a word marks
    comments only over lines that do not start with it."""
    f = tmp_path / "records.txt"
    f.write_text("".join(f"A {i} {i * 2} {i * 3}\n" for i in range(20)))
    prof, ns = profile_and_load(f)
    assert ns["data"].shape == (20, 4) and ns["data"].iloc[0, 0] == "A"


def test_a_sentence_with_as_many_words_as_columns_does_not_name_them(tmp_path: Path) -> None:
    """NOAA's monthly CO2 record: a comment sentence of eight words over eight columns named the
    columns 'Monthly', 'mean', 'CO2' ... A sentence repeats words; names do not."""
    header = ["# Monthly mean CO2 constructed from daily mean values", "# decimal date is the center of the month.", "#"]
    rows = [f"  {1958 + m // 12}  {m % 12 + 1:3d}  {1958 + m / 12:10.4f}  {315 + m / 10:8.2f}  {314 + m / 10:8.2f}"
            f"  {-1:4d}  {-9.99:6.2f}  {-0.99:6.2f}" for m in range(24)]
    f = tmp_path / "co2_mm_mlo.txt"
    f.write_text("\n".join(header + rows) + "\n")
    prof, ns = profile_and_load(f)
    assert ns["data"].shape == (24, 8) and "mean" not in [str(c) for c in ns["data"].columns]


def test_a_mark_that_fills_whole_columns_is_a_gap_among_numbers(tmp_path: Path) -> None:
    """NDBC's realtime files: 'MM' for every value a sensor did not report, most rows of the wave
    columns (hourly among 10-minute rows) and all of an absent sensor's. Those columns were text."""
    rows = [f"2024 01 22 18 {50 - m:02d} 225  6.7 {'1.1' if m % 6 == 0 else ' MM'} 1015.0 -1.5   MM   MM"
            for m in range(0, 50, 2)]
    f = tmp_path / "44013.txt"
    f.write_text("#YY  MM DD hh mm WDIR WSPD WVHT PRES ATMP VIS TIDE\n#yr  mo dy hr mn degT m/s m hPa degC nmi ft\n"
                 + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert df["WVHT"].dtype == "float64" and df["WVHT"].notna().sum() == 9
    assert df["TIDE"].isna().all() and df["MM"].tolist()[0] == 1


_MPCORB = [
    'MINOR PLANET CENTER ORBIT DATABASE (MPCORB)',
    '',
    'This file contains published orbital elements for all numbered and unnumbered',
    'multi-opposition minor planets for which it is thought that useful predictions',
    'can be made.',
    '',
    'Important notes',
    '----------------',
    'The elements in this file are of the epoch given in the "Epoch" field.',
    'Numbered objects have packed designations in the first seven columns.',
    '',
    'Please read the documentation in  https://minorplanetcenter.net/iau/info/MPOrbitFormat.html',
    '',
    "Des'n     H     G   Epoch     M        Peri.      Node       Incl.       e            n           a        Reference #Obs #Opp    Arc    rms  Perts   Computer",
    '',
    '----------------------------------------------------------------------------------------------------------------------------------------------------------------',
    '00001    3.34  0.12 K2555 193.56644   14.39185  160.44881   11.37365  0.1358550  0.25665653   2.4522675  0 E2024-V47  5220  73 1801-2024 0.70 M-v 30k MPCLINUX   0000      (1) Ceres                   20240915',
    '00002    3.59  0.15 K2555 249.10529  319.74569   37.28964   26.36282  0.1763881  0.21013581   2.8020078  0 E2024-V47  2779  44 1802-2024 0.74 M-v 30k MPCLINUX   0000      (2) Pallas                  20241101',
    '00003    3.84  0.15 K2555 210.40580   38.57711  239.78288   19.47678  0.0203192  0.17002821   3.2269239  0 E2024-V47  6342  66 1803-2024 0.43 M-v 30k MPCLINUX   0000      (3) Juno                    20241101',
    '00004    4.09  0.15 K2555 219.46701  207.58258   27.48498   24.75487  0.2317485  0.21597638   2.7512616  0 E2024-V47  1358  74 1804-2024 0.63 M-v 30k MPCLINUX   0000      (4) Vesta                   20240915',
    '00005    4.34  0.15 K2555   3.92900   92.32954  237.60128   15.13725  0.2214786  0.24898201   2.5024039  0 E2024-V47  8177  51 1805-2024 0.53 M-v 30k MPCLINUX   0000      (5) Astraea                 20241101',
    '00006    4.59  0.12 K2555 141.70742  201.89828  115.20781   14.66500  0.2309787  0.23316734   2.6143130  0 E2024-V47  1846  98 1806-2024 0.41 M-v 30k MPCLINUX   0000      (6) Hebe                    20241101',
    '00007    4.84  0.15 K2555 351.46160  211.15841   95.29037   16.85747  0.0648837  0.28182121   2.3040236  0 E2024-V47  1354  30 1807-2024 0.46 M-v 30k MPCLINUX   0000      (7) Iris                    20240915',
    '00008    5.09  0.15 K2555  44.93198  238.66767  294.00002   24.19916  0.2016185  0.29963733   2.2117639  0 E2024-V47  8950  79 1808-2024 0.55 M-v 30k MPCLINUX   0000      (8) Flora                   20241101',
    '00009    5.34  0.15 K2555 194.94088  182.20546  219.77027   19.39491  0.1732624  0.22347889   2.6893359  0 E2024-V47  6643 116 1809-2024 0.33 M-v 30k MPCLINUX   0000      (9) Metis                   20241101',
    '00010    5.59  0.15 K2555 244.25493  253.31725  176.45312   17.65499  0.0944985  0.18025487   3.1036879  0 E2024-V47  7910  49 1810-2024 0.85 M-v 30k MPCLINUX   0000      (10) Hygiea                 20240915',
    '00011    5.84  0.12 K2555 185.92792  172.10911   49.67426   25.95527  0.1228903  0.17909039   3.1171272  0 E2024-V47  8810  75 1811-2024 0.35 M-v 30k MPCLINUX   0000      (11) Parthenope             20241101',
]


def test_a_rule_over_the_rows_is_no_header(tmp_path: Path) -> None:
    """MPCORB.DAT: notes, names, a blank line, a rule of dashes as wide as the rows, then the rows.
    The rule, taken for the header, left no gap to cut at: 4 columns, the first 160 characters wide."""
    f = tmp_path / "MPCORB.DAT"
    f.write_text("\n".join(_MPCORB) + "\n")
    prof, ns = profile_and_load(f)
    assert ns["data"].shape[0] == 11 and ns["data"].shape[1] >= 20


def test_numbers_under_comments_with_a_column_of_codes(tmp_path: Path) -> None:
    """SWPC's daily solar data: a block of comments over rows of numbers but for the X-ray
    background class ('C1.2'). That one column of codes made the file a text document."""
    rows = [f"2024 05 {10 + i:02d}   {170 + i:3d}    {130 + i:3d}     {800 + i * 20:4d}      {i % 3}    -999    "
            f"C{1 + i / 10:.1f}   {i % 9:2d} {i % 4:2d}  0" for i in range(20)]
    f = tmp_path / "DSD.txt"
    f.write_text(":Product: Daily Solar Data            DSD.txt\n:Issued: 0225 UT 09 Jun 2024\n#\n"
                 "#                Last 30 Days Daily Solar Data\n#\n"
                 "#  Date     10.7cm Number  Hemis. Regions Field  Flux   C  M  X\n#" + "-" * 60 + "\n" + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    assert prof.kind == "table" and ns["data"].shape == (20, 12)


def test_a_listing_under_thirty_comment_lines_with_a_row_of_units(tmp_path: Path) -> None:
    """CDAWeb's text listings: 30 '#' lines, then the names, a row of units no parser knows
    ('dd-mm-yyyy hh:mm:ss.ms', 'n/cc') and the rows, with no blank line between. The table
    started too deep in the file to be looked for, and it was a text document."""
    comments = ["#     PROJECT                         National Space Science Data Center"] * 28 + ["#  1. Epoch Time", "#"]
    names = f"{'EPOCH':<26}{'F':<20}{'BZ_GSM':<20}{'SYM_H':<10}"
    units = f"{'dd-mm-yyyy hh:mm:ss.ms':<26}{'nT':<20}{'nT, GSM':<20}{'nT':<10}"
    rows = [f"{f'10-05-2024 17:{i:02d}:00.000':<26}{7 + i / 10:<20.2f}{-1 + i / 7:<20.2f}{i - 5:<10d}" for i in range(20)]
    f = tmp_path / "omni_hro_list.txt"
    f.write_text("\n".join(comments + [names, units] + rows) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert prof.kind == "table" and len(df) == 20 and df.iloc[:, -1].dtype == "int64"
    assert "F nT" in df.columns
