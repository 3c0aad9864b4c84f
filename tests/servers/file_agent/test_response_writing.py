import ast
import subprocess
import sys

from lakeboard.schemas.clusters import ClusterConfig
from lakeboard.schemas.messages import BlackboardRequest
from lakeboard.servers.file_agent.agent import FileAgent
from lakeboard.servers.file_agent.response_writing import necessary_steps
from lakeboard.servers.profiling import profile_file


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


def test_an_explanation_says_what_time_a_file_covers():
    from datetime import date

    from lakeboard.schemas.families import TimeCoverage
    from lakeboard.schemas.profiles import FileProfile
    from lakeboard.servers.file_agent.response_writing import explanation

    prof = FileProfile(path="a/visits.csv", format="csv", summary="visits per day")
    text = explanation(prof, coverage=TimeCoverage(start=date(2019, 3, 2), end=date(2021, 7, 30), source="data"))
    assert "covers 2019-03-02 to 2021-07-30 (from its date columns" in text
