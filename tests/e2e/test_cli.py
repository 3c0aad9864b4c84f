"""The `lakeboard` command as a user runs it: `ask` with no model, `eval` with a model.

Each command but `discover` and `servers` runs at least once as `python -m lakeboard.host.cli` in its own process;
`discover` does in tests/host/test_cli_output.py, test_child_imports.py and test_cli_signals.py, `servers` in
tests/host/gateway/test_claude_config.py. Other runs, which check
what a command says or where it writes rather than the process it runs in, call the command's `main()` in this
process (the indexer and the servers it starts are still processes of their own): a new interpreter importing
the host costs seconds a run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat

from lakeboard.host.agents.main_agent_prompts import MAIN_AGENT_MARKER
from lakeboard.host.trace import read_trace
from tests.e2e import scenarios
from tests.e2e.conftest import agent_holding
from tests.support.cli import cli_env, lakeboard, lakeboard_main
from tests.support.scripted_llm import ScriptedLLM


def test_ask_without_a_model_returns_a_verified_loading_program(tmp_path, demo_index):
    question = scenarios.QUESTIONS["demo-medium-10"]["query"]
    # As in the README, the lake folder; its configs folder is the session's, which already holds the demo's
    # current index (indexing on first use is tested by discover below), so the lake is not indexed twice.
    notebook = tmp_path / "out" / "session.ipynb"
    (tmp_path / "out").mkdir()
    done = lakeboard("ask", str(scenarios.DEMO_LAKE), question, "--configs", str(demo_index.parent),
                     "--notebook", str(notebook), cwd=tmp_path, env=cli_env(tmp_path))

    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    assert "No model is configured" in out and "verified program" in out
    assert "Loaded (the program ran in the kernel):" in out
    # the best file is loaded; the second table this join needs is ranked next, for a person or a model to take
    assert "Data sources: districts/population_2024.csv" in out
    assert "ranked next, not loaded: districts/district_profiles.html" in out
    assert "Tokens: none" in out
    program_path = Path(out.split("Program:")[1].split()[0])
    trace_path = Path(out.split("Trace:")[1].split()[0])
    program = program_path.read_text()
    assert program.startswith('"""Load the lake data for: What is the median household income')
    # The program stands alone: it runs outside the kernel too and prints what it loaded.
    ran = subprocess.run([sys.executable, str(program_path)], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr[-2000:]
    loaded = json.loads(ran.stdout.strip().splitlines()[-1])
    assert loaded["datasets"]["districts/population_2024.csv"]["rows"] == 8
    cells = nbformat.read(notebook, as_version=4).cells
    assert any("def load_districts_population_2024_csv" in c.source for c in cells)
    kinds = [e.kind for e in read_trace(trace_path)]
    assert {"server_started", "post", "decision", "response", "posting", "kernel_run", "offline_program"} <= set(kinds)


def eval_model(body: dict) -> str:
    """Answers by question: two right, one list answer missing an element."""
    question = body["messages"][1]["content"]
    lake = scenarios.DEMO_LAKE
    if "passenger boardings" in question:
        code = (f"import json, pandas as pd\ndf = pd.read_parquet('{lake}/transit/ridership_2024.parquet')\n"
                "print(json.dumps({'answer': int(df['boardings'].sum())}))")
        sources = ["transit/ridership_2024.parquet"]
    elif "service requests" in question:
        code = (f"import json, pandas as pd\ndf = pd.read_json('{lake}/services/service_requests_2024.jsonl', lines=True)\n"
                "print(json.dumps({'answer': df['category'].value_counts().idxmax()}))")
        sources = ["services/service_requests_2024.jsonl", "services/README.txt"]
    else:
        code = "import json\nprint(json.dumps({'answer': ['AQ01', 'AQ05']}))"
        sources = ["air_quality/sensors/readings_2024-01.csv"]
    return scenarios.answer(code, *sources)


def test_eval_scores_answers_and_discovery(tmp_path, demo_index):
    ids = ["demo-easy-1", "demo-easy-2", "demo-medium-5"]
    workload = tmp_path / "workload.json"
    workload.write_text(json.dumps([scenarios.QUESTIONS[i] for i in ids]))
    out = tmp_path / "results.jsonl"
    # The scripted answers need no helper: the kernel and one file agent keep the start-up short.
    config = tmp_path / "config"
    config.mkdir()
    every = json.loads((demo_index / "servers.json").read_text())["mcpServers"]
    (config / "servers.json").write_text(json.dumps({"mcpServers": {n: every[n] for n in (agent_holding(demo_index, "transit/ridership_2024.parquet"), "demo-kernel")}}))
    with ScriptedLLM() as model:
        model.route(MAIN_AGENT_MARKER, *[eval_model] * 3)
        done = lakeboard(
            "eval", str(workload), "--lake", str(scenarios.DEMO_LAKE), "--config", str(config),
            "--model", "scripted-model", "--base-url", model.base_url, "--offline-helpers", "--out", str(out),
            cwd=tmp_path, env=cli_env(tmp_path),
        )
        assert not model.unexpected

    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert list(rows) == ids
    assert rows["demo-easy-1"]["correct"] and rows["demo-easy-1"]["answer"] == 17584234
    assert rows["demo-easy-2"]["correct"] and rows["demo-easy-2"]["precision"] == 0.5  # one of two sources is right
    medium = rows["demo-medium-5"]
    assert not medium["correct"] and medium["metric"] == "f1" and medium["score"] == 0.8
    assert medium["recall"] == 1.0  # a file under the ground-truth folder
    assert "answers: 2/3 correct" in done.stdout
    assert "discovery over 3 tasks" in done.stdout


def test_servers_warns_when_a_partition_has_no_server(tmp_path, demo_index, capfd):
    # The demo's config, moved (paths rewritten) and without the server of one partition.
    config_dir = tmp_path / "demo"
    config_dir.mkdir()
    for name in ("clusters.json", "servers.json"):
        text = (demo_index / name).read_text().replace(str(demo_index), str(config_dir))
        (config_dir / name).write_text(text)
    servers = json.loads((config_dir / "servers.json").read_text())["mcpServers"]
    agent = next(name for name, entry in servers.items() if "lakeboard.servers.file_agent" in entry["args"])
    args = servers.pop(agent)["args"]
    partition = args[args.index("--cluster") + 1]
    (config_dir / "servers.json").write_text(json.dumps({"mcpServers": servers}))

    done = lakeboard_main(capfd, "servers", str(config_dir), cwd=tmp_path, env=cli_env(tmp_path))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert (f"partition {partition!r} of {config_dir / 'clusters.json'} has no file agent in the servers files, "
            "so its files are never searched; run `lakeboard index` again") in done.stderr


def _small_lake(tmp_path: Path) -> Path:
    lake = tmp_path / "lake"
    (lake / "rain").mkdir(parents=True)
    (lake / "rain" / "rainfall_2024.csv").write_text("station,rainfall_mm\nA,12\nB,7\n")
    return lake


def _everything_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def _one_sentence(done: subprocess.CompletedProcess[str], sentence: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert sentence in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("lakeboard "), done.stderr


def test_a_file_where_a_lake_is_expected_is_one_sentence_and_nothing_is_written_into_the_lake(tmp_path, capfd):
    lake = _small_lake(tmp_path)
    before = _everything_under(lake)
    data_file = lake / "rain" / "rainfall_2024.csv"
    env = cli_env(tmp_path)
    for args in (["discover", str(data_file), "rainfall"], ["servers", str(data_file)], ["ask", str(data_file), "rain?"]):
        done = lakeboard_main(capfd, *args, cwd=tmp_path, env=env)
        _one_sentence(done, f"lakeboard {args[0]}: {str(data_file)!r} is a file: give a lake folder, "
                            "or a config folder written by `lakeboard index`")
    done = lakeboard_main(capfd, "discover", str(lake), "rainfall", "--configs", str(data_file), cwd=tmp_path, env=env)
    _one_sentence(done, f"{str(data_file)!r} is a file: --configs names the folder lake configs are written to")
    done = lakeboard_main(capfd, "index", str(lake), "--out", str(data_file), cwd=tmp_path, env=env)
    _one_sentence(done, f"lakeboard index: {str(data_file)!r} is a file: --out names the folder configs are written to")
    assert _everything_under(lake) == before


def test_configs_and_traces_go_to_lakeboards_home_never_into_the_lake_whatever_folder_a_command_runs_in(
        tmp_path, capfd):
    lake = _small_lake(tmp_path)
    before = _everything_under(lake)
    env = cli_env(tmp_path)
    home_configs = tmp_path / "home" / "configs"
    # A configs folder inside the lake, named or as Lakeboard's home.
    done = lakeboard_main(capfd, "discover", ".", "rainfall", "--configs", "configs", cwd=lake, env=env)
    _one_sentence(done, f"the config folder {lake.resolve() / 'configs' / 'lake'} is inside its lake {lake.resolve()}, "
                        "and Lakeboard never writes into a lake")
    done = lakeboard_main(capfd, "discover", ".", "rainfall", cwd=lake, env={**env, "LAKEBOARD_HOME": str(lake)})
    _one_sentence(done, f"the config folder {lake.resolve() / 'configs' / 'lake'} is inside its lake {lake.resolve()}, "
                        "and Lakeboard never writes into a lake")
    done = lakeboard_main(capfd, "index", str(lake), "--out", str(lake / "configs"), cwd=tmp_path, env=env)
    _one_sentence(done, "would be inside the lake")
    assert _everything_under(lake) == before

    # From folder one: discover indexes the lake on first use, into the home, then refuses a trace inside the lake.
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
    found = lakeboard_main(capfd, "discover", str(lake), "rainfall per station", "--trace", str(lake / "trace.jsonl"),
                           cwd=tmp_path / "one", env=env)
    _one_sentence(found, f"{lake.resolve() / 'trace.jsonl'} is inside the lake {lake.resolve()}")
    assert (home_configs / "lake" / "clusters.json").is_file(), "discover's first index is not in Lakeboard's home"
    # From folder two: `index` writes the same config folder, and discover uses it as it is.
    done = lakeboard_main(capfd, "index", str(lake), "--quiet", cwd=tmp_path / "two", env=env)
    assert done.returncode == 0, done.stderr
    # the same folder, already current: discover's index stands
    assert f"{home_configs / 'lake'} already indexes the lake as it is" in done.stdout, done.stdout
    assert sorted(p.name for p in home_configs.iterdir()) == ["lake"]
    found = lakeboard_main(capfd, "discover", str(lake), "rainfall per station", "--json", cwd=tmp_path / "two",
                           env=env)
    assert found.returncode == 0 and "Traceback" not in found.stderr, found.stderr
    assert "re-indexed" not in found.stderr, found.stderr  # the same index, still fresh
    answer = json.loads(found.stdout)
    assert answer["files"] == ["rain/rainfall_2024.csv"] and answer["closest"] == []
    assert all(set(m) == {"path", "score", "role"} and m["path"] != answer["files"][0] for m in answer["ranked_next"])
    assert (home_configs / "lake" / "traces" / "discover.jsonl").is_file()
    assert list((tmp_path / "one").iterdir()) == [] and list((tmp_path / "two").iterdir()) == []
    assert _everything_under(lake) == before


def test_an_empty_request_is_one_sentence(tmp_path, capfd):
    lake = _small_lake(tmp_path)
    env = cli_env(tmp_path)
    for command in ("discover", "ask"):
        for empty in ("", "  \n\t"):
            done = lakeboard_main(capfd, command, str(lake), empty, cwd=tmp_path, env=env)
            _one_sentence(done, f"lakeboard {command}: the {'request' if command == 'discover' else 'question'} "
                                "is empty")
    assert not (tmp_path / "home").exists()  # refused before indexing


def test_ask_without_bubblewrap_says_to_install_it_and_where_the_log_is(tmp_path, demo_index, capfd):
    config_dir = tmp_path / "demo"
    config_dir.mkdir()
    for name in ("clusters.json", "servers.json"):
        (config_dir / name).write_text((demo_index / name).read_text().replace(str(demo_index), str(config_dir)))
    servers = json.loads((config_dir / "servers.json").read_text())["mcpServers"]
    kernel = next(name for name, entry in servers.items() if "lakeboard.servers.kernel" in entry["args"])
    entry = servers[kernel]
    entry["args"] = [a for a in entry["args"] if a != "--unsafe-no-sandbox"]
    (tmp_path / "no-bwrap").mkdir()
    entry["env"] = {**entry.get("env", {}), "PATH": str(tmp_path / "no-bwrap")}  # the kernel server's own PATH
    (config_dir / "servers.json").write_text(json.dumps({"mcpServers": {kernel: entry}}))

    # the kernel server is a real process; the command's refusal is its main()'s, run here
    done = lakeboard_main(capfd, "ask", str(config_dir), "how many boardings in 2024?", cwd=tmp_path,
                          env=cli_env(tmp_path))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    log = config_dir / "logs" / f"{kernel}.log"
    assert last.startswith(f"lakeboard ask: No kernel server is running, so code cannot be run. {kernel} did not start: ")
    assert "bubblewrap ('bwrap') is not installed; on Debian/Ubuntu: apt-get install bubblewrap" in last
    assert last.endswith(f"(its log: {log}).") and log.is_file()
    assert "CONFIG/logs" not in last


def test_a_malformed_servers_file_is_one_sentence(tmp_path, capfd):
    config_dir = tmp_path / "broken"
    config_dir.mkdir()
    (config_dir / "servers.json").write_text('{"mcpServers": {"x": {"command": "python", ')
    for command in (["servers", str(config_dir)], ["discover", str(config_dir), "rainfall"]):
        done = lakeboard_main(capfd, *command, cwd=tmp_path, env=cli_env(tmp_path))
        _one_sentence(done, f"lakeboard {command[0]}: {config_dir / 'servers.json'} is not valid JSON (line 1")
    assert sorted(p.name for p in config_dir.iterdir()) == ["servers.json"]  # no trace of a run that did not start


def test_an_empty_lake_leaves_nothing_behind(tmp_path, capfd):
    (tmp_path / "empty").mkdir()
    env = cli_env(tmp_path)
    # The indexer refuses it, run by `index` in its own process and by discover's first use in this one.
    for done in (lakeboard("index", "empty", cwd=tmp_path, env=env),
                 lakeboard_main(capfd, "discover", "empty", "rainfall", cwd=tmp_path, env=env)):
        assert done.returncode == 2 and "holds no files" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty"]  # no home, no configs, no empty folder


def test_a_lake_that_changed_is_reindexed_before_discover_answers_and_a_name_not_utf8_is_skipped(tmp_path, capfd):
    lake = _small_lake(tmp_path)
    (lake / "rain" / "temperature_2024.csv").write_text("station,temperature_c\nA,21\nB,19\n")
    with open(os.path.join(os.fsencode(lake / "rain"), b"caf\xe9_rainfall.csv"), "w") as f:
        f.write("station,rainfall_mm\nC,3\n")
    env = cli_env(tmp_path)
    configs = tmp_path / "configs"
    # profiled in the indexer's own process (--workers 0): a pool of profiling processes costs seconds for 3 files
    indexed = lakeboard_main(capfd, "index", str(lake), "--out", str(configs), "--quiet", "--workers", "0",
                             cwd=tmp_path, env=env)
    assert indexed.returncode == 0, indexed.stderr
    assert "rain/caf\ufffd_rainfall.csv: skipped: the file name is not UTF-8" in indexed.stdout
    assert "rain/caf\ufffd_rainfall.csv" in json.loads((configs / "lake" / "clusters.json").read_text())["errors"]
    (lake / "rain" / "wind_speed_2024.csv").write_text("station,wind_speed_kmh\nA,30\nB,12\n")
    (lake / "rain" / "temperature_2024.csv").unlink()

    # By the lake folder: the change is seen (the name that is not UTF-8 is not one), and the new index answers.
    found = lakeboard_main(capfd, "discover", str(lake), "wind speed per station", "--configs", str(configs), "--json",
                           cwd=tmp_path, env=env)
    assert found.returncode == 0 and "Traceback" not in found.stderr, found.stderr
    assert json.loads(found.stdout)["files"] == ["rain/wind_speed_2024.csv"]
    said = [line for line in found.stderr.splitlines() if "re-indexed" in line]
    assert len(said) == 1 and said[0].startswith(
        "the lake changed since it was indexed (1 file added, 1 removed); re-indexed in "), found.stderr
    # By the config folder: unchanged since, so the index is used as it is.
    gone = lakeboard_main(capfd, "discover", str(configs / "lake"), "temperature per station", "--json", cwd=tmp_path,
                          env=env)
    assert gone.returncode == 0 and "Traceback" not in gone.stderr, gone.stderr
    assert "temperature_2024.csv" not in gone.stdout  # a deleted file is never offered
    assert "re-indexed" not in gone.stderr, gone.stderr
