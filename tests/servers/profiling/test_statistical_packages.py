"""Stata, SPSS and SAS files via pyreadstat: variable labels, value labels, a loader that reads them."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyreadstat
import pytest

from lakeboard.servers.relevance.search_fields import profile_texts
from tests.servers.profiling.loading import profile_and_load

_FRAME = pd.DataFrame({"age": [30, 40, 50], "sex": [1, 2, 1], "town": ["Ashford", "Brill", "Calne"]})
_LABELS = ["Age of respondent", "Sex of respondent", "Home town"]


def _write(path: Path) -> None:
    if path.suffix == ".dta":
        pyreadstat.write_dta(_FRAME, str(path), file_label="Household survey 2020", column_labels=_LABELS,
                             variable_value_labels={"sex": {1: "male", 2: "female"}})
    elif path.suffix == ".sav":
        pyreadstat.write_sav(_FRAME, str(path), file_label="Household survey 2020", column_labels=_LABELS,
                             variable_value_labels={"sex": {1: "male", 2: "female"}})
    else:
        pyreadstat.write_xport(_FRAME, str(path), table_name="SURVEY", column_labels=_LABELS)


@pytest.mark.parametrize("name, fmt, labelled", [("survey.dta", "stata", True), ("survey.sav", "spss", True),
                                                 ("survey.xpt", "sas", False)])
def test_labels_sample_and_loader(tmp_path: Path, name: str, fmt: str, labelled: bool) -> None:
    f = tmp_path / name
    _write(f)
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.format == fmt and prof.kind == "table"
    (table,) = prof.tables
    assert [c.name for c in table.columns] == ["age", "sex", "town"] and table.n_rows == 3 and table.n_rows_exact
    assert "age: Age of respondent" in table.notes[0]
    assert table.sample_rows[0]["sex"] == ("male" if labelled else 1)  # value labels applied where the file has them
    assert list(ns["data"].columns) == ["age", "sex", "town"] and len(ns["data"]) == 3
    assert prof.loader_check is not None and prof.loader_check.verified, prof.loader_check
    texts = profile_texts(prof)
    assert any("Age of respondent" in n for n in texts.notes)
    if labelled:
        assert table.title == "Household survey 2020" and "Household survey 2020" in prof.summary
        assert "male" in texts.values


@pytest.mark.parametrize("written, named, fmt", [("survey.xpt", "survey.dat", "sas"), ("survey.sav", "survey.dta", "spss")])
def test_the_content_picks_the_reader_whatever_the_extension(tmp_path: Path, written: str, named: str, fmt: str) -> None:
    source = tmp_path / "source" / written
    source.parent.mkdir()
    _write(source)
    f = tmp_path / named
    f.write_bytes(source.read_bytes())
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.format == fmt and [c.name for c in prof.tables[0].columns] == ["age", "sex", "town"]
    assert prof.loader_check is not None and prof.loader_check.verified, prof.loader_check


def test_a_stata_file_of_the_old_format_is_read(tmp_path: Path) -> None:
    """pandas' to_stata writes Stata's format 114 by default (Stata 12 and older): it has no
    '<stata_dta>' mark, and was rejected as binary of no known format."""
    import pandas as pd

    from tests.servers.profiling.loading import profile_and_load

    pd.DataFrame({"hhid": range(1, 21), "income": [1000.5 + i for i in range(20)]}).to_stata(
        tmp_path / "survey.dta", write_index=False, version=114)
    prof, ns = profile_and_load(tmp_path / "survey.dta")
    assert prof.format == "stata" and prof.status == "ok" and len(ns["data"]) == 20


@pytest.mark.parametrize("suffix", [".dta", ".sav"])
def test_a_scale_labelled_at_its_ends_keeps_its_numbers(tmp_path: Path, suffix: str) -> None:
    """A 0-10 scale whose ends are labelled ('Left', 'Right') read as a category mixing numbers
    and labels; a variable whose every value has a label still reads as its labels."""
    frame = pd.DataFrame({"lrscale": [0, 3, 5, 7, 10, 4], "vote": [1, 2, 1, 1, 2, 2]})
    f = tmp_path / f"ess{suffix}"
    labels = {"lrscale": {0: "Left", 10: "Right"}, "vote": {1: "Yes", 2: "No"}}
    (pyreadstat.write_dta if suffix == ".dta" else pyreadstat.write_sav)(frame, str(f), variable_value_labels=labels)
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert df["lrscale"].tolist() == [0, 3, 5, 7, 10, 4] and df["vote"].tolist()[:2] == ["Yes", "No"]
    assert [c.dtype for c in prof.tables[0].columns][0] in ("float64", "int64")
    assert prof.loader_check.verified, prof.loader_check


def test_codes_a_variable_label_declares_are_missing(tmp_path: Path) -> None:
    """A conflict catalogue: 'End year (-9 = unknown)', 'Battle deaths (-99 = missing)'."""
    f = tmp_path / "conflicts.dta"
    frame = pd.DataFrame({"warnum": range(1, 41), "endyr": [1500 + i if i % 8 else -9 for i in range(40)],
                          "deaths": [1000.0 * i if i % 5 else -99.0 for i in range(40)]})
    pyreadstat.write_dta(frame, str(f), column_labels=["War number", "End year (-9 = unknown)",
                                                       "Battle deaths, best estimate (-99 = missing)"])
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert df["endyr"].isna().sum() == 5 and df["deaths"].isna().sum() == 8 and df["warnum"].notna().all()
    assert any("endyr -9" in n for n in prof.tables[0].notes)
    assert prof.loader_check.verified


def test_a_sas_transport_file_s_rows_are_counted(tmp_path: Path) -> None:
    """pyreadstat says an XPT file holds the rows it read: the profile counts them all."""
    f = tmp_path / "demo.xpt"
    pyreadstat.write_xport(pd.DataFrame({"SEQN": range(2400), "AGE": [i % 80 for i in range(2400)]}), str(f))
    prof, ns = profile_and_load(f)
    assert prof.tables[0].n_rows == 2400 and prof.tables[0].n_rows_exact and len(ns["data"]) == 2400
    assert prof.loader_check.verified
