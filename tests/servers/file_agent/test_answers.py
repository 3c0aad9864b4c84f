import subprocess
import sys
from pathlib import Path

from schemas.clusters import ClusterConfig
from schemas.messages import BlackboardRequest
from servers.file_agent.agent import FileAgent
from servers.file_agent.answers import family_code, necessary_steps


def test_family_code_loops_over_members_and_stacks_tables(tmp_path):
    for month in (1, 2, 3):
        (tmp_path / f"r_{month}.csv").write_text(f"title line\n\nid,value\n1,{month}\n2,{month * 10}\n")
    member = "import pandas as pd\npath = Path('x')\ndf = pd.read_csv(path, skiprows=2)\ndata = df"
    code = family_code(member, [str(tmp_path / f"r_{m}.csv") for m in (1, 2, 3)])
    out = subprocess.run([sys.executable, "-c", code + "\nprint(len(data), sorted(data['file'].unique()))"],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "6 ['r_1.csv', 'r_2.csv', 'r_3.csv']"
    assert family_code("data = 1", ["a"]) is None  # no `path = ` line: not rewritten


def test_respond_gives_one_loop_for_a_family_that_runs(demo_config):
    config = ClusterConfig.model_validate_json((demo_config / "clusters.json").read_text())
    cluster = next(c.name for c in config.clusters if "air_quality/sensors/readings_2024-01.csv" in c.files)
    resp = FileAgent(config, cluster).respond(BlackboardRequest(request="daily PM2.5 readings of the sensors in 2024"))
    assert len([f for f in resp.files if "readings_2024" in f]) == 12
    run = subprocess.run([sys.executable, "-c", resp.code + "\nprint(data['file'].nunique(), len(data))"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split()[0] == "12"
    assert any("skip" in s for s in resp.necessary_steps)


def test_steps_name_join_candidates(demo_config):
    from servers.profiling import ProfileCache

    cache = ProfileCache(Path(ClusterConfig.model_validate_json((demo_config / "clusters.json").read_text()).profile_dir))
    a, b = cache.load("air_quality/stations.csv"), cache.load("air_quality/sensors/readings_2024-01.csv")
    assert any("join" in s for s in necessary_steps([a, b])) or not (
        {c.lower() for c in a.column_names} & {c.lower() for c in b.column_names})
