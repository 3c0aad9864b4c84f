"""Numbers written with currency and percent signs: read as numbers by the profile and the loader alike."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from lakeboard.servers.profiling.signed_numbers import signed_column, signed_number, signed_numbers
from tests.servers.profiling.loading import profile_and_load


@pytest.mark.parametrize(("text", "decimal", "value"), [
    ("$1,006M", ".", 1.006e9),
    ("$199.6M", ".", 199.6e6),
    ("$12,537,194,708", ".", 12537194708.0),
    ("13%", ".", 13.0),
    ("98 %", ".", 98.0),
    ("-6%", ".", -6.0),
    ("+7%", ".", 7.0),
    ("0.58%", ".", 0.58),
    ("($1,250)", ".", -1250.0),
    ("-$5", ".", -5.0),
    ("$-5", ".", -5.0),
    ("€5k", ".", 5000.0),
    ("12,5 €", ",", 12.5),
    ("1.234,50 €", ",", 1234.5),
    ("1 234,50 €", ",", 1234.5),
    ("2,600,678", ".", 2600678.0),
    (".5%", ".", 0.5),
])
def test_numbers_written_with_signs(text: str, decimal: str, value: float) -> None:
    assert signed_number(text, decimal) == pytest.approx(value)


@pytest.mark.parametrize("text", [
    "12M",        # months, or anything: a scale only after a currency amount
    "1,23%",      # no grouping of thousands with a decimal point
    "$5 €",       # two currencies
    "(5%",        # an unclosed bracket
    "2020-01-05",
    "5% of 10",
    "$",
    "<1%",        # a limit stays text
    "US$ 5",
])
def test_texts_that_are_no_such_number(text: str) -> None:
    assert signed_number(text) is None


def test_a_column_needs_one_sign_and_numbers_only() -> None:
    assert signed_column(["$5", "$1,200", None, "n.a.", "0"], frozenset()) == ([5.0, 1200.0, None, None, 0.0], ".", ["n.a."])
    assert signed_column(["12,50 €", "3 €"], frozenset()) == ([12.5, 3.0], ",", [])
    assert signed_column(["5", "6", "7"], frozenset()) is None  # plain numbers: pandas reads them
    assert signed_column(["5%", "Total", "7%"], frozenset()) is None
    assert signed_column(["5%", "A", "B+", "B"], frozenset()) is None  # letters are grades, not gaps
    # counts over percents (a census table's "Total" row): the signs tell them apart, the text stays
    assert signed_column(["1,933,150", "11.6%", "10.4%"], frozenset()) is None
    assert signed_column(["$5", "7%"], frozenset()) is None


def test_reliability_and_significance_flags_after_numbers() -> None:
    """BJS marks a rate to interpret with caution ('!') and a significant change ('†'), one or both."""
    cells = ["6.5", "1.3 !", "1.8 †", "0.8 ! †", "21.0", "12.4", "--"]
    assert signed_column(cells, frozenset()) == ([6.5, 1.3, 1.8, 0.8, 21.0, 12.4, None], ".", ["--"])
    assert signed_numbers(pd.Series(["6.5", "1.3 !", "0.8 ! †", None])).tolist()[:3] == [6.5, 1.3, 0.8]


def test_flags_and_gaps_of_health_statistics() -> None:
    """CDC: 'NR †' (not reported) among estimates marked '‡'; WONDER's '5.2 (Unreliable)' beside
    'Suppressed'; a price list's '$1,234.56' among bare amounts. Grades stay text."""
    estimates = [f"{60 + i % 30}.{i % 10}" + (" ‡" if i % 9 == 0 else "") if i % 25 else "NR †" for i in range(100)]
    read = signed_column(estimates, frozenset())
    assert read is not None and read[2] == ["NR †"] and read[0][1] == 61.1
    rates = ["10.9", "5.2 (Unreliable)", "Suppressed", "1615.3", "Not Applicable", "591"]
    assert signed_column(rates, frozenset())[0] == [10.9, 5.2, None, 1615.3, None, 591.0]
    assert signed_column(["$1,234.56", "1981.04", "$12.00", "87"], frozenset())[0] == [1234.56, 1981.04, 12.0, 87.0]
    assert signed_column(["5%", "A", "B+", "B"], frozenset()) is None


def test_a_sheet_s_lists_of_numbers_are_no_decimals() -> None:
    """An excavation register's 'Below' cells list context numbers ("997,991"): no decimal comma
    is read in a sheet's text where a comma has three digits after it; "1,5" still is one."""
    assert signed_column(["997,991", "1001", "1008,1002"], frozenset(), plain=True) is None
    assert signed_column(["1,5", "2,25", "3"], frozenset(), plain=True) == ([1.5, 2.25, 3.0], ",", [])
    assert signed_column(["76,678", "1,204"], frozenset(), plain=True) == ([76678.0, 1204.0], ".", [])


def test_a_column_of_numbers_with_scale_letters() -> None:
    """NOAA's storm damages: every number carries K, M or B; a column of months ("12M") alone does not scale."""
    assert signed_column(["10.00K", "0.00K", None, "1.50M", "2.5B"], frozenset()) == (
        [10000.0, 0.0, None, 1.5e6, 2.5e9], ".", [])
    assert signed_column(["12M", "6M", "24M"], frozenset()) is None
    assert signed_column(["10K", "12", "5K"], frozenset()) is None  # a plain number among them: codes
    assert signed_numbers(pd.Series(["25.00K", None, "12.00M"])).tolist()[::2] == [25000.0, 12e6]


