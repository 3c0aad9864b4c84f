"""Headerless tables named by a document beside them: a numbered list of items (a format file,
a README), or a CDS ReadMe's byte-by-byte description. Each lake test writes the files, indexes
them, and runs the generated loader."""

from __future__ import annotations

import gzip
import random
from pathlib import Path

import pandas as pd

from lakeboard.servers.profiling import profile_file, profile_lake
from lakeboard.servers.profiling.column_lists import cds_descriptions, numbered_lists, position_lists
from lakeboard.servers.profiling.lake import apply_declarations
from lakeboard.servers.relevance.dictionaries import link_dictionaries
from tests.servers.profiling.loading import run_loader

FORMAT_FILE = """ FORMAT OF THE SUBSETTED FILE

    ITEMS                      FORMAT

 1 YEAR                          I4
 2 DOY                           I4
 3 Hour                          I3
 4 Scalar B, nT                  F6.1
 5 SW Plasma Speed, km/s         F6.0
 6 Dst-index, nT                 I6
"""

README = """J/A+A/1/1   Stars of a survey   (Someone+, 2020)
================================================================================
Byte-by-byte Description of file: stars.dat
--------------------------------------------------------------------------------
   Bytes Format Units   Label     Explanations
--------------------------------------------------------------------------------
   1-  3  I3    ---     Seq       [1/126] Sequential number
   5- 14  A10   ---     Name      Name of the object
  16- 17  I2    h       RAh       Right ascension (J2000)
  19- 23  F5.2  mag     Vmag      ? Visual magnitude
      25  A1    ---   n_Vmag      [v] Note on Vmag
                                  (continued explanation)
--------------------------------------------------------------------------------
Byte-by-byte Description of file: other.dat
--------------------------------------------------------------------------------
   1-  4  I4    yr      Year      Year of observation
--------------------------------------------------------------------------------
"""

STARS = [(1, "HD 1234", 5, "6.12", "v"), (2, "HD 99", 12, "", ""), (3, "BD+20 307", 3, "10.50", ""),
         (4, "Vega", 18, "0.03", "v"), (5, "HR 7001", 22, "1.10", ""), (6, "X Y Z", 1, "9.99", "")]


LAYOUT = """README FILE FOR STATIONS

IV. FORMAT OF "stations.txt"

------------------------------
Variable   Columns   Type
------------------------------
ID            1-11   Character
LATITUDE     12-19   Real
LONGITUDE    20-28   Real
STATE        29-30   Character
NAME         32-61   Character
------------------------------

ID         is the station identification code.
"""

STATIONS = [("USC00010008", 31.5702, -85.2482, "AL", "ABBEVILLE"), ("USW00013876", 33.5656, -86.745, "AL", "BIRMINGHAM AP"),
            ("CA001010235", 48.4, -123.4833, "BC", "ACTIVE PASS"), ("USC00010252", 31.3071, -86.5226, "AL", "ANDALUSIA 3 W")]


def _hourly(n: int = 48) -> str:
    rng = random.Random(3)
    return "".join(f"{2003:4d}{1 + h // 24:4d}{h % 24:3d}{rng.uniform(2, 12):6.1f}{rng.randint(300, 700):5d}."
                   f"{rng.randint(-80, 10):6d}\n" for h in range(n))


def _stars() -> str:
    return "".join(f"{s:3d} {n:<10s} {h:2d} {v:>5s} {f:1s}".rstrip() + "\n" for s, n, h, v, f in STARS)


def _index(lake: Path, tmp_path: Path) -> dict:
    return {p.path: p for p in profile_lake(lake, tmp_path / "cache", workers=1)}


def test_a_numbered_list_gives_its_items_names_without_formats_or_descriptions() -> None:
    [(heading, cols)] = numbered_lists(FORMAT_FILE)
    assert cols.names == ["YEAR", "DOY", "Hour", "Scalar B, nT", "SW Plasma Speed, km/s", "Dst-index, nT"]
    assert "FORMAT OF THE SUBSETTED FILE" in heading
    text = "Files\nrain.dat columns:\nColumn 1: Year\nColumn 2: Month - the month of the year\n\nColumn 3: Rain (mm)\n"
    assert [c.names for _, c in numbered_lists(text)] == [["Year", "Month", "Rain (mm)"]]


