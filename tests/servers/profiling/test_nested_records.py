"""Records nested in records (a service's sites, each with its measurements): a table of their own."""

from __future__ import annotations

import json
from pathlib import Path

from lakeboard.servers.profiling.nested_records import child_path, meta_fields, nested_rows, nested_table
from tests.servers.profiling.loading import profile_and_load


def _series(site: str, lat: float, unit: str, n: int) -> dict:
    return {"sourceInfo": {"siteName": site, "siteCode": [{"value": site[:4], "network": "N"}],
                           "geo": {"lat": lat, "lon": -lat}},
            "variable": {"name": "Streamflow", "unit": {"code": unit}, "noDataValue": -999999.0},
            "values": [{"value": [{"value": str(100 + i if i % 7 else -999999), "qualifiers": ["P"],
                                   "dateTime": f"2024-01-20T{i % 24:02d}:00:00"} for i in range(n)],
                        "method": [{"id": 1}]}],
            "name": f"USGS:{site}"}


def test_a_list_nested_under_each_record_is_found_through_lists_and_objects() -> None:
    parents = [_series("RIVER A", 39.0, "ft3/s", 30), _series("RIVER B", 38.5, "ft", 30)]
    assert child_path(parents[0]) == ["values", "value"]
    assert nested_table(parents) == (["values", "value"], 60)
    meta = meta_fields(parents, {"value", "qualifiers", "dateTime"})
    # the fields that tell the parents apart come first; the shared ones follow
    assert meta[:3] == [["sourceInfo", "siteName"], ["sourceInfo", "geo", "lat"], ["sourceInfo", "geo", "lon"]]
    assert ["variable", "name"] in meta
    rows = nested_rows(parents, ["values", "value"], [["sourceInfo", "siteName"], ["missing", "key"]])
    assert len(rows) == 60 and rows[30]["sourceInfo.siteName"] == "RIVER B" and rows[0]["missing.key"] is None


def test_a_few_details_per_record_are_not_a_table() -> None:
    """Tags, or the instruments that saw an event: fewer than five a parent stay a column of lists."""
    parents = [{"id": i, "instruments": [{"name": "C2"}, {"name": "C3"}, {"name": "COR2"}][: 1 + i % 3]}
               for i in range(40)]
    assert nested_table(parents) is None
    assert nested_table([{"id": 1, "items": [{"sku": str(i)} for i in range(8)]}]) is None  # too few children


def test_a_list_of_series_at_the_root(tmp_path: Path) -> None:
    f = tmp_path / "series.json"
    f.write_text(json.dumps([{"station": s, "data": [{"t": i, "v": i * 0.5} for i in range(12)]} for s in "ABC"]))
    prof, ns = profile_and_load(f)
    assert [(t.name, t.n_rows) for t in prof.tables] == [("data", 36), ("records", 3)]
    assert list(ns["data"]["data"].columns) == ["t", "v", "station"] and len(ns["data"]["records"]) == 3
    assert prof.loader_check.verified


def test_a_service_response_loads_a_row_per_measurement(tmp_path: Path) -> None:
    f = tmp_path / "iv.json"
    doc = {"name": "response", "value": {"queryInfo": {"note": [{"title": "t", "value": "v"}] * 3},
                                         "timeSeries": [_series("RIVER A", 39.0, "ft3/s", 48),
                                                        _series("RIVER B", 38.5, "ft", 48)]}}
    f.write_text(json.dumps(doc))
    prof, ns = profile_and_load(f)
    t = prof.tables[0]
    assert t.name == "value/timeSeries/values/value" and t.options["layout"] == "nested_records" and t.n_rows == 96
    assert "96 records under value/timeSeries/values/value" in prof.summary
    df = ns["data"][t.name]
    assert len(df) == 96 and df["value"].dtype == "float64"
    assert df["value"].isna().sum() == 14  # -999999, the series' no-data value, read as missing
    assert list(df["sourceInfo.siteName"].unique()) == ["RIVER A", "RIVER B"]
    assert df["sourceInfo.geo.lat"].tolist()[-1] == 38.5
    assert prof.loader_check.verified
    # the parents stay a table too
    assert len(ns["data"]["value/timeSeries"]) == 2
