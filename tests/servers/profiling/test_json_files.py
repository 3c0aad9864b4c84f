"""JSON, JSON lines and YAML: structure, the record list to normalise, mappings, damaged files."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from lakeboard.servers.profiling import json_files, profile_file
from tests.servers.profiling.loading import profile_and_load


def test_records_under_a_key_are_normalised(tmp_path: Path) -> None:
    f = tmp_path / "api.json"
    records = [{"id": i, "city": ["Oslo", "Lima", "Pune"][i % 3], "geo": {"lat": i, "lon": -i}} for i in range(50)]
    f.write_text(json.dumps({"meta": {"source": "api", "page": 1}, "results": records}))
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.format == "json" and prof.kind == "table"
    t = prof.tables[0]
    assert t.options == {"path": ["results"], "layout": "records"} and t.n_rows == 50
    assert [c.name for c in t.columns] == ["id", "city", "geo.lat", "geo.lon"]
    assert set(next(c for c in t.columns if c.name == "city").top_values) == {"Oslo", "Lima", "Pune"}
    assert '"results": [50 x {id, city, geo}]' in prof.text
    assert ns["data"].shape == (50, 4)


def test_mapping_of_keys_to_values(tmp_path: Path) -> None:
    f = tmp_path / "codes.json"
    f.write_text(json.dumps({"AK": "Alaska", "AL": "Alabama", "AZ": "Arizona"}, indent=2))
    prof, ns = profile_and_load(f)
    t = prof.tables[0]
    assert t.options["layout"] == "mapping"
    assert "Alaska" in next(c for c in t.columns if c.name == "value").top_values
    assert "mapping 3 keys" in prof.summary
    assert ns["data"].to_dict("records")[0] == {"key": "AK", "value": "Alaska"}


def test_object_of_objects_and_columns(tmp_path: Path) -> None:
    index = tmp_path / "index.json"
    index.write_text(json.dumps({"a": {"x": 1, "y": 2}, "b": {"x": 3, "y": 4}}))
    columns = tmp_path / "columns.json"
    columns.write_text(json.dumps({"x": [1, 2, 3], "y": ["p", "q", "r"]}))
    p1, ns1 = profile_and_load(index)
    p2, ns2 = profile_and_load(columns)
    assert p1.tables[0].options["layout"] == "index" and ns1["data"].shape == (2, 2)
    assert p2.tables[0].options["layout"] == "columns" and ns2["data"].shape == (3, 2)


def test_rows_of_values_take_the_names_the_document_lists(tmp_path: Path) -> None:
    # pandas' "split" layout lists the names beside the rows; an open-data portal's export lists
    # them as objects in its metadata, with a hidden row id first
    split = tmp_path / "split.json"
    split.write_text(json.dumps({"columns": ["a", "b"], "index": list(range(25)), "data": [[i, i * 2.0] for i in range(25)]}))
    portal = tmp_path / "portal.json"
    fields = [{"name": n, "dataTypeName": "text"} for n in ("sid", "Borough", "Count", "Borough")]
    rows = [[f"row-{i}", ["Bronx", "Queens"][i % 2], 10 + i, "x"] for i in range(30)]
    portal.write_text(json.dumps({"meta": {"view": {"name": "Complaints", "columns": fields}}, "data": rows}))
    prof, ns = profile_and_load(split)
    assert [c.name for c in prof.tables[0].columns] == ["a", "b"] and list(ns["data"].columns) == ["a", "b"]
    assert ns["data"]["b"].tolist()[:3] == [0.0, 2.0, 4.0]
    prof, ns = profile_and_load(portal)
    names = [c.name for c in prof.tables[0].columns]
    assert names == ["sid", "Borough", "Count", "Borough.1"] and list(ns["data"].columns) == names
    assert ns["data"]["Count"].tolist()[:2] == [10, 11] and "fields sid, Borough, Count" in prof.summary


def test_rows_whose_first_names_the_columns(tmp_path: Path) -> None:
    """APIs return lists of lists whose first row names the columns (census tables, space-weather
    feeds), the numbers often as text; an all-text list keeps its first row as data."""
    feed = tmp_path / "plasma-1-day.json"
    feed.write_text(json.dumps([["time_tag", "density", "speed"]]
                               + [[f"2024-01-01 {h:02d}:00", f"{1 + h / 10:.2f}", f"{400 + h}.0"] for h in range(24)]))
    words = tmp_path / "pairs.json"
    words.write_text(json.dumps([["state", "capital"], ["Ohio", "Columbus"], ["Utah", "Salt Lake City"]]))
    prof, ns = profile_and_load(feed)
    t = prof.tables[0]
    assert [c.name for c in t.columns] == ["time_tag", "density", "speed"] and t.n_rows == 24
    # the numbers written as text load as numbers, as the profile reads them
    assert ns["data"].shape == (24, 3) and ns["data"]["speed"].iloc[0] == 400.0
    assert [c.dtype for c in t.columns] == ["str", "float64", "float64"]
    assert prof.loader_check.verified, prof.loader_check
    prof, ns = profile_and_load(words)
    assert [c.name for c in prof.tables[0].columns] == ["0", "1"] and ns["data"].shape == (3, 2)


def test_an_object_of_objects_beside_metadata_is_the_table(tmp_path: Path) -> None:
    """A time series keyed by date under its own key, beside a metadata object: the root's two
    entries were taken for the table's two rows."""
    f = tmp_path / "daily.json"
    series = {f"2024-01-{d:02d}": {"1. open": str(100 + d), "4. close": str(101 + d)} for d in range(1, 21)}
    f.write_text(json.dumps({"Meta Data": {"1. Information": "Daily Prices", "2. Symbol": "XYZ"},
                             "Time Series (Daily)": series}))
    prof, ns = profile_and_load(f)
    t = prof.tables[0]
    assert t.options["path"] == ["Time Series (Daily)"] and t.options["layout"] == "index" and t.n_rows == 20
    assert t.options["numeric_text"] == ["1. open", "4. close"] and ns["data"]["4. close"].iloc[0] == 102
    assert [c.name for c in t.columns] == ["1. open", "4. close"]
    assert ns["data"].shape == (20, 2) and ns["data"].index[0] == "2024-01-01"
    assert prof.loader_check.verified, prof.loader_check