def test_steps_and_rows_of_numbers_are_no_list_of_names() -> None:
    steps = "1. Download the archive from the website and unpack it into a new folder\n2. Run the script\n"
    rows = "1 2003 5.5\n2 2003 6.1\n3 2003 7.0\n"
    assert numbered_lists(steps) == [] and numbered_lists(rows) == []


def test_a_cds_readme_gives_each_files_labels_and_characters() -> None:
    described = cds_descriptions(README)
    assert set(described) == {"stars.dat", "other.dat"}
    stars = described["stars.dat"]
    assert stars.names == ["Seq", "Name", "RAh", "Vmag", "n_Vmag"]
    assert stars.spans == [[0, 3], [4, 14], [15, 17], [18, 23], [24, 25]]
    assert "RAh (h): Right ascension (J2000)" in stars.note
    assert described["other.dat"].names == ["Year"]


def test_a_format_file_of_the_same_name_names_a_headerless_tables_columns(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    lake.mkdir()
    (lake / "omni2_hourly.lst").write_text(_hourly())
    (lake / "omni2_hourly.fmt").write_text(FORMAT_FILE)
    (lake / "other.lst").write_text(_hourly())  # no document names it: it stays numbered
    profiles = _index(lake, tmp_path)
    table = profiles["omni2_hourly.lst"].tables[0]
    df = run_loader(profiles["omni2_hourly.lst"])["data"]
    assert list(df.columns) == ["YEAR", "DOY", "Hour", "Scalar B, nT", "SW Plasma Speed, km/s", "Dst-index, nT"]
    assert len(df) == 48 and df["Hour"].max() == 23
    assert [c.name for c in table.columns] == list(df.columns)
    assert "omni2_hourly.fmt" in table.notes[-1]
    # the format file is served with the table it describes (a companion, as a data dictionary is)
    assert profiles["omni2_hourly.lst"].described_by == ["omni2_hourly.fmt"]
    assert link_dictionaries(list(profiles.values())).closest["omni2_hourly.lst"] == ["omni2_hourly.fmt"]
    assert profiles["omni2_hourly.lst"].loader_check.verified
    assert [c.name for c in profiles["other.lst"].tables[0].columns] == [str(i) for i in range(6)]


def test_a_list_of_another_length_or_a_table_with_a_header_is_left_alone(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    lake.mkdir()
    (lake / "short.lst").write_text(_hourly())
    (lake / "short.fmt").write_text("1 YEAR I4\n2 DOY I4\n3 Hour I3\n")
    (lake / "named.csv").write_text("a,b,c\n" + "".join(f"{i},{i * 2},{i * 3}\n" for i in range(10)))
    (lake / "named.txt").write_text("1 x\n2 y\n3 z\n")
    before = [profile_file(lake / p, lake) for p in ("short.lst", "short.fmt", "named.csv", "named.txt")]
    after = apply_declarations(before, lake, workers=0)
    assert after[0] is before[0] and after[2] is before[2]


def test_a_readme_names_a_headerless_csvs_columns_in_the_lines_above_its_list(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    (lake / "rain").mkdir(parents=True)
    (lake / "rain" / "rain.csv").write_text("".join(f"{2000 + i},{1 + i % 12},{i * 1.5:.1f}\n" for i in range(30)))
    (lake / "rain" / "wind.csv").write_text("".join(f"{2000 + i},{i % 7},{i * 0.5:.1f}\n" for i in range(30)))
    (lake / "README.md").write_text("# Weather\n\nThe columns of rain/rain.csv:\n\n1. Year\n2. Month\n3. Rain (mm)\n")
    profiles = _index(lake, tmp_path)
    df = run_loader(profiles["rain/rain.csv"])["data"]
    assert list(df.columns) == ["Year", "Month", "Rain (mm)"] and len(df) == 30
    assert profiles["rain/rain.csv"].loader_check.verified
    assert [c.name for c in profiles["rain/wind.csv"].tables[0].columns] == ["0", "1", "2"]  # not named above the list


def test_a_readme_of_a_folder_names_its_one_headerless_table_of_that_width(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    for folder in ("one", "two"):
        (lake / folder).mkdir(parents=True)
        (lake / folder / "README.txt").write_text("Daily rain\n\nColumns:\n1. Year\n2. Month\n3. Rain (mm)\n")
        (lake / folder / "a.csv").write_text("".join(f"{2000 + i},{1 + i % 12},{i * 1.5:.1f}\n" for i in range(30)))
    (lake / "two" / "b.csv").write_text("".join(f"{2000 + i},{i % 7},{i * 0.5:.1f}\n" for i in range(30)))
    profiles = _index(lake, tmp_path)
    assert profiles["one/a.csv"].column_names == ["Year", "Month", "Rain (mm)"]
    assert profiles["two/a.csv"].column_names == ["0", "1", "2"]  # which of two tables? not said


def test_a_cds_readme_reads_its_files_by_their_characters_also_compressed(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    lake.mkdir()
    (lake / "ReadMe").write_text(README)
    (lake / "stars.dat.gz").write_bytes(gzip.compress(_stars().encode()))
    star = _index(lake, tmp_path)["stars.dat.gz"]
    df = run_loader(star)["data"]
    assert list(df.columns) == ["Seq", "Name", "RAh", "Vmag", "n_Vmag"]
    assert df["Name"].tolist() == [n for _, n, *_ in STARS]  # names with spaces stay whole
    assert pd.isna(df["Vmag"][1]) and df["Vmag"][3] == 0.03
    assert star.loader_check.verified
    assert any("Right ascension" in n for n in star.tables[0].notes)


def test_a_layout_of_positions_gives_names_and_characters() -> None:
    [(heading, cols)] = position_lists(LAYOUT)
    assert cols.names == ["ID", "LATITUDE", "LONGITUDE", "STATE", "NAME"]
    assert cols.spans == [[0, 11], [11, 19], [19, 28], [28, 30], [31, 61]]
    assert '"stations.txt"' in heading
    assert position_lists("Data from 1990-2000 were kept.\nAnd 12-14 more.\n") == []


def test_a_readme_layout_reads_fields_that_touch(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    (lake / "ghcn").mkdir(parents=True)
    (lake / "ghcn" / "readme.txt").write_text(LAYOUT)
    # the fields touch: no run of spaces tells the first three apart
    lines = [f"{i:11s}{lat:8.4f}{lon:9.4f}{st:2s} {name:30s}\n" for i, lat, lon, st, name in STATIONS]
    (lake / "ghcn" / "stations.txt").write_text("".join(lines))
    (lake / "ghcn" / "wide.txt").write_text("".join(lines))  # not named above the layout
    (lake / "other").mkdir()
    (lake / "other" / "readme.txt").write_text(LAYOUT)
    (lake / "other" / "stations.txt").write_text("".join(ln[:-1] + "  14  2.5  7\n" for ln in lines))  # longer lines
    profiles = _index(lake, tmp_path)
    df = run_loader(profiles["ghcn/stations.txt"])["data"]
    assert list(df.columns) == ["ID", "LATITUDE", "LONGITUDE", "STATE", "NAME"]
    assert df["LONGITUDE"].tolist() == [s[2] for s in STATIONS] and df["NAME"][1] == "BIRMINGHAM AP"
    assert profiles["ghcn/stations.txt"].loader_check.verified
    assert "LATITUDE" not in profiles["ghcn/wide.txt"].column_names
    assert "LATITUDE" not in profiles["other/stations.txt"].column_names


def test_the_cache_serves_the_declared_profile_and_forgets_it_when_the_document_goes(tmp_path: Path) -> None:
    from lakeboard.servers.profiling.cache import ProfileCache

    lake = tmp_path / "lake"
    lake.mkdir()
    (lake / "omni2_hourly.lst").write_text(_hourly())
    (lake / "omni2_hourly.fmt").write_text(FORMAT_FILE)
    _index(lake, tmp_path)
    served = ProfileCache(tmp_path / "cache").load_many(["omni2_hourly.lst"])["omni2_hourly.lst"]  # as file agents read it
    assert served.column_names[:2] == ["YEAR", "DOY"] and "names=" in served.loader
    (lake / "omni2_hourly.fmt").unlink()
    _index(lake, tmp_path)
    served = ProfileCache(tmp_path / "cache").load_many(["omni2_hourly.lst"])["omni2_hourly.lst"]
    assert served.column_names[:2] == ["0", "1"]


def test_characters_a_layout_leaves_out_are_noted(tmp_path: Path) -> None:
    """A layout that elides a run of repeated columns ("VALUE1 ... VALUE4") reads the ones it lists,
    and says which characters it leaves out."""
    lake = tmp_path / "lake"
    lake.mkdir()
    (lake / "readme.txt").write_text('FORMAT OF "daily.dly"\n\nID            1-11   Character\n'
                                     "YEAR         12-15   Integer\nVALUE1       16-20   Integer\n"
                                     "   .           .          .\nVALUE4       31-35   Integer\n")
    (lake / "daily.dly").write_text("".join(f"USC00010008{2000 + i}{i:5d}{i + 1:5d}{i + 2:5d}{i + 3:5d}\n" for i in range(10)))
    daily = _index(lake, tmp_path)["daily.dly"]
    df = run_loader(daily)["data"]
    assert list(df.columns) == ["ID", "YEAR", "VALUE1", "VALUE4"] and df["VALUE4"].tolist() == [i + 3 for i in range(10)]
    assert any(n.startswith("characters 21-30 are in no column") for n in daily.tables[0].notes)


def test_a_format_file_that_is_a_link_out_of_the_lake_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside.fmt"
    outside.write_text(FORMAT_FILE)
    lake = tmp_path / "lake"
    lake.mkdir()
    (lake / "omni2_hourly.lst").write_text(_hourly())
    (lake / "omni2_hourly.fmt").symlink_to(outside)
    before = [profile_file(lake / "omni2_hourly.lst", lake),
              profile_file(lake / "omni2_hourly.lst", lake).model_copy(update={"path": "omni2_hourly.fmt", "size_bytes": 10})]
    after = apply_declarations(before, lake, workers=0)
    assert after[0] is before[0]  # the link was not followed: nothing declared


def test_a_readme_of_the_folder_that_names_the_files_kind_lays_out_each_file(tmp_path: Path) -> None:
    """A network's readme lays out its '.stn' files ('FORMAT OF DATA FILES (".stn" FILES)', as
    GHCN-Daily's does its '.dly', which `ghcn_daily` now reads itself) and names no station's file:
    each was a text document. A suffix as common as .txt names no kind."""
    lake = tmp_path / "lake"
    (lake / "net").mkdir(parents=True)
    (lake / "net" / "readme.txt").write_text(
        'III. FORMAT OF DATA FILES (".stn" FILES)\n\nEach ".stn" file contains data for one station.\n\n'
        + "\n".join(["Notes on the variables follow.", "", "More notes on the variables.", "", "Variable   Columns   Type",
                     "ID            1-11   Character", "YEAR         12-15   Integer", "MONTH        16-17   Integer",
                     "ELEMENT      18-21   Character", "VALUE1       22-26   Integer"]) + "\n")
    rows = [f"st000094728{2021:4d}{m:02d}{e:4s}{v:5d}\n" for m in range(1, 13) for e, v in (("TMAX", 268 + m), ("PRCP", m))]
    (lake / "net" / "st000094728.stn").write_text("".join(rows))
    (lake / "net" / "notes.txt").write_text("".join(rows))
    profiles = _index(lake, tmp_path)
    df = run_loader(profiles["net/st000094728.stn"])["data"]
    assert list(df.columns) == ["ID", "YEAR", "MONTH", "ELEMENT", "VALUE1"] and len(df) == 24
    assert df["VALUE1"].iloc[0] == 269
    assert "ELEMENT" not in profiles["net/notes.txt"].column_names
