"""Finding tables in a grid: titles, header rows, data, footnotes, stacked tables."""

from __future__ import annotations

from typing import Any, Sequence

from lakeboard.servers.profiling.table_layout import TEXT, VALUE, cell_kind, combine_header_rows, find_blocks, trailing_notes


class Grid:
    def __init__(self, rows: list[Sequence[Any]]) -> None:
        self.rows = rows
        self.blank = [all(v in (None, "") for v in r) for r in rows]

    def __len__(self) -> int:
        return len(self.rows)

    def is_blank(self, i: int) -> bool:
        return self.blank[i]

    def row(self, i: int) -> Sequence[Any]:
        return self.rows[i]


def test_cell_kinds() -> None:
    for v in ("1,234", "-5.2e3", "(12)", "$71M", "41%", "2024-01-31", "9/22/2002", "3:04:34 PM", "N/A", 7, 2.5):
        assert cell_kind(v) == VALUE, v
    for v in ("Alabama", "# of Reports", "20 - 29", "x", "Total $ Loss"):
        assert cell_kind(v) == TEXT, v


def test_title_header_data_footnotes() -> None:
    g = Grid(
        [
            ["Number of reports by year", None],
            [None, None],
            ["Year", "Reports"],
            [2001, 325519],
            [2002, 551622],
            [None, None],
            ["The figures exclude duplicate complaints.", None],
        ]
    )
    (b,) = find_blocks(g)
    assert b.title_rows == [0] and b.header_rows == [2]
    assert (b.data_start, b.data_end) == (3, 4)
    assert b.footnote_rows == [6]


def test_units_row_above_the_header_is_a_note() -> None:
    g = Grid(
        [
            ["Data supplement", None, None, None],
            [None, None, "(ppm)", "(ppm)"],
            ["Site", "Depth", "Al", "Si"],
            ["A", 0.1, 1.0, 2.0],
            ["A", 0.2, 1.5, 2.5],
        ]
    )
    (b,) = find_blocks(g)
    assert b.header_rows == [2] and b.title_rows == [0, 1]


def test_units_row_under_the_header_joins_the_names() -> None:
    # labels over labels agree in kind: the data starts at the first row of values
    g = Grid(
        [
            ["Port throughput statistics", None, None, None],
            ["Calendar year 2019", None, None, None],
            [None, None, None, None],
            ["month", "dry_bulk", "containers", "cruise_pax"],
            [None, "tonnes", "TEU", "passengers"],
            ["Jan 2019", 298522, 48811, 0],
            ["Feb 2019", 409481, 49131, 0],
        ]
    )
    (b,) = find_blocks(g)
    assert b.header_rows == [3, 4] and b.data_start == 5
    assert b.names == ["month", "dry_bulk tonnes", "containers TEU", "cruise_pax passengers"]


def test_spanning_header_over_sub_labels() -> None:
    g = Grid(
        [
            ["Area", "Base", "Estimate", None, None],
            [None, None, 2020, 2021, 2022],
            ["North", 1, 2, 3, 4],
            ["South", 5, 6, 7, 8],
        ]
    )
    (b,) = find_blocks(g)
    assert b.header_rows == [0, 1]
    assert b.names == ["Area", "Base", "Estimate 2020", "Estimate 2021", "Estimate 2022"]
    assert combine_header_rows(["a", None], [None, "b"]) == ["a", "a b"]


def test_lone_labels_after_the_data_are_footnotes_even_without_a_blank_row() -> None:
    g = Grid(
        [
            ["Area", "2020", "2021"],
            ["North", 1, 2],
            ["South", 3, 4],
            ["Suggested Citation:", None, None],
            ["Release Date: December", None, None],
        ]
    )
    (b,) = find_blocks(g)
    assert b.data_end == 2 and b.footnote_rows == [3, 4]


def test_blank_row_inside_a_table_keeps_one_table() -> None:
    g = Grid([["k", "v"], ["a", 1], ["b", 2], [None, None], ["c", 3], ["d", 4]])
    (b,) = find_blocks(g)
    assert b.data_end == 5 and b.has_blank_rows


def test_incomplete_grid_leaves_the_end_open() -> None:
    g = Grid([["k", "v"], ["a", 1], ["b", 2], ["Note: not the end of the file", None]])
    (b,) = find_blocks(g, complete=False)
    assert b.data_end is None and b.footnote_rows == []


def test_trailing_notes_of_a_tail() -> None:
    rows = [["a", "1", "2"], ["b", "3", "4"], ["", "", ""], ["Source: the survey office", "", ""], ["", "", ""]]
    assert trailing_notes(rows) == 3
    assert trailing_notes([["a", "1"], ["b", "2"]]) == 0


def test_names_over_units_over_qualifiers_are_one_header() -> None:
    g = Grid(
        [
            ["LOG5", "Station1", "M1000", 1234, "Hourly"],
            ["TIMESTAMP", "RECORD", "AirT_Avg", "RH"],
            ["TS", "RN", "Deg C", "%"],
            [None, None, "Avg", "Smp"],
            ["2024-01-01 00:00", 0, 5.0, 60],
            ["2024-01-01 01:00", 1, 5.5, 61],
        ]
    )
    (b,) = find_blocks(g)
    assert b.title_rows == [0] and b.header_rows == [1, 2, 3] and b.data_start == 4
    assert b.names == ["TIMESTAMP TS", "RECORD RN", "AirT_Avg Deg C Avg", "RH % Smp"]


def test_a_title_split_at_its_comma_over_short_names_stays_a_title() -> None:
    g = Grid([["Station readings", " provisional"], ["date", "pm25"], ["2024-01-01", 1.5], ["2024-01-02", 3.0]])
    (b,) = find_blocks(g)
    assert b.title_rows == [0] and b.header_rows == [1] and b.names is None


def test_units_pint_knows_join_the_names_and_powers_are_never_evaluated() -> None:
    g = Grid([["time", "temperature", "pressure"], ["s", "degC", "hPa"], [0, 20.5, 1001], [1, 20.7, 1002]])
    (b,) = find_blocks(g)
    assert b.header_rows == [0, 1] and b.names == ["time s", "temperature degC", "pressure hPa"]
    # text a unit parser would raise to a power: not read as units (and the layout returns at once)
    g = Grid([["x", "y", "z"], ["m**9**9**9", "9**9**9**9", "s^99^99"], [0, 1.5, 2], [1, 2.5, 3]])
    (b,) = find_blocks(g)
    assert b.header_rows == [1] and b.names is None
