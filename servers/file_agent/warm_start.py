"""What every file agent of a lake reads alike, read once by the fork server before it forks them.

Each file agent parses its lake's clusters.json and opens the lake's search index; at 50k
files that is a tenth of a second and tens of MB per agent, sixteen times over. The fork
server calls `warm` with each agent's arguments before serving, and the agents it forks find
both already read (shared copy-on-write). Each is kept with the stamp of its file, so an
index written since is read afresh.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from lakeboard.schemas.clusters import ClusterConfig
from lakeboard.servers.relevance.search_index import SearchIndex

_configs: dict[str, tuple[tuple[int, int, int], ClusterConfig]] = {}


def _stamp(path: Path) -> tuple[int, int, int]:
    st = os.stat(path)
    return st.st_ino, st.st_mtime_ns, st.st_size


def cluster_config(path: Path) -> ClusterConfig:
    """The lake's clusters.json, parsed once per version of the file in this process."""
    key, stamp = os.path.realpath(path), _stamp(path)
    known = _configs.get(key)
    if known is not None and known[0] == stamp:
        return known[1]
    config = ClusterConfig.model_validate_json(Path(key).read_text())
    _configs[key] = (stamp, config)
    return config


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
