import ast
import json
import subprocess
import sys
from pathlib import Path

from lakeboard.schemas.clusters import ClusterConfig
from lakeboard.schemas.messages import BlackboardRequest
from lakeboard.servers.file_agent.agent import FileAgent
from lakeboard.servers.file_agent.response_writing import necessary_steps
from lakeboard.servers.profiling import profile_file
from tests.support.programs import run_each


def test_respond_gives_one_loader_for_a_family_and_its_code_runs(demo_config):
    config = ClusterConfig.model_validate_json((demo_config / "clusters.json").read_text())
    cluster = next(c.name for c in config.clusters if "air_quality/sensors/readings_2024-01.csv" in c.files)
    resp = FileAgent(config, cluster).respond(BlackboardRequest(request="daily PM2.5 readings of the sensors in 2024"))
    readings = [f for f in resp.files if "readings_2024" in f]
    assert len(readings) == 12
    [family] = [loader for loader in resp.loaders if loader.family]
    assert sorted(family.paths) == sorted(readings) and family.source.startswith(f"def {family.function}(path):")
    assert "pandas" in resp.libraries and "pathlib" not in resp.libraries
    # The displayed code is the loaders rendered: each import once, and it runs.
    imports = [ast.unparse(n) for n in ast.parse(resp.code).body if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert len(imports) == len(set(imports))
    run = subprocess.run([sys.executable, "-c", resp.code + "\nprint(data['file'].nunique(), len(data))"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split()[0] == "12"
    assert any("skip" in s for s in resp.necessary_steps)


def test_steps_name_the_columns_two_files_share(tmp_path):
    (tmp_path / "readings.csv").write_text("day,Station_ID,pm25\n1,S1,3.5\n2,S2,4.0\n")
    (tmp_path / "stations.csv").write_text("station_id,name\nS1,North\nS2,South\n")
    (tmp_path / "budget.csv").write_text("year,amount\n2023,10\n2024,12\n")
    readings, stations, budget = (profile_file(tmp_path / name, tmp_path)
                                  for name in ("readings.csv", "stations.csv", "budget.csv"))
    join = "readings.csv and stations.csv share columns station_id: candidates to join on."
    assert join in necessary_steps([readings, stations])
    assert not any("join" in step for step in necessary_steps([readings, budget]))


def test_steps_say_which_markers_mean_no_data_and_which_values_look_like_fill_values(tmp_path):
    temps = [f"{day},{10 + day / 4:.2f},{20 + day % 7}" for day in range(40)]
    temps[3], temps[9] = "3,M,21", "9,11.5,-9999"  # a marker in a numeric column; a sentinel-sized outlier
    (tmp_path / "weather.csv").write_text("day,temp,wind\n" + "\n".join(temps) + "\n")
    steps = necessary_steps([profile_file(tmp_path / "weather.csv", tmp_path)])
    assert "weather.csv: missing markers 'M' in 'temp'; '-9999' in 'wind' mean no data; the loader reads them as missing." in steps
    assert any(s.startswith("weather.csv: fill value read as missing: column 'wind' holds -9999") for s in steps)


def test_an_explanation_says_what_time_a_file_covers():
    from datetime import date

    from lakeboard.schemas.families import TimeCoverage
    from lakeboard.schemas.profiles import FileProfile
    from lakeboard.servers.file_agent.response_writing import explanation

    prof = FileProfile(path="a/visits.csv", format="csv", summary="visits per day")
    text = explanation(prof, coverage=TimeCoverage(start=date(2019, 3, 2), end=date(2021, 7, 30), source="data"))
    assert "covers 2019-03-02 to 2021-07-30 (from its date columns" in text
    assert "The same bytes are also at: b/visits_copy.csv (one file, not two datasets)." in explanation(
        prof, copies=["b/visits_copy.csv"])
    assert "It holds no data" in explanation(prof, role="template") and "It holds no data" not in text


def test_an_explanation_gives_an_arrays_units_and_what_it_holds(tmp_path):
    from scipy.io import netcdf_file

    from lakeboard.servers.file_agent.response_writing import explanation

    f = tmp_path / "rivers.nc"
    with netcdf_file(f, "w") as nc:
        nc.createDimension("time", 2)
        v = nc.createVariable("q", "f8", ("time",))
        v[:] = [1.0, 2.0]
        v.units = b"m3 s-1"
        v.long_name = b"river discharge at the gauge"
    text = explanation(profile_file(f, tmp_path))
    assert "array q: shape [2], dtype float64, units m3 s-1: river discharge at the gauge" in text


# -- families share a loader only when they share a layout --------------------------------------

_SHEETS = {1: ["north", "south"], 2: ["east"], 3: ["west", "summary"], 4: ["hills"], 5: ["coast", "bay"]}


def _agent(lake, out, *, by_name_alone: bool = False) -> FileAgent:
    """`lake` indexed into `out`; `by_name_alone`: families found by name as an index made before
    layouts counted found them, so that `respond` itself must keep members of other layouts apart."""
    from unittest import mock

    from lakeboard.servers.indexing import index_lake

    if by_name_alone:
        with mock.patch("lakeboard.servers.profiling.families.layout_signature", lambda profile: "any"):
            done = index_lake(lake, name="lake", out=out, workers=0)
    else:
        done = index_lake(lake, name="lake", out=out, workers=0)
    config = ClusterConfig.model_validate_json((done.config_dir / "clusters.json").read_text())
    [cluster] = config.clusters
    return FileAgent(config, cluster.name)


def _last_lines(codes: list[str], epilogue: str, folder: Path) -> list[str]:
    """What `_run` gives for each of `codes`, from one Python process (a start costs more than a program)."""
    return [ran.stdout.strip().splitlines()[-1] for ran in run_each([f"{c}\n{epilogue}" for c in codes], folder)]


def _run(code: str, epilogue: str) -> str:
    run = subprocess.run([sys.executable, "-c", code + "\n" + epilogue], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout.strip().splitlines()[-1]


def test_workbooks_with_different_sheets_each_get_a_loader_of_their_own(tmp_path):
    import json

    import pandas as pd

    lake = tmp_path / "lake"
    lake.mkdir()
    for i, sheets in _SHEETS.items():
        with pd.ExcelWriter(lake / f"s{i}.xlsx") as writer:
            for sheet in sheets:
                pd.DataFrame({"day": range(1, 11), "rainfall_mm": [float(i * d) for d in range(10)]}).to_excel(
                    writer, sheet_name=sheet, index=False)
    codes = []
    for by_name_alone in (False, True):
        agent = _agent(lake, tmp_path / f"configs-{by_name_alone}", by_name_alone=by_name_alone)
        assert bool(agent.families) == by_name_alone  # different sheets: no family, unless found by name alone
        loaders = {}
        for i, sheets in _SHEETS.items():
            resp = agent.respond(BlackboardRequest(request=f"rainfall_mm in the {' and '.join(sheets)} sheets of s{i}.xlsx"))
            assert f"s{i}.xlsx" in resp.files
            assert all(len(loader.paths) == 1 for loader in resp.loaders)
            assert sorted(p for loader in resp.loaders for p in loader.paths) == sorted(resp.files)
            loaders.update({loader.paths[0]: loader for loader in resp.loaders})
        assert sorted(loaders) == [f"s{i}.xlsx" for i in _SHEETS]
        # Every loader runs on its own workbook and returns that workbook's sheets.
        from lakeboard.common.loader_programs import loading_code

        codes.append(loading_code(list(loaders.values()), lake))
    epilogue = "import json\nprint(json.dumps({k.split()[0]: list(v) for k, v in datasets.items()}))"
    for out in _last_lines(codes, epilogue, tmp_path):
        assert json.loads(out) == {f"s{i}.xlsx": sheets for i, sheets in _SHEETS.items()}


def _readings(lake, *, title_month: int | None = None) -> list[str]:
    (lake / "readings").mkdir(parents=True)
    paths = []
    for m in range(1, 7):
        title = "Station readings, provisional\n" if m == title_month else ""
        rows = "".join(f"2024-{m:02d}-{d:02d},{d * 1.5}\n" for d in range(1, 21))
        (lake / "readings" / f"readings_2024-{m:02d}.csv").write_text(title + "date,pm25\n" + rows)
        paths.append(f"readings/readings_2024-{m:02d}.csv")
    return paths


def test_a_dated_series_of_one_layout_shares_one_loader(tmp_path):
    paths = _readings(tmp_path / "lake")
    agent = _agent(tmp_path / "lake", tmp_path / "configs")
    resp = agent.respond(BlackboardRequest(request="daily pm25 readings in 2024"))
    [loader] = resp.loaders
    assert sorted(loader.paths) == sorted(resp.files) == paths and loader.family
    assert _run(resp.code, "print(len(data), data['file'].nunique())") == "120 6"


def test_a_series_member_with_a_title_line_gets_a_loader_of_its_own(tmp_path):
    paths = _readings(tmp_path / "lake", title_month=4)
    odd = paths[3]
    codes = []
    for by_name_alone in (False, True):
        agent = _agent(tmp_path / "lake", tmp_path / f"configs-{by_name_alone}", by_name_alone=by_name_alone)
        [family] = agent.families.values()  # same columns: one family, whose members are not all read alike
        assert len(family.members) == 6
        resp = agent.respond(BlackboardRequest(request="daily pm25 readings in 2024"))
        assert sorted(resp.files) == paths
        shared, own = sorted(resp.loaders, key=lambda loader: -len(loader.paths))
        assert sorted(shared.paths) == [p for p in paths if p != odd] and own.paths == [odd]
        assert "skiprows=1" in own.source and "skiprows" not in shared.source
        codes.append(resp.code)
    epilogue = "import json\nprint(json.dumps({k: [len(v), list(v.columns)] for k, v in datasets.items()}))"
    for out in _last_lines(codes, epilogue, tmp_path):
        assert sorted(json.loads(out).values()) == [[20, ["date", "pm25"]], [100, ["file", "date", "pm25"]]]
