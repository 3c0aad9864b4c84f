from lakeboard.schemas.profiles import ColumnProfile, FileProfile, TableProfile
from lakeboard.servers.relevance import LexicalEngine
from lakeboard.servers.relevance.data_form import geometry_words, granularity_words
from tests.servers.relevance.conftest import table_profile


def _rows(path: str, rows: list[dict]) -> FileProfile:
    cols = [ColumnProfile(name=k, dtype="str") for k in rows[0]]
    return FileProfile(path=path, format="csv", kind="table", tables=[TableProfile(columns=cols, sample_rows=rows)])


def test_granularity_from_the_gaps_between_dated_rows():
    daily = _rows("a.csv", [{"date": f"2024-01-{d:02d}", "v": 1} for d in range(1, 8)])
    monthly = _rows("b.csv", [{"when": f"2024-{m:02d}-01", "v": 1} for m in range(1, 8)])
    unordered = _rows("c.csv", [{"installed": d, "v": 1} for d in ("2019-05-01", "2011-02-03", "2020-01-09", "2015-07-07")])
    assert "daily" in granularity_words(daily)
    assert "monthly" in granularity_words(monthly)
    assert granularity_words(unordered) == ""  # an inventory's dates, not a time series


def test_geometry_words_from_the_geometry_column():
    layer = _rows("d.gpkg", [{"name": "north", "geometry": "POLYGON ((0 0, 1 0, 1 1, 0 0))"}])
    assert "boundary" in geometry_words(layer) and "polygon" in geometry_words(layer)


def test_requests_meet_abbreviated_columns_and_the_form_of_the_data():
    weather = table_profile("w/daily_2024.dat", {"DATE": ["20240101"], "TMAX": ["1.0"], "TMIN": ["0.1"], "PRCP": ["0.0"]})
    sales = table_profile("s/sales.csv", {"store": ["a", "b"], "revenue": ["1", "2"]})
    shapes = _rows("g/districts.gpkg", [{"code": "D1", "geometry": "POLYGON ((0 0, 1 0, 1 1, 0 0))"}])
    people = table_profile("g/population.csv", {"code": ["D1"], "population": ["10"]})
    eng = LexicalEngine([weather, sales, shapes, people])
    assert eng.score("rainfall and maximum temperature")[0].path == "w/daily_2024.dat"
    assert "g/districts.gpkg" in [m.path for m in eng.score("population with boundary polygons")[:2]]


def test_a_unit_at_the_end_of_a_column_name_is_read_as_the_unit():
    harbours = table_profile("h/harbour_returns.csv", {"month": ["2020-01"], "landed_t": ["151.2"], "fuel_l": ["900"],
                                                       "turn_min": ["42.5"]})
    shop = table_profile("s/shop.csv", {"item": ["tent", "rope"], "price": ["1", "2"]})
    eng = LexicalEngine([harbours, shop])
    for request in ("tonnes landed", "litres of fuel", "turn minutes"):
        top = eng.score(request)[0]
        assert top.path == "h/harbour_returns.csv" and len(top.matched_terms) == 2, request


def test_a_unit_symbol_is_read_only_at_the_end_of_a_longer_name():
    # a column called "t" or "l" alone is a label of any kind; "t_start" does not hold tonnes
    bare = table_profile("a/bare.csv", {"t": ["1"], "t_start": ["2"], "l": ["3"]})
    assert not LexicalEngine([bare]).score("tonnes and litres")
