"""The offline agent's program: volunteers' loading code, one function per file or family."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from host.agents.offline_agent import assemble_program, build_loaders, code_blocks
from schemas.discovery import DiscoveryResult
from schemas.messages import FileMatch


def make_lake(root: Path) -> Path:
    lake = root / "lake"
    (lake / "readings").mkdir(parents=True)
    (lake / "meta").mkdir()
    for month, value in (("01", 1.5), ("02", 2.5), ("03", 3.5)):
        (lake / "readings" / f"r_{month}.csv").write_text(f"Title line\n\nday,value\n1,{value}\n2,{value}\n")
    (lake / "meta" / "stations.json").write_text(json.dumps({"stations": [{"id": "S1"}, {"id": "S2"}]}))
    return lake


def block(lake: Path, rel: str, body: str) -> str:
    return f"# --- {rel}: a file\n# Load {rel}: a file\nfrom pathlib import Path\nimport pandas as pd\npath = Path({str(lake / rel)!r})\n{body}"


def discovery(lake: Path) -> DiscoveryResult:
    readings = block(lake, "readings/r_01.csv", "df = pd.read_csv(path, skiprows=2)\ndata = df")
    stations = block(lake, "meta/stations.json", "import json\nrecords = json.loads(path.read_text())['stations']\ndata = pd.DataFrame(records)")
    return DiscoveryResult(
        request="daily values",
        files=["readings/r_01.csv", "readings/r_02.csv", "readings/r_03.csv", "meta/stations.json", "gone/x.csv"],
        matches=[FileMatch(path=f"readings/r_0{i}.csv", score=0.8, group="readings/r_*.csv") for i in (1, 2, 3)]
        + [FileMatch(path="meta/stations.json", score=0.5), FileMatch(path="gone/x.csv", score=0.4)],
        responses=[
            {"agent_name": "readings", "code": readings + "\n\n# 2 more files have the same layout as readings/r_01.csv"},
            {"agent_name": "meta", "code": stations},
        ],
    )


def test_code_blocks_split_per_file(tmp_path):
    lake = make_lake(tmp_path)
    code = block(lake, "a.csv", "data = 1") + "\n\n" + block(lake, "dir/b c.csv", "data = 2")
    blocks = code_blocks(code)
    assert len(blocks) == 2 and blocks[0].startswith("# --- a.csv") and blocks[1].endswith("data = 2")
    assert code_blocks("x = 1") == ["x = 1"] and code_blocks("  ") == []


def test_a_block_that_loads_a_whole_family_is_one_loader(tmp_path):
    lake = make_lake(tmp_path)
    found = discovery(lake)
    listing = "".join(f"    {str(lake / f'readings/r_0{i}.csv')!r},\n" for i in (1, 2, 3))
    found.responses[0]["code"] = (
        "# --- 3 files with the layout of readings/r_01.csv: a file\nimport pandas as pd\n"
        f"paths = [\n{listing}]\nloaded = {{}}\nfor path in paths:\n    loaded[path] = pd.read_csv(path, skiprows=2)\n"
        "data = pd.concat(loaded, names=['file', None]).reset_index(level=0)"
    )
    loaders, missing = build_loaders(found, lake)
    family = loaders[0]
    assert not family.parametrised and family.paths == ["readings/r_01.csv", "readings/r_02.csv", "readings/r_03.csv"]
    assert family.label == "readings/r_01.csv (+2 files of the same layout)"
    program = assemble_program("q", loaders, lake)
    path = tmp_path / "program.py"
    path.write_text(program)
    ran = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    out = json.loads(ran.stdout.strip().splitlines()[-1])
    stacked = out["datasets"]["readings/r_01.csv (+2 files of the same layout)"]
    assert stacked["rows"] == 6 and stacked["columns"] == ["file", "day", "value"]
    assert out["data_sources"] == ["readings/r_01.csv (+2 files of the same layout)", "meta/stations.json"]


def test_families_share_one_loader_and_the_program_runs(tmp_path):
    lake = make_lake(tmp_path)
    loaders, missing = build_loaders(discovery(lake), lake)
    assert missing == ["gone/x.csv"]
    family, stations = loaders
    assert family.parametrised and family.paths == ["readings/r_01.csv", "readings/r_02.csv", "readings/r_03.csv"]
    assert family.code.startswith("def load_readings_r_csv_family(path):")
    assert stations.function == "load_meta_stations_json" and not stations.parametrised

    program = assemble_program("What are the daily values?", loaders, lake)
    compile(program, "program.py", "exec")
    path = tmp_path / "program.py"
    path.write_text(program)
    ran = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    out = json.loads(ran.stdout.strip().splitlines()[-1])
    assert out["data_sources"] == ["readings/r_01.csv", "readings/r_02.csv", "readings/r_03.csv", "meta/stations.json"]
    third = out["datasets"]["readings/r_03.csv"]
    assert third["rows"] == 2 and third["columns"] == ["day", "value"] and third["head"][0]["value"] == 3.5
    assert out["datasets"]["meta/stations.json"]["head"] == [{"id": "S1"}, {"id": "S2"}]


def test_a_family_member_without_a_path_line_gets_its_own_copy(tmp_path):
    lake = make_lake(tmp_path)
    found = discovery(lake)
    # Code that names the file inline (no `path = Path(...)` line) cannot be parametrised.
    inline = f"# --- readings/r_01.csv: a file\nimport pandas as pd\ndata = pd.read_csv({str(lake / 'readings/r_01.csv')!r}, skiprows=2)"
    found.responses[0]["code"] = inline
    loaders, _ = build_loaders(found, lake)
    readings = [loader for loader in loaders if loader.paths[0].startswith("readings/")]
    assert [loader.paths for loader in readings] == [["readings/r_01.csv"], ["readings/r_02.csv"], ["readings/r_03.csv"]]
    assert str(lake / "readings/r_02.csv") in readings[1].code and str(lake / "readings/r_01.csv") not in readings[1].code
    assert "readings/r_02.csv has the layout of readings/r_01.csv" in readings[1].code
