"""HTML pages: the tables in them, title and headings."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakeboard.servers.profiling import profile_file
from tests.servers.profiling.loading import profile_and_load

PAGE = """<!DOCTYPE html><html><head><title>Metro areas - an encyclopedia</title>
<script>var x = "<table><tr><td>not a table</td></tr></table>";</script></head>
<body><h1>Metro areas</h1><p>A metropolitan area is a region with a dense urban core and its surroundings.</p>
<table><caption>Largest areas</caption>
<tr><th>Area</th><th>2024 estimate</th><th>2020 census</th></tr>
<tr><td>North City</td><td>19,940,274</td><td>20,081,935</td></tr>
<tr><td>South Town</td><td>12,927,614</td><td>13,200,998</td></tr>
<tr><td>East Port</td><td>9,408,576</td><td>9,449,351</td></tr>
</table>
<h2>Growth</h2>
<table><tr><th colspan="2">Change</th></tr><tr><th>Area</th><th>Percent</th></tr>
<tr><td>North City</td><td>-0.7%</td></tr><tr><td>South Town</td><td>-2.1%</td></tr></table>
</body></html>"""


def test_tables_title_and_headings(tmp_path: Path) -> None:
    f = tmp_path / "metro.html"
    f.write_text(PAGE)
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.format == "html" and prof.kind == "table"
    assert prof.attributes["title"] == "Metro areas - an encyclopedia"
    assert "Growth" in prof.attributes["headings"] and "dense urban core" in prof.text
    names = [t.name for t in prof.tables]
    assert names[0] == "Largest areas" and len(names) == 2
    largest = prof.tables[0]
    assert largest.n_rows == 3 and [c.name for c in largest.columns] == ["Area", "2024 estimate", "2020 census"]
    assert "North City" in largest.columns[0].top_values
    assert ns["data"]["Largest areas"]["2024 estimate"].tolist() == [19940274, 12927614, 9408576]
    assert list(ns["data"][names[1]].columns) == ["Change Area", "Change Percent"]


def test_page_without_tables_is_a_document(tmp_path: Path) -> None:
    f = tmp_path / "about.htm"
    f.write_text(
        "<html><head><title>About</title></head><body><h1>About us</h1><p>"
        + "We publish open data. " * 5
        + "</p></body></html>"
    )
    prof, ns = profile_and_load(f)
    assert prof.kind == "document" and not prof.tables
    assert "We publish open data." in ns["data"]


def test_html_saved_as_csv(tmp_path: Path) -> None:
    f = tmp_path / "export.csv"
    f.write_text(PAGE)
    prof, ns = profile_and_load(f)
    assert prof.format == "html" and "named .csv" in prof.attributes["note"]
    assert len(ns["data"]) == 2
    assert profile_file(f, tmp_path).summary.endswith("[named .csv but the content is an HTML page]")


def test_percents_and_amounts_in_a_page_table_load_as_numbers(tmp_path: Path) -> None:
    """A page's table of changes ('−0.71%', with a minus sign, '+9.25%') and amounts ('$5.2M')."""
    rows = "".join(f"<tr><td>Area {i}</td><td>{19940274 - i * 1000}</td><td>{'−' if i % 2 else '+'}{i / 7:.2f}%</td>"
                   f"<td>${i + 1}.2M</td></tr>" for i in range(12))
    f = tmp_path / "areas.html"
    f.write_text(f"<html><body><table><tr><th>Area</th><th>2024 estimate</th><th>% change</th><th>Budget</th></tr>{rows}"
                 "</table></body></html>", encoding="utf-8")
    prof, ns = profile_and_load(f)
    df = next(iter(ns["data"].values()))
    assert df["% change"].iloc[1] == pytest.approx(-1 / 7, abs=0.01) and df["Budget"].iloc[0] == 1.2e6
    assert [c.dtype for c in prof.tables[0].columns] == ["str", "int64", "float64", "float64"]
    assert prof.loader_check.verified, prof.loader_check


def test_citation_marks_after_some_numbers_of_a_page_table(tmp_path: Path) -> None:
    """An encyclopedia's table cites sources after some names ('Tokyo[1]') and numbers
    ('37,468,000[2]'): the numbers were text, the names carried the marks. The marks are dropped."""
    rows = "".join(f"<tr><td>City {i}{'[1]' if i % 3 == 0 else ''}</td><td>{37468000 - i * 1000003:,}{'[2]' if i % 4 == 0 else ''}</td></tr>"
                   for i in range(12))
    f = tmp_path / "cities.html"
    f.write_text(f"<html><body><table><tr><th>City</th><th>Population</th></tr>{rows}</table></body></html>",
                 encoding="utf-8")
    prof, ns = profile_and_load(f)
    df = next(iter(ns["data"].values()))
    assert df["Population"].iloc[0] == 37468000 and df["Population"].dtype == "int64"
    assert df["City"].iloc[0] == "City 0" and df["City"].iloc[1] == "City 1"
    assert prof.loader_check.verified, prof.loader_check
