"""The offline agent's program: built from the volunteers' typed loaders, one function each."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

from lakeboard.host.agents.offline_agent import assemble_program, build_loaders
from lakeboard.schemas.discovery_result import DiscoveryResult
from lakeboard.schemas.messages import FileMatch, Loader
from lakeboard.servers.profiling import profile_file
from lakeboard.servers.profiling.loader_code import make_loader
from tests.support.hostile_names import file_name, hostile_names

FAMILY = "series:readings/r_#.csv"


def make_lake(root: Path) -> Path:
    lake = root / "lake"
    (lake / "readings").mkdir(parents=True)
    (lake / "meta").mkdir()
    for month, value in (("01", 1.5), ("02", 2.5), ("03", 3.5)):
        (lake / "readings" / f"r_{month}.csv").write_text(f"Title line\n\nday,value\n1,{value}\n2,{value}\n")
    (lake / "meta" / "stations.json").write_text(json.dumps({"stations": [{"id": "S1"}, {"id": "S2"}]}))
    return lake


def loader(lake: Path, rel: str, **update) -> dict:
    """The loader a file agent sends for `rel`, as it crosses the wire (JSON)."""
    made = make_loader(profile_file(lake / rel, lake))
    return made.model_copy(update=update).model_dump(mode="json")


def discovery(lake: Path, responses: list[dict]) -> DiscoveryResult:
    return DiscoveryResult(
        request="daily values",
        files=["readings/r_01.csv", "readings/r_02.csv", "readings/r_03.csv", "meta/stations.json", "gone/x.csv"],
        matches=[FileMatch(path=f"readings/r_0{i}.csv", score=0.8, group=FAMILY) for i in (1, 2, 3)]
        + [FileMatch(path="meta/stations.json", score=0.5), FileMatch(path="gone/x.csv", score=0.4)],
        responses=responses,
    )


def run(program: str, tmp_path: Path) -> dict:
    path = tmp_path / "program.py"
    path.write_text(program)
    ran = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout.strip().splitlines()[-1])


def test_a_family_member_no_loader_names_is_loaded_by_its_familys_loader(tmp_path):
    lake = make_lake(tmp_path)
    found = discovery(lake, [
        {"agent_name": "readings", "loaders": [loader(lake, "readings/r_01.csv", family=FAMILY)]},
        {"agent_name": "meta", "loaders": [loader(lake, "meta/stations.json")]},
    ])
    loaders, missing = build_loaders(found, lake)
    assert missing == ["gone/x.csv"]
    family, stations = loaders
    assert family.paths == ["readings/r_01.csv", "readings/r_02.csv", "readings/r_03.csv"]
    assert stations.paths == ["meta/stations.json"]

    out = run(assemble_program("What are the daily values?", loaders, lake), tmp_path)
    assert out["data_sources"] == ["readings/r_01.csv", "readings/r_02.csv", "readings/r_03.csv", "meta/stations.json"]
    stacked = out["datasets"]["readings/r_01.csv and 2 more files of the same layout"]
    assert stacked["rows"] == 6 and stacked["columns"] == ["file", "day", "value"]
    assert [row["value"] for row in stacked["head"]] == [1.5, 1.5, 2.5]
    assert out["datasets"]["meta/stations.json"]["head"] == [{"id": "S1"}, {"id": "S2"}]


def test_a_loader_keeps_only_the_chosen_files_and_loaders_follow_the_ranking(tmp_path):
    lake = make_lake(tmp_path)
    family = loader(lake, "readings/r_01.csv", family=FAMILY)
    family["paths"] = ["readings/r_03.csv", "readings/r_01.csv", "readings/unchosen.csv"]
    found = discovery(lake, [
        {"agent_name": "meta", "loaders": [loader(lake, "meta/stations.json")]},
        {"agent_name": "readings", "loaders": [family]},
    ])
    loaders, _ = build_loaders(found, lake)
    assert [x.paths for x in loaders] == [
        ["readings/r_03.csv", "readings/r_01.csv", "readings/r_02.csv"], ["meta/stations.json"]]


def test_each_import_is_written_once_and_clashing_names_are_told_apart(tmp_path):
    lake = make_lake(tmp_path)
    (lake / "other").mkdir()
    (lake / "other" / "r_01.csv").write_text("day,value\n1,9\n")
    same_name = loader(lake, "other/r_01.csv", function="load_readings_r_01_csv")
    same_name["source"] = same_name["source"].replace("def load_other_r_01_csv(", "def load_readings_r_01_csv(")
    found = DiscoveryResult(request="values", files=["readings/r_01.csv", "other/r_01.csv", "meta/stations.json"],
                            responses=[{"loaders": [loader(lake, "readings/r_01.csv"), same_name,
                                                    loader(lake, "meta/stations.json")]}])
    loaders, missing = build_loaders(found, lake)
    assert not missing
    program = assemble_program("values", loaders, lake)
    tree = ast.parse(program)
    imports = [ast.unparse(node) for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert len(imports) == len(set(imports)) and "import pandas as pd" in imports and "import json" in imports
    functions = [node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("load_")]
    assert functions == ["load_readings_r_01_csv", "load_readings_r_01_csv_2", "load_meta_stations_json"]
    out = run(program, tmp_path)
    assert out["datasets"]["readings/r_01.csv"]["rows"] == 2
    assert out["datasets"]["other/r_01.csv"]["head"] == [{"day": 1, "value": 9}]


def test_a_malformed_loader_is_not_taken(tmp_path):
    lake = make_lake(tmp_path)
    bad = loader(lake, "meta/stations.json")
    bad["source"] += "\nprint('not part of a function')\n"
    unnamed = loader(lake, "readings/r_01.csv")
    unnamed["imports"] = ["import os; os.getcwd()"]
    found = discovery(lake, [{"agent_name": "x", "loaders": [bad, unnamed, {"paths": []}]}])
    loaders, missing = build_loaders(found, lake)
    assert loaders == [] and missing == found.files
    assert Loader.model_validate(loader(lake, "meta/stations.json")).paths == ["meta/stations.json"]


def test_hostile_names_stay_data_in_the_program(tmp_path):
    """File names, header cells, family keys and the question, written to turn into code, are
    literals or comments in the program: it compiles, loads every file, and runs nothing else."""
    lake, scratch = tmp_path / "lake", tmp_path / "scratch"
    (lake / "series").mkdir(parents=True)
    scratch.mkdir()
    names = hostile_names(12, seed=29)
    offered, files, headers = [], [], {}
    for i, name in enumerate(names):
        rel = f"series/{file_name(f'r{i} {name}', '.csv')}"
        (lake / rel).write_text(f'"{name.replace(chr(34), chr(34) * 2)}",value\n1,{i}\n2,{i}\n', encoding="utf-8")
        files.append(rel)
        headers[rel] = name
    family = f"series:{names[0]}"  # a family key holds lake text too
    offered.append(loader(lake, files[0], family=family, summary=names[1]))
    offered += [loader(lake, rel) for rel in files[6:]]
    found = DiscoveryResult(request=names[2], files=files,
                            matches=[FileMatch(path=rel, score=0.5, group=family if i < 6 else None)
                                     for i, rel in enumerate(files)],
                            responses=[{"agent_name": "series", "loaders": offered}])
    loaders, missing = build_loaders(found, lake)
    assert not missing and [len(x.paths) for x in loaders] == [6] + [1] * 6

    program = assemble_program(names[3], loaders, lake)
    assert all(ch == "\n" or ch.isprintable() for ch in program)  # no other line break, no control character
    path = scratch / "program.py"
    path.write_text(program, encoding="utf-8")
    ran = subprocess.run([sys.executable, str(path)], cwd=scratch, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr[-3000:]
    out = json.loads(ran.stdout.strip().splitlines()[-1])
    assert out["question"] == names[3] and out["data_sources"] == files
    stacked = out["datasets"][f"{files[0]} and 5 more files of the same layout"]
    assert stacked["rows"] == 12 and stacked["type"] == "DataFrame"
    for rel in files[6:]:
        assert out["datasets"][rel]["columns"] == [headers[rel], "value"]
    assert sorted(p.name for p in scratch.iterdir()) == ["program.py"]  # no payload ran


def test_the_kernels_table_shapes_measure_as_the_indexers_do():
    """The kernel measures loaded data with `TABLE_SHAPES` (it cannot import Lakeboard); it must
    agree with `loaded_tables.shapes_of`, which the indexer's check uses."""
    import numpy as np
    import pandas as pd

    from lakeboard.common.loaded_tables import shapes_from_json, shapes_of
    from lakeboard.host.agents.loader_checks import TABLE_SHAPES

    namespace: dict = {}
    exec(compile(TABLE_SHAPES, "<table_shapes>", "exec"), namespace)
    frame = pd.DataFrame({"site": ["a", "site", "b"], "level": ["1", "level", "3"], "mm": [1.5, 2.0, None],
                          "ok": [True, False, True], "day": pd.to_datetime(["2024-01-01"] * 3)})
    levels = pd.DataFrame([[1, 2]], columns=pd.MultiIndex.from_tuples([("North", "mm"), ("South", "mm")]))
    narrow = frame[["site", "level", "mm"]]
    values = [frame, narrow, levels, {"sheet": frame, "notes": "text", "grid": np.zeros((4, 2))}, [frame, levels],
              np.arange(5), "text", None, pd.DataFrame()]
    for value in values:
        kernel = shapes_from_json(json.loads(json.dumps(namespace["table_shapes"](value))))
        assert kernel == shapes_of(value), value
    assert shapes_of(narrow)[0].header_rows_in_data == 1  # a case that counts is among them