def test_each_record_list_of_a_document_is_a_table(tmp_path: Path) -> None:
    f = tmp_path / "export.json"
    stations = [{"id": i, "name": f"s{i}"} for i in range(5)]
    readings = [{"station": i % 5, "v": i * 0.5} for i in range(40)]
    f.write_text(json.dumps({"stations": stations, "readings": readings, "note": [{"text": "one record only"}]}))
    prof, ns = profile_and_load(f)
    assert [(t.name, t.n_rows) for t in prof.tables] == [("readings", 40), ("stations", 5)]  # the longest first
    assert {k: v.shape for k, v in ns["data"].items()} == {"readings": (40, 2), "stations": (5, 2)}
    assert prof.summary.startswith("JSON with 2 tables: 40 records under readings")


def test_json_lines(tmp_path: Path) -> None:
    f = tmp_path / "events.jsonl"
    f.write_text("".join(json.dumps({"kind": "click" if i % 2 else "view", "n": i}) + "\n" for i in range(30)))
    prof, ns = profile_and_load(f)
    assert prof.format == "jsonl" and prof.tables[0].n_rows == 30
    assert ns["data"].shape == (30, 2)


def test_json_lines_under_a_json_name(tmp_path: Path) -> None:
    f = tmp_path / "lines.json"
    f.write_text('{"a": 1}\n{"a": 2}\n{"a": 3}\n')
    prof, ns = profile_and_load(f)
    assert prof.format == "jsonl" and ns["data"]["a"].tolist() == [1, 2, 3]


def test_invalid_json_says_where(tmp_path: Path) -> None:
    f = tmp_path / "broken.json"
    f.write_text('{"a": [1, 2,, 3]}')
    prof = profile_file(f, tmp_path)
    assert prof.status == "unreadable" and "line 1 column" in prof.reason
    assert "return None" in prof.loader


