"""The relevance engine over a small lake, with the weights shipped in the package (no embedding)."""

from __future__ import annotations

import numpy as np
import pytest

from lakeboard.servers.profiling.families import describe_families
from lakeboard.servers.relevance import LakeIndex, RelevanceEngine, parse_query
from lakeboard.servers.relevance.engine import GATE_INPUTS, gate_row
from lakeboard.servers.relevance.features import FEATURES, feature_rows

from .conftest import table_profile


def _engine(profiles, paths=None, tmp_path=None) -> RelevanceEngine:
    lake = LakeIndex.build(profiles, describe_families(profiles))
    if tmp_path is not None:  # through the files the indexer writes, as a file agent reads them
        lake.save(tmp_path)
        lake = LakeIndex.load(tmp_path, paths=paths)
    return RelevanceEngine(lake, paths)


def _paths(ranking) -> list[str]:
    return [m.path for m in ranking.matches]


def test_the_file_a_request_describes_ranks_first(small_lake):
    eng = _engine(small_lake)
    assert _paths(eng.rank(parse_query("total amount spent by the Parks department")))[0] == "budget/city_budget_2023.csv"
    assert _paths(eng.rank(parse_query("How many riders did the Red line have in 2001?")))[0] == "transit/ridership.csv"


def test_an_unreadable_file_is_never_offered(small_lake):
    eng = _engine(small_lake)
    assert "broken.parquet" not in _paths(eng.rank(parse_query("broken parquet truncated")))


def test_a_partition_scores_its_files_on_the_lake_scale(small_lake, tmp_path):
    """A file agent loads only its own files' facts, yet gives each the lake-wide probability."""
    whole = {m.path: m.score for m in _engine(small_lake).rank(parse_query("Red line riders")).matches}
    part = _engine(small_lake, ["transit/ridership.csv", "transit/ridership_dictionary.csv"], tmp_path)
    assert {f.path for f in part.facts} == {"transit/ridership.csv", "transit/ridership_dictionary.csv"}
    for m in part.rank(parse_query("Red line riders")).matches:
        assert m.score == pytest.approx(whole[m.path], abs=1e-4)


def test_an_id_in_the_request_is_evidence_for_the_file_named_for_it():
    """A rare exact token (an id in a file's name) is a content term of the request, and only the
    file named for it has it. (How much it weighs is the fitted model's business: the real lakes
    it was fitted on ask for no ids.)"""
    orbits = [table_profile(f"orbits/{n}.txt", {"epoch": ["2024-01-01"], "altitude": ["500"]}) for n in (80412, 80413, 91002)]
    wide = table_profile("catalog.csv", {"count": ["1"], "year": ["2024"], "satellite": ["a"], "orbit": ["z"]})
    eng = _engine([*orbits, wide])
    query = parse_query("satellite 80412 in 2024 using the orbit history")
    rows = feature_rows(eng.evidence(query), eng.positions, eng.facts)
    by_path = {f.path: dict(zip(FEATURES, r)) for f, r in zip(eng.facts, rows)}
    assert "80412" in query.terms and by_path["orbits/80412.txt"]["bm25_name"] == 1.0
    assert all(by_path[p]["bm25_name"] == 0.0 for p in ("orbits/80413.txt", "orbits/91002.txt", "catalog.csv"))
    assert by_path["orbits/80412.txt"]["cover"] > by_path["orbits/80413.txt"]["cover"]


def test_names_written_together_match_the_words_apart():
    a = table_profile("sentinelb-passes.csv", {"time": ["1"], "pass": ["2"]})
    b = table_profile("landsat-passes.csv", {"time": ["1"], "pass": ["2"]})
    eng = _engine([a, b])
    assert _paths(eng.rank(parse_query("count the Sentinel B passes")))[0] == "sentinelb-passes.csv"


def test_a_dictionary_is_a_companion_of_the_table_it_describes(small_lake):
    eng = _engine(small_lake)
    ridership = next(m for m in eng.rank(parse_query("riders per transit line")).matches
                     if m.path == "transit/ridership.csv")
    assert ridership.companions == ["transit/ridership_dictionary.csv"]


def test_an_off_topic_request_gets_a_lower_gate_than_an_on_topic_one(small_lake):
    eng = _engine(small_lake)
    on = eng.rank(parse_query("riders of the Red transit line by year"))
    off = eng.rank(parse_query("unicorns grazing on Mars"))
    assert off.gate < on.gate
    assert off.gate < eng.weights.policy.gate_at


def test_the_gate_reads_the_strongest_evidence_the_lead_of_the_best_file_and_the_dense_standing():
    rows = np.zeros((3, len(FEATURES)))
    rows[1, FEATURES.index("name_fit")] = 0.5
    row = gate_row(rows, np.array([0.2, 0.9, 0.4]), 2.5)
    assert row.shape == (1, len(GATE_INPUTS)) and row[0, GATE_INPUTS.index("name_fit")] == 0.5
    assert row[0, GATE_INPUTS.index("best_p")] == pytest.approx(0.9)
    assert row[0, GATE_INPUTS.index("lead")] == pytest.approx(0.5) and row[0, GATE_INPUTS.index("dense_standing")] == 2.5


def test_a_match_names_the_files_with_its_bytes_and_a_partition_reads_them_back(small_lake, tmp_path):
    copy = table_profile("archive/budget_copy.csv", {"department": ["Parks", "Transit", "Police"],
                                                     "amount": ["100", "200", "300"]})
    profiles = [*small_lake, copy]
    lake = LakeIndex.build(profiles, describe_families(profiles),
                           copies=[["archive/budget_copy.csv", "budget/city_budget_2023.csv"]])
    lake.save(tmp_path)
    eng = RelevanceEngine(LakeIndex.load(tmp_path, paths=["budget/city_budget_2023.csv"]), ["budget/city_budget_2023.csv"])
    [best] = eng.rank(parse_query("total amount spent by the Parks department")).matches
    assert best.path == "budget/city_budget_2023.csv" and best.copies == ["archive/budget_copy.csv"]


def test_a_scientific_file_is_found_by_what_its_variables_say_they_hold(small_lake, tmp_path):
    """A NetCDF variable's long name is evidence, as a table's columns are: the words of the
    request below are in no file's name and no variable's name."""
    from scipy.io import netcdf_file

    from lakeboard.servers.profiling import profile_file

    nc = tmp_path / "hydro" / "station_17.nc"
    nc.parent.mkdir()
    with netcdf_file(nc, "w") as f:
        f.createDimension("time", 3)
        v = f.createVariable("q", "f4", ("time",))
        v[:] = [1.0, 2.0, 3.0]
        v.long_name = b"river discharge at the gauge"
    eng = _engine([*small_lake, profile_file(nc, tmp_path)])
    assert _paths(eng.rank(parse_query("discharge of the river at its gauge")))[0] == "hydro/station_17.nc"


def test_a_table_inside_a_zip_archive_is_found_by_its_columns(small_lake, tmp_path):
    """The tables inside an archive are evidence for the archive: the request's words are only in
    the columns and values of a CSV zipped in it."""
    import zipfile

    from lakeboard.servers.profiling import profile_file

    archive = tmp_path / "downloads" / "bundle_3.zip"
    archive.parent.mkdir()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("part/a.csv", "glacier,meltwater_runoff_m3\nvatna,120\nlangjokull,80\n")
    eng = _engine([*small_lake, profile_file(archive, tmp_path)])
    assert _paths(eng.rank(parse_query("meltwater runoff of each glacier")))[0] == "downloads/bundle_3.zip"