def test_a_storm_events_file_loads_its_damages_in_dollars(tmp_path: Path) -> None:
    f = tmp_path / "storms.csv"
    rows = [f"{i},Hail,{['0.00K', '10.00K', '1.50M', ''][i % 4]},{['0.00K', '2.5K', '', '0.00K'][i % 4]}" for i in range(40)]
    f.write_text("EVENT_ID,EVENT_TYPE,DAMAGE_PROPERTY,DAMAGE_CROPS\n" + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert df["DAMAGE_PROPERTY"].sum() == 10 * (10000 + 1.5e6) and df["DAMAGE_CROPS"].max() == 2500
    assert prof.loader_check.verified


def test_the_loaded_column_is_left_as_it_was_if_a_cell_is_no_number() -> None:
    good = pd.Series(["$5", None, "13%"])
    assert signed_numbers(good).tolist()[::2] == [5.0, 13.0]
    bad = pd.Series(["$5", "see note", "13%"])
    assert signed_numbers(bad) is bad


def test_a_table_of_currency_and_percents_loads_as_numbers(tmp_path: Path) -> None:
    rows = [f'"{age}",{n},{p}%,"${m:,}M","${d:,}"' for age, n, p, m, d in [
        ("19 and Under", 30330, 3, 55, 189), ("20 - 29", 155346, 13, 430, 417), ("60 - 69", 208896, 18, 1180, 691),
        ("80 and Over", 51713, 4, 319, 1650)]]
    f = tmp_path / "losses.csv"
    f.write_text("Losses by Age\n\nAge Range,# of Reports,Percentage,Total $ Lost,Median $ Loss\n" + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    table = prof.tables[0]
    assert [c.dtype for c in table.columns] == ["str", "int64", "int64", "int64", "int64"]  # whole numbers, no gap
    assert df["Total $ Lost"].tolist() == [55e6, 430e6, 1180e6, 319e6]
    assert df["Median $ Loss"].tolist() == [189.0, 417.0, 691.0, 1650.0]
    assert df["Percentage"].tolist() == [3.0, 13.0, 18.0, 4.0]
    assert prof.loader_check is not None and prof.loader_check.verified, prof.loader_check


def test_decimal_comma_amounts_with_gaps(tmp_path: Path) -> None:
    rows = [f"{i};{i},50 €;{'n.a.' if i == 3 else f'{i * 2},5 %'}" for i in range(1, 9)]
    f = tmp_path / "preise.csv"
    f.write_text("Nr;Preis;Anteil\n" + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert df["Preis"].tolist() == [i + 0.5 for i in range(1, 9)]
    assert df["Anteil"].isna().tolist() == [i == 3 for i in range(1, 9)]
    assert df["Anteil"].iloc[0] == 2.5
    assert prof.loader_check is not None and prof.loader_check.verified, prof.loader_check


def test_a_column_of_codes_with_a_percent_stays_text(tmp_path: Path) -> None:
    f = tmp_path / "codes.csv"
    f.write_text("id,grade\n" + "\n".join(f"{i},{'A' if i % 2 else 'B+'}" for i in range(10)) + "\n10,5%\n")
    prof, ns = profile_and_load(f)
    assert prof.tables[0].columns[1].dtype == "str"
    assert "signed_numbers" not in prof.tables[0].options


def test_a_sheet_that_holds_amounts_as_text(tmp_path: Path) -> None:
    """A brokerage's export writes amounts as text cells ('-$17,135.85'), an agency's counts as
    text with thousands marks ('76,678'): read as numbers too; codes ('01001') stay text."""
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Export"
    ws.append(["Symbol", "Quantity", "Price", "Amount", "Fires", "County"])
    for i in range(12):
        ws.append([f"S{i}", 5 + i, f"${100 + i * 3.25:,.2f}", f"-${(5 + i) * (100 + i * 3.25) * 10:,.2f}",
                   f"{76678 + i * 1000:,}", f"{1001 + i * 2:05d}"])
    f = tmp_path / "export.xlsx"
    wb.save(f)
    prof, ns = profile_and_load(f)
    df = ns["data"]["Export"]
    assert df["Price"].iloc[1] == 103.25 and df["Amount"].iloc[0] == -5000.0
    assert df["Fires"].iloc[1] == 77678.0 and df["County"].iloc[0] == "01001"
    assert [c.dtype for c in prof.tables[0].columns] == ["str", "int64", "float64", "int64", "int64", "str"]
    assert prof.loader_check.verified, prof.loader_check


def test_footnote_marks_on_a_few_numbers() -> None:
    """A yearbook's counts with a footnote's letter or star on some ('791413a', '5,896*'): numbers,
    the mark dropped (the footnote stays a note). Marks on most cells are codes ('12a', '12b');
    '+' tops codes off ('3+' dependents) and keeps its text."""
    assert signed_column(["791413a", "3788850", "...", "–", "1200", "5,896*"], frozenset()) == (
        [791413.0, 3788850.0, None, None, 1200.0, 5896.0], ".", ["...", "–"])
    assert signed_column(["12a", "12b", "13"], frozenset()) is None
    assert signed_column(["0", "1", "2", "3+"], frozenset()) is None


def test_a_yearbook_table_with_footnote_letters_loads_as_numbers(tmp_path: Path) -> None:
    rows = [f"Country {i},{700000 + i * 1013}{'a' if i % 5 == 0 else ''},{30 + i / 10:.1f}" for i in range(20)]
    rows[7] = "Country 7,...,30.7"
    f = tmp_path / "dyb.csv"
    f.write_text("Country,Live births 2021,Crude birth rate\n" + "\n".join(rows) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert df["Live births 2021"].iloc[0] == 700000.0 and df["Live births 2021"].isna().sum() == 1
    assert prof.loader_check.verified, prof.loader_check
