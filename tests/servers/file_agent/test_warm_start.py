"""warm_start: a lake's clusters.json and search index, read once for all its file agents."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from lakeboard.servers.file_agent.warm_start import cluster_config, warm
from lakeboard.servers.relevance.search_index import PATHS_FILE, SearchIndex


def test_what_the_agents_share_is_read_once_and_again_when_it_changes(demo_config, tmp_path):
    config_dir = tmp_path / "demo"
    shutil.copytree(demo_config, config_dir, symlinks=True)
    clusters = config_dir / "clusters.json"
    data = json.loads(clusters.read_text().replace(str(demo_config), str(config_dir)))
    clusters.write_text(json.dumps(data))  # the copy's own index, not the shared one
    folder = Path(data["relevance_index"])
    assert folder.is_relative_to(config_dir) and folder.is_dir()
    warm(["--config", str(clusters), "--cluster", data["clusters"][0]["name"]])
    config = cluster_config(clusters)
    assert cluster_config(clusters) is config
    index = SearchIndex.load(folder)
    assert SearchIndex.load(folder) is index, "the fork server's copy is the one its agents use"

    data["clusters"][0]["description"] = "rewritten by a new index"
    tmp = clusters.with_suffix(".tmp")
    tmp.write_text(json.dumps(data))
    tmp.replace(clusters)  # as the indexer writes it: a new file
    assert cluster_config(clusters) is not config
    assert cluster_config(clusters).clusters[0].description == "rewritten by a new index"
    paths = folder / PATHS_FILE
    tmp = paths.with_suffix(".tmp")
    tmp.write_bytes(paths.read_bytes())
    tmp.replace(paths)
    assert SearchIndex.load(folder) is not index


def test_arguments_without_a_config_read_nothing():
    warm(["--cluster", "x"])  # no --config: nothing to read, and no error
