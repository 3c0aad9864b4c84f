"""From what a user types to a lake's servers: names, config sets, clear refusals."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from lakeboard.host.lakes import Lake, lake_files, partition_mismatches
from lakeboard.host.servers_config import load_servers
from lakeboard.servers.relevance.search_index import PATHS_FILE


def test_lake_files_leaves_out_names_that_are_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.csv").write_text("x\n1\n")
    (tmp_path / ".hidden.csv").write_text("x\n1\n")
    for name in (b"sub/caf\xe9.csv", b"b\xff\n.csv"):
        with open(os.path.join(os.fsencode(tmp_path), name), "w") as f:
            f.write("x\n1\n")
    files = lake_files(tmp_path)
    assert files == ["sub/a.csv"]
    json.dumps(files).encode("utf-8")


def _config_with(config_dir: Path, partitions: list[str], served: list[str]) -> None:
    config_dir.mkdir(parents=True, exist_ok=True)
    clusters = config_dir / "clusters.json"
    clusters.write_text(json.dumps({
        "lake": str(config_dir / "lake"), "name": "t", "strategy": "directory", "profile_dir": str(config_dir),
        "clusters": [{"name": p, "files": []} for p in partitions],
    }))
    entries = {f"t-{p}": {"command": "python", "args": ["-m", "lakeboard.servers.file_agent", "--config", str(clusters),
                                                        "--cluster", p]} for p in served}
    entries["t-kernel"] = {"command": "python", "args": ["-m", "lakeboard.servers.kernel"]}
    entries["elsewhere"] = {"command": "python", "args": ["-m", "lakeboard.servers.file_agent", "--config", "/other/clusters.json",
                                                          "--cluster", "x"]}
    (config_dir / "servers.json").write_text(json.dumps({"mcpServers": entries}))


def test_the_host_warns_when_partitions_and_servers_disagree(tmp_path: Path, caplog) -> None:
    _config_with(tmp_path / "agree", ["a", "b"], ["b", "a"])
    assert partition_mismatches(tmp_path / "agree", load_servers(tmp_path / "agree")) == []
    # clusters.json is read again when it changes (it is kept parsed between requests)
    _config_with(tmp_path / "agree", ["a", "b", "c"], ["b", "a"])
    assert [m[:15] for m in partition_mismatches(tmp_path / "agree", load_servers(tmp_path / "agree"))] == [
        "partition 'c' o"]

    config_dir = tmp_path / "t"
    _config_with(config_dir, ["a", "b"], ["a", "gone"])
    with caplog.at_level(logging.WARNING, logger="lakeboard.host.lakes"):
        servers = Lake(config_dir, None).servers()
    assert "t-gone" in servers.servers  # a warning, not a refusal
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2
    assert warnings[0].startswith(f"partition 'b' of {config_dir / 'clusters.json'} has no file agent")
    assert warnings[1].startswith(f"server 't-gone' serves partition 'gone', which {config_dir / 'clusters.json'} "
                                  "does not have")
    assert all("run `lakeboard index` again" in w for w in warnings)


def test_an_unchanged_lake_is_not_reindexed_and_a_changed_one_is(tmp_path: Path, monkeypatch) -> None:
    from lakeboard.host import lakes
    from lakeboard.servers.indexing import index_lake

    lake = tmp_path / "lake"
    lake.mkdir()
    (lake / "a.csv").write_text("station,rain\nA,1\n")
    config = index_lake(lake, out=tmp_path / "configs", workers=0, index_args=["--strategy", "directory"]).config_dir
    runs: list[list[str]] = []
    monkeypatch.setattr(lakes, "run_indexer", lambda *a, **k: runs.append(list(k.get("extra", []))))
    assert lakes.refresh_index(config, lake) is None and runs == []  # the fast path: a walk, no indexer
    assert lakes.resolve_lake(lake, configs=tmp_path / "configs").config_dir == config and runs == []
    (lake / "b.csv").write_text("station,rain\nB,2\n")
    line = lakes.refresh_index(config, lake)
    assert line is not None and line.startswith("the lake changed since it was indexed (1 file added); re-indexed in ")
    assert runs == [["--strategy", "directory"]]  # the options the index was made with


def test_an_index_without_a_search_index_is_rebuilt_before_it_is_used(tmp_path: Path) -> None:
    """A config written by an older Lakeboard (no `relevance/`) is re-indexed, saying why, and
    then holds the search index its file agents need."""
    from lakeboard.host import lakes
    from lakeboard.schemas.clusters import ClusterConfig
    from lakeboard.servers.indexing import index_lake

    lake = tmp_path / "lake"
    lake.mkdir()
    (lake / "a.csv").write_text("station,rain\nA,1\n")
    config = index_lake(lake, out=tmp_path / "configs", workers=0).config_dir
    clusters = config / "clusters.json"
    old = ClusterConfig.model_validate_json(clusters.read_text()).model_copy(update={"relevance_index": None})
    target = clusters.resolve()
    clusters.unlink()
    clusters.write_text(old.model_dump_json())  # as an older index wrote it, loose
    target.unlink()
    line = lakes.refresh_index(config, lake)
    assert line is not None and line.startswith("its index was written by an older Lakeboard, with no search index")
    fresh = ClusterConfig.model_validate_json((config / "clusters.json").read_text())
    assert fresh.relevance_index and (Path(fresh.relevance_index) / PATHS_FILE).is_file()
    assert lakes.refresh_index(config, lake) is None
