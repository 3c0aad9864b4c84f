"""The offline phase end to end: profiles -> clusters -> search index -> server entries."""

from __future__ import annotations

import json
import logging
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from lakeboard.common.config_home import default_configs
from lakeboard.common.gc_pauses import collector_paused
from lakeboard.common.lake_stamps import STAMPS_FILE, IndexedLake, lake_stamps
from lakeboard.servers.indexing.up_to_date import code_fingerprint, current_index
from lakeboard.common.llm_settings import LLMSettings
from lakeboard.schemas.clusters import ClusterConfig
from lakeboard.schemas.profiles import FileProfile
from lakeboard.schemas.storage import STORED
from lakeboard.servers.indexing.config_set import publish
from lakeboard.servers.indexing.server_entries import (
    find_docs_folder,
    search_backend_for,
    server_entries,
)
from lakeboard.servers.partitioning import strategy_named
from lakeboard.servers.partitioning.base import slug

log = logging.getLogger(__name__)
MIRROR_FOLDER = "mirror/objects"  # a bucket lake's whole files, as the host fetches them (common/object_mirror.py)


def _refuse_other_lake(config_dir: Path, lake: Path) -> None:
    existing = config_dir / "clusters.json"
    if existing.is_file():
        try:
            owner = ClusterConfig.model_validate_json(existing.read_text()).lake
        except ValueError:
            return  # unreadable: it is rewritten
        if Path(owner) != lake:
            raise ValueError(
                f"{config_dir} already holds the config of another lake ({owner}); choose another --name"
            )


@dataclass
class IndexResult:
    config_dir: Path
    n_files: int
    n_clusters: int
    errors: dict[str, str]
    seconds: float
    search_backend: str | None = None  # None: no search agent was configured
    # Loaders run on their files at profiling time (`FileProfile.loader_check`): why each unverified one is.
    checked: int = 0
    unverified: dict[str, str] = field(default_factory=dict)
    up_to_date: bool = False  # the config already indexed the lake as it is: nothing was written


