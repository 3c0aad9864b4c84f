"""What a loader returned against what its profile expects: shapes, and the sentences that say where they differ."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from lakeboard.common.loaded_tables import expected_shapes, problems, shapes_from_json, shapes_of
from lakeboard.schemas.profiles import ColumnProfile, FileProfile, TableProfile, TableShape


def _profile(*tables: TableProfile) -> FileProfile:
    return FileProfile(path="f.csv", format="csv", kind="table", tables=list(tables))


def _table(name: str | None, columns: dict[str, str], rows: int, exact: bool = True) -> TableProfile:
    return TableProfile(name=name, columns=[ColumnProfile(name=n, dtype=d) for n, d in columns.items()],
                        n_rows=rows, n_rows_exact=exact)


def test_a_frame_that_matches_its_profile_has_no_problems() -> None:
    df = pd.DataFrame({"year": [1998, 1999], "rain": [1.5, None], "site": ["a", "b"]})
    expected = expected_shapes(_profile(_table(None, {"year": "int64", "rain": "float64", "site": "str"}, 2)))
    [shape] = shapes_of(df)
    assert shape == TableShape(columns=["year", "rain", "site"], numeric=["year", "rain"], rows=2)
    assert problems([shape], expected) == []


def test_a_header_row_among_the_data_is_counted_and_reported() -> None:
    # two files stacked: the second one's header is a data row now, and every column is text
    df = pd.DataFrame({"year": ["1998", "year", "1999"], "rain": ["1.5", "rain", "2.0"], "site": ["a", "site", "b"]})
    [shape] = shapes_of(df)
    assert shape.header_rows_in_data == 1 and shape.numeric == []
    found = problems([shape], expected_shapes(_profile(_table(None, {"year": "int64", "rain": "float64", "site": "str"}, 2))))
    assert "3 rows loaded, the profile counted 2" in found
    assert "columns 'year', 'rain' loaded as text, though the profile read numbers there" in found
    assert "1 data row repeats the column names (a header read as data)" in found


def test_one_cell_equal_to_its_column_name_is_not_a_header_row() -> None:
    df = pd.DataFrame({"status": ["open", "status", "closed"], "note": ["x", "y", "z"], "n": [1, 2, 3]})
    assert shapes_of(df)[0].header_rows_in_data == 0


def test_a_numeric_column_loaded_as_text_is_named() -> None:
    df = pd.DataFrame({"month": ["Jan", "Feb", "Mar"], "rain": ["1.0", "M", "2.5"]})  # a missing marker kept as text
    found = problems(shapes_of(df), expected_shapes(_profile(_table(None, {"month": "str", "rain": "float64"}, 3))))
    assert found == ["column 'rain' loaded as text, though the profile read numbers there"]


def test_a_column_of_no_values_may_load_as_text() -> None:
    """JSON records whose field is null in every record: the profile types it float64, pandas object."""
    df = pd.DataFrame({"id": [1, 2], "size": [None, None]})
    table = _table(None, {"id": "int64", "size": "float64"}, 2)
    table.columns[1].null_fraction = 1.0
    assert problems(shapes_of(df), expected_shapes(_profile(table))) == []


def test_a_missing_sheet_and_differing_columns_are_reported_by_table() -> None:
    profile = FileProfile(path="w.xlsx", format="excel", kind="table", tables=[
        _table("Data", {"a": "int64", "b": "str"}, 2), _table("Notes", {"text": "str"}, 1)])
    loaded = shapes_of({"Data": pd.DataFrame({"a": [1, 2], "c": ["x", "y"]})})
    found = problems(loaded, expected_shapes(profile))
    assert found == [
        "table 'Data': column names differ: it lacks column 'b' and it has column 'c' that the profile does not",
        "table 'Notes' is missing from what it returned",
    ]


def test_a_files_only_table_matches_whatever_the_loader_called_it() -> None:
    loaded = shapes_of({"Sheet1": pd.DataFrame({"a": [1]})})
    assert problems(loaded, expected_shapes(_profile(_table(None, {"a": "int64"}, 1)))) == []


def test_an_estimated_row_count_is_a_lower_bound() -> None:
    expected = expected_shapes(_profile(_table(None, {"a": "int64"}, 1000, exact=False)))
    assert expected[0].rows == 500 and not expected[0].rows_exact
    assert problems(shapes_of(pd.DataFrame({"a": range(900)})), expected) == []
    assert problems(shapes_of(pd.DataFrame({"a": range(10)})), expected) == [
        "10 rows loaded, fewer than the at least 500 the profile expects"]


def test_repeated_column_names_are_said_so() -> None:
    got = TableShape(columns=["a", "b", "a"], rows=1)
    want = TableShape(columns=["a", "b", "a.1"], rows=1)
    assert problems([got], [want]) == [
        "column names differ: it lacks column 'a.1'", "column 'a' is named more than once"]


def test_arrays_text_and_nothing() -> None:
    assert shapes_of(np.zeros((4, 3))) == [TableShape(rows=4)]
    assert [s.name for s in shapes_of({"x": np.arange(5), "attrs": {"units": "m"}})] == ["x"]
    assert shapes_of("some text") == [] and shapes_of(None) == []
    assert problems([], expected_shapes(_profile(_table(None, {"a": "int64"}, 1)))) == [
        "it returned no table; the profile expects 1 table"]
    assert problems([], []) == []


def test_shapes_cross_a_process_boundary_as_json() -> None:
    df = pd.DataFrame({"a": [1, 2], "b": ["a", "x"]})
    printed = json.dumps([s.model_dump() for s in shapes_of({"t": df})])
    assert shapes_from_json(json.loads(printed)) == shapes_of({"t": df})
