"""Whether a config folder already indexes its lake as it is now, so that indexing again can stop.

An index is current when the lake's files have the stamps (size, modification time) it
recorded, it was made with the same options, by the same Lakeboard code and Python, and
nothing was left for a next index (files the time budget did not reach). Then `lakeboard
index` says so in a line instead of reading the profile cache and rebuilding the search
index (47 s on an unchanged lake of 50k files); `--force` rebuilds anyway.
"""

from __future__ import annotations

import hashlib
import json
import sys
from functools import cache
from pathlib import Path

from lakeboard.common.lake_stamps import lake_changes, lake_stamps, read_indexed
from lakeboard.servers.profiling.lake import OUT_OF_TIME
from lakeboard.servers.profiling.cache import PROFILER_VERSION

_PACKAGE = Path(__file__).resolve().parents[2]  # the `lakeboard` root: servers/, schemas/, common/ ...


@cache
def code_fingerprint() -> str:
    """A digest of the Lakeboard code and the Python that write an index: another version (or a
    change to the code, in a development install) makes every index out of date."""
    h = hashlib.sha256(f"{PROFILER_VERSION}\0{sys.executable}\0".encode())
    for part in ("servers", "schemas", "common"):
        for path in sorted((_PACKAGE / part).rglob("*.py")):
            h.update(str(path.relative_to(_PACKAGE)).encode() + b"\0" + path.read_bytes() + b"\0")
    h.update((_PACKAGE / "servers" / "relevance" / "relevance_weights.json").read_bytes())
    return h.hexdigest()[:32]


def current_index(config_dir: Path, lake: Path, index_args: list[str]) -> dict | None:
    """clusters.json of `config_dir` when it indexes `lake` as it is now with these options, else None."""
    indexed = read_indexed(config_dir)
    if indexed is None or indexed.written_by != code_fingerprint() or indexed.index_args != index_args:
        return None
    try:
        config = json.loads((config_dir / "clusters.json").read_text(encoding="utf-8"))
        whole = (config_dir / "servers.json").is_file() and Path(config["relevance_index"]).is_dir()
        errors = config.get("errors", {})
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not whole or config.get("lake") != str(lake) or any(OUT_OF_TIME in str(why) for why in errors.values()):
        return None
    try:
        if lake_changes(indexed.files, lake_stamps(lake)):
            return None
    except OSError:
        return None
    return config