def test_big_json_is_read_from_its_beginning(tmp_path: Path) -> None:
    f = tmp_path / "big.json"
    row = {"id": 1, "name": "a fairly long name to make the file bigger", "value": 3.25}
    n = (json_files.FULL_BYTES // len(json.dumps(row))) + 5000
    with f.open("w") as out:
        out.write('{"count": %d, "items": [' % n)
        out.write(",".join(json.dumps({**row, "id": i}) for i in range(n)))
        out.write("]}")
    t0 = time.perf_counter()
    prof = profile_file(f, tmp_path)
    assert time.perf_counter() - t0 < 20
    t = prof.tables[0]
    assert prof.status == "ok" and t.options["path"] == ["items"] and not t.n_rows_exact
    assert [c.name for c in t.columns] == ["id", "name", "value"]
    assert prof.text.startswith("(structure of the first part")
    assert abs(t.n_rows - n) < 0.1 * n


def test_documents_the_fast_parser_misreads_fall_back_to_json() -> None:
    """NaN tokens, integers beyond 64 bits, BOMs and 8-bit text parse exactly as json.loads reads them."""
    big = 123456789012345678901234567890
    cases = {
        b'{"a": NaN, "b": Infinity}': "utf-8",
        b'[18446744073709551616, -9223372036854775809, ' + str(big).encode() + b"]": "utf-8",
        b'\xef\xbb\xbf{"a": 1}': "utf-8-sig",
        '{"name": "Zürich"}'.encode("latin-1"): "cp1252",
        b'[1e400, 0.1, -0]': "utf-8",
    }
    for raw, enc in cases.items():
        obj, got = json_files.parse_document(raw)
        assert got == enc
        text = raw.decode(enc)
        assert json.dumps(obj) == json.dumps(json.loads(text)), raw
    assert json_files.parse_document(b"[" + str(big).encode() + b"]")[0] == [big]


def test_deeply_nested_json_does_not_crash_the_parser() -> None:
    """A fast parser that recurses on the C stack must not see documents nested 200k deep."""
    raw = b"[" * 200_000 + b"]" * 200_000
    try:
        json_files.parse_document(raw)
    except RecursionError:
        pass  # what json.loads says; the point is that the process is still here


def test_a_frame_written_by_pandas_to_json_is_read_by_column(tmp_path: Path) -> None:
    """pandas' default to_json keys by column, then by row number; an object of records keyed by
    an id keys by row, then by column. Each comes back with its rows as rows."""
    import pandas as pd

    frame = pd.DataFrame({"name": list("abcde"), "age": [30, 40, 50, 60, 70], "score": [1.5, 2.5, 3.5, 4.5, 5.5]})
    frame.to_json(tmp_path / "frame.json")
    prof, ns = profile_and_load(tmp_path / "frame.json")
    assert [c.name for c in prof.tables[0].columns] == ["name", "age", "score"]
    assert ns["data"].shape == (5, 3) and list(ns["data"]["age"]) == [30, 40, 50, 60, 70]

    people = {f"id{i}": {"name": n, "age": 30 + i} for i, n in enumerate("abcdef")}
    (tmp_path / "people.json").write_text(json.dumps(people))
    prof, ns = profile_and_load(tmp_path / "people.json")
    assert [c.name for c in prof.tables[0].columns] == ["name", "age"] and ns["data"].shape == (6, 2)


def test_records_whose_numbers_are_strings_load_as_numbers(tmp_path: Path) -> None:
    """Open-data portals export every value as a string ({"count": "12"}); codes padded with
    zeros stay text."""
    f = tmp_path / "requests.json"
    f.write_text(json.dumps([{"zip": f"0{2100 + i}", "count": str(i * 3), "share": f"{i / 7:.3f}", "borough": "X"}
                             for i in range(15)]))
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert str(df["count"].dtype) == "int64" and str(df["share"].dtype) == "float64" and df["zip"].iloc[0] == "02100"
    assert prof.loader_check.verified, prof.loader_check


# -- YAML ---------------------------------------------------------------------------------------
def test_a_yaml_config_with_a_list_of_runs_is_a_table(tmp_path: Path) -> None:
    runs = "".join(f"  - run_id: run-{i:03d}\n    learning_rate: {0.001 / (i + 1):.6f}\n    early_stopped: {str(i % 2 == 0).lower()}\n"
                   for i in range(12))
    f = tmp_path / "sweep.yaml"
    f.write_text("project: sweep\nmodel:\n  name: resnet18\nresults:\n" + runs)
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert prof.format == "yaml" and prof.kind == "table" and df.shape == (12, 3)
    assert df["early_stopped"].dtype == bool and df["learning_rate"].iloc[0] == 0.001
    assert prof.loader_check.verified, prof.loader_check


def test_yaml_documents_one_after_another(tmp_path: Path) -> None:
    f = tmp_path / "events.yml"
    f.write_text("".join(f"---\nid: {i}\nkind: click\n" for i in range(5)))
    prof, ns = profile_and_load(f)
    assert prof.format == "yaml" and ns["data"].shape == (5, 2)


@pytest.mark.parametrize("text", [
    "key: [unclosed\n",  # no YAML
    "a: &a [1, 2]\n" + "".join(f"b{i}: &b{i} [*a, *a]\n" for i in range(60)),  # references that multiply
    "run: !!python/object/apply:os.system ['touch pwned']\n",  # a tag that would run code
])
def test_yaml_that_cannot_be_read_safely_is_a_text_document(tmp_path: Path, text: str) -> None:
    f = tmp_path / "config.yaml"
    f.write_text(text)
    prof = profile_file(f, tmp_path)
    assert prof.format == "text" and prof.kind == "document" and prof.status == "ok"
    assert not (tmp_path / "pwned").exists()


def test_sentinels_of_an_api_s_rows_are_read_as_missing(tmp_path: Path) -> None:
    """The Census API writes -666666666 where it has no estimate (numbers as strings, the first
    row the header): a mean over a county's incomes took it in."""
    rows = [["NAME", "B19013_001E", "state", "county"]] + [[f"County {i}", str(40000 + i * 731), "48", f"{i:03d}"]
                                                          for i in range(30)]
    rows[5][1] = "-666666666"
    f = tmp_path / "acs.json"
    f.write_text(json.dumps(rows))
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert df["B19013_001E"].isna().sum() == 1 and df["B19013_001E"].min() > 0
    assert prof.loader_check.verified, prof.loader_check
