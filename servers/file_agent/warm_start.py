"""What every file agent of a lake reads alike, read once by the fork server before it forks them.

Each file agent parses its lake's clusters.json and opens the lake's search index; at 50k
files that is a tenth of a second and tens of MB per agent, sixteen times over. The fork
server calls `warm` with each agent's arguments before serving, and the agents it forks find
both already read (shared copy-on-write). Each is kept with the stamp of its file, so an
index written since is read afresh.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from lakeboard.common.file_versions import read_once
from lakeboard.schemas.clusters import ClusterConfig
from lakeboard.servers.relevance.search_index import SearchIndex

def _parse_config(path: Path) -> ClusterConfig:
    return ClusterConfig.model_validate_json(path.read_text())


def cluster_config(path: Path) -> ClusterConfig:
    """The lake's clusters.json, parsed once per version of the file in this process."""
    return read_once(path, _parse_config)


def warm(argv: list[str]) -> None:
    """Read what the file agent started with `argv` will read alike with its siblings."""
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--config", type=Path)
    args, _ = ap.parse_known_args(argv)
    if args.config is None:
        return
    config = cluster_config(args.config)
    if config.relevance_index and Path(config.relevance_index).is_dir():
        SearchIndex.load(Path(config.relevance_index))
