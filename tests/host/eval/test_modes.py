"""The paper's Table 2 offline: `lakeboard eval --discovery-only --mode all` on the demo lake's
real servers with no model, and the retriever's BM25 where embeddings are missing.

The command runs by its `main()` in this process (its servers are still real processes): the
`eval` command in a process of its own is tested in tests/e2e/test_cli.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

from lakeboard.host.baselines.offline_modes import Partition, choose_partitions
from lakeboard.host.baselines.retrieval import FileRetriever
from lakeboard.schemas.profiles import FileEntry
from tests.support.cli import lakeboard_main

REPO = Path(__file__).resolve().parents[3]
MODEL_ENV = ("LAKEBOARD_LLM_MODEL", "OPENAI_MODEL", "LAKEBOARD_LLM_CONFIG")


def test_discovery_only_prints_a_table_per_mode_with_no_model(tmp_path, demo_config, capfd):
    env = {k: v for k, v in os.environ.items() if k not in MODEL_ENV}
    env |= {"HF_HUB_OFFLINE": "1", "XDG_CONFIG_HOME": str(tmp_path / "no-config")}
    out = tmp_path / "rows.jsonl"
    done = lakeboard_main(
        capfd, "eval", str(REPO / "lakes" / "demo-questions.json"), "--lake", str(REPO / "lakes" / "demo"),
        "--configs", str(demo_config.parent), "--discovery-only", "--mode", "all", "--out", str(out),
        cwd=REPO, env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    table = done.stdout[done.stdout.index("mode           tasks"):].splitlines()
    assert [line.split()[0] for line in table[1:]] == ["blackboard", "master-slave", "rag", "all-files"]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    questions = len(json.loads((REPO / "lakes" / "demo-questions.json").read_text()))
    assert len(rows) == 4 * questions
    by_mode = {m: [r for r in rows if r["mode"] == m] for m in ("blackboard", "master-slave", "rag", "all-files")}
    assert all(len(r["files"]) == 5 and r["retrieval"] == "MiniLM" for r in by_mode["rag"])
    assert all(r["recall"] == 1.0 for r in by_mode["all-files"])
    assert all(1 <= len(r["helpers"]) <= 3 for r in by_mode["master-slave"])
    f1 = {m: sum(r["f1"] for r in rs) / len(rs) for m, rs in by_mode.items()}
    assert f1["blackboard"] > f1["rag"] > f1["all-files"]  # the order of the paper's Table 2


def test_bm25_ranks_where_embeddings_are_missing():
    entries = [FileEntry(path=p, format="csv", kind="table", status="ok", size_bytes=1, summary=s) for p, s in [
        ("transit/ridership_2024.parquet", "Parquet, 8784 rows: date, route_id, boardings"),
        ("weather/daily_rain.csv", "CSV, 366 rows: date, station, rain_mm"),
        ("services/requests.jsonl", "JSON lines: id, date, category"),
    ]]
    retriever = FileRetriever(entries, embeddings=False)
    assert retriever.method == "BM25"
    assert retriever.top("daily rain per station", 2)[0] == "weather/daily_rain.csv"
    assert retriever.top("boardings per route", 1) == ["transit/ridership_2024.parquet"]


def test_master_slave_picks_partitions_by_their_descriptions():
    partitions = [Partition("lake-transit", "transit", "bus ridership: boardings per route and day"),
                  Partition("lake-weather", "weather", "daily rainfall and temperature per station"),
                  Partition("lake-misc", "misc", "budgets of the districts")]
    assert choose_partitions("How many boardings per route?", partitions) == ["lake-transit"]
    assert set(choose_partitions("rainfall and boardings per day", partitions)) == {"lake-weather", "lake-transit"}
    assert choose_partitions("nothing in common", partitions) == ["lake-transit"]  # someone is always asked