def index_lake(
    lake: Path,
    *,
    name: str | None = None,
    out: Path | None = None,
    strategy: str = "directory",
    n_clusters: int | None = None,
    docs: Path | None = None,
    search_backend: str | None = None,
    workers: int | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    model: LLMSettings | None = None,
    time_budget_s: float | None = None,
    index_args: list[str] | None = None,
    force: bool = False,
    source: str | None = None,
    source_options: dict[str, str | int | float | bool] | None = None,
    adjust: Callable[[FileProfile], FileProfile] | None = None,
    embed: Callable | None = None,
) -> IndexResult:
    """Index `lake` into `out`/NAME (`out`: the default configs folder when None).

    `index_args` are the indexer options this index was made with (as `python -m
    lakeboard.servers.indexing` takes them): they are recorded with the lake's stamps, so that
    a host that finds the lake changed re-indexes it the same way. Given them, an index that is
    already current (`up_to_date.py`) is left as it is, unless `force`.
    A lake in object storage is indexed from its sample replica (`lake`), with its URL as
    `source` (and the options that say where its store is), and `adjust` turning the replica's
    profiles into the objects' (their sizes). Its code reads the mirror (MIRROR_FOLDER), which
    the host fills with the files helpers name. `embed` embeds the file cards where the model loads
    here (a Dask cluster's workers); the default embeds them in this process.
    """
    t0 = time.perf_counter()
    lake = lake.expanduser().resolve()
    if not lake.is_dir():
        raise NotADirectoryError(f"the lake {str(lake)!r} is not a folder")
    name = slug(name or lake.name)
    out = (out if out is not None else default_configs()).expanduser().resolve()
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"{str(out)!r} is a file: --out names the folder configs are written to")
    config_dir = out / name
    if config_dir == lake or lake in config_dir.parents:
        raise ValueError(
            f"the config folder {config_dir} would be inside the lake {lake}, and nothing is ever written "
            "into a lake: choose --out outside it"
        )
    _refuse_other_lake(config_dir, lake)
    # Only where the options are known (the command records them): another caller's options may differ.
    current = None if force or index_args is None else current_index(config_dir, lake, list(index_args))
    if current is not None:
        return IndexResult(config_dir, sum(len(c["files"]) for c in current["clusters"]), len(current["clusters"]),
                           current.get("errors", {}), time.perf_counter() - t0, up_to_date=True)
    # Imported only now: a refusal above, or an index that is already current, costs a third of a second less.
    from lakeboard.servers.profiling import profile_lake
    from lakeboard.servers.profiling.families import describe_families
    from lakeboard.common.minilm import available_embedder
    from lakeboard.common.byte_copies import byte_copies
    from lakeboard.servers.relevance.lake_index import RELEVANCE_FOLDER, LakeIndex
    from lakeboard.servers.relevance.vector_cache import VectorCache
    # Stamped before profiling: a file changed while it is profiled is seen as changed next time.
    stamps = lake_stamps(lake)
    if not stamps:  # before any folder is made: an empty lake leaves nothing behind
        raise ValueError(f"the lake {str(lake)!r} holds no files")
    docs = docs or find_docs_folder(lake)
    backend = search_backend_for(docs, search_backend)  # a bad choice fails before the long part
    # Owner-only (profiles hold samples of every file), also a folder an older Lakeboard made.
    config_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    config_dir.chmod(0o700)
    profile_dir = config_dir / "profiles"
    profiles = profile_lake(lake, profile_dir, workers=workers, progress=progress, time_budget_s=time_budget_s,
                            adjust=adjust)
    if not profiles:
        raise ValueError(f"the lake {str(lake)!r} holds no files")
    errors = {p.path: f"{p.status}: {p.reason}" for p in profiles if p.status != "ok"}

    config_path, relevance_path = config_dir / "clusters.json", config_dir / RELEVANCE_FOLDER
    # The analyses make many objects and no reference cycles: with the collector running, it scanned
    # the growing heap over and over (at 50k files 7.6-7.8 s of collections; the index took 123-140 s
    # without them against 140-147 s, peak memory 1.32 GB either way).
    with collector_paused():
        clusters = strategy_named(strategy, n_clusters=n_clusters, model=model).partition(profiles)
        config = ClusterConfig(
            lake=str(lake),
            source=source,
            source_options=source_options or {},
            data_root=str(config_dir / MIRROR_FOLDER) if source else None,
            name=name,
            strategy=strategy,
            profile_dir=str(profile_dir),
            relevance_index=str(relevance_path),
            clusters=clusters,
            errors=errors,
            families=describe_families(profiles),
        )
        # a bucket lake's replica holds samples of its objects, not their bytes: its copies are not known
        copies = [] if source else byte_copies(lake, ((p.path, p.size_bytes) for p in profiles))
        here = available_embedder()  # no model here: the index is lexical, wherever it would be embedded
        with VectorCache(lake=lake) if here else nullcontext() as cache:
            relevance = LakeIndex.build(profiles, config.families, embed=embed if here and embed else here,
                                        previous=relevance_path, cache=cache, copies=copies)
    entries = server_entries(config, config_path, config_dir / "workdir", docs, backend)
    publish(config_dir, {
        # on one line: indented, its lists of files and family members were a third spaces (8.3 MB, 5.6 MB at 50k
        # files); STORED leaves out the family members' paths that their pattern gives
        "clusters.json": config.model_dump_json(context=STORED) + "\n",
        "servers.json": json.dumps(entries, indent=2, ensure_ascii=False) + "\n",
        STAMPS_FILE: IndexedLake(stamps, list(index_args or []), code_fingerprint()).to_gzip(),
    }, folders={RELEVANCE_FOLDER: relevance.save})
    if source:
        (config_dir / MIRROR_FOLDER).mkdir(mode=0o700, parents=True, exist_ok=True)
    (config_dir / "servers.d").mkdir(exist_ok=True)
    (config_dir / "workdir").mkdir(exist_ok=True)
    checks = {p.path: p.loader_check for p in profiles if p.ok and p.loader_check is not None}
    unverified = {path: "; ".join(c.reasons) for path, c in checks.items() if not c.verified}
    return IndexResult(config_dir, len(profiles), len(clusters), errors, time.perf_counter() - t0, backend,
                       checked=len(checks), unverified=unverified)
