"""From what a user types (a lake folder or a config folder) to a lake's servers.

A lake folder that has not been indexed is indexed first, by running the indexer as its
own process: the host never imports server code, it only starts server commands. A lake that
changed since it was indexed (a file added, removed or changed) is re-indexed before it is
used, with one line saying so: an index never answers from files that are gone.
"""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from lakeboard.common.child_processes import inheritable_environment, python_module_command
from lakeboard.common.config_home import default_configs
from lakeboard.common.file_versions import read_once
from lakeboard.common.file_names import is_utf8
from lakeboard.common.lake_stamps import lake_changes, lake_stamps, read_indexed
from lakeboard.common.object_mirror import ObjectMirror
from lakeboard.common.object_stores import ObjectLake, lake_url, storage_options
from lakeboard.host.servers_config import ServerEntry, ServersConfig, ServersConfigError, load_servers

log = logging.getLogger(__name__)

CONFIG_FILES = ("servers.json", "clusters.json")
KERNEL_MODULE = "lakeboard.servers.kernel"
GATEWAY_MODULE = "lakeboard.host.gateway"  # `lakeboard serve`: the blackboard as one MCP server


class LakeError(RuntimeError):
    """The lake or config cannot be used (not found, indexing failed ...)."""


@dataclass(frozen=True)
class Lake:
    config_dir: Path
    root: Path | None  # the lake folder, when known

    def __post_init__(self) -> None:
        _refuse_inside(self.config_dir, self.root)  # its traces and runs would land in the lake

    def output(self, path: Path) -> Path:
        """`path`, which Lakeboard is about to write (a trace, a run, a notebook), when it is outside the lake."""
        if self.root is not None and is_inside(path, self.root):
            raise LakeError(
                f"{path} is inside the lake {self.root}, and Lakeboard never writes into a lake: "
                "choose a path outside it"
            )
        return path

    def all_servers(self) -> ServersConfig:
        """Every entry of the servers files, the gateway's too; a warning for each servers.d file skipped and
        where they and clusters.json disagree."""
        try:
            config = load_servers(self.config_dir)
        except ServersConfigError as exc:
            raise LakeError(str(exc)) from None
        for why in config.skipped.values():
            log.warning("%s; the file is skipped", why)
        for problem in partition_mismatches(self.config_dir, config):
            log.warning("%s", problem)
        return config

    @property
    def search_index(self) -> Path | None:
        """The folder of the lake's search index, as clusters.json names it (None without one)."""
        fields = _fields_of(self.config_dir)
        return Path(fields.relevance_index) if fields and fields.relevance_index else None

    def mirror(self) -> ObjectMirror | None:
        """A bucket lake's local mirror, which the blackboard fills with the files helpers name (None for a
        folder lake). Its store options: those the config records (an endpoint), then
        LAKEBOARD_STORAGE_OPTIONS; credentials come from the store's usual chain."""
        fields = _fields_of(self.config_dir)
        if fields is None or not fields.source or not fields.data_root:
            return None
        try:
            bucket = lake_url(fields.source)
            options = {**fields.source_options, **storage_options()}
        except ValueError as exc:
            raise LakeError(str(exc)) from None
        return ObjectMirror(bucket, Path(fields.data_root), options)

    def servers(self, *, helpers_only: bool = False) -> ServersConfig:
        """The servers the host starts itself: never the gateway, which serves these same servers to MCP clients."""
        config = self.all_servers()
        config.servers = {n: e for n, e in config.servers.items() if not runs_module(e, GATEWAY_MODULE)}
        if helpers_only:
            # The kernel serves the main agent's code, not requests: a discovery run
            # does not need to pay for starting it.
            config.servers = {n: e for n, e in config.servers.items() if not runs_module(e, KERNEL_MODULE)}
        return config


def _partition_names(path: Path) -> tuple[str, ...]:
    """The partitions a clusters.json names (read once per version of the file: the gateway checks
    them at every request, and a large lake's file lists take a tenth of a second to parse)."""
    return tuple(c["name"] for c in json.loads(path.read_text(encoding="utf-8"))["clusters"])


def partition_mismatches(config_dir: Path, servers: ServersConfig) -> list[str]:
    """Where clusters.json and the file agents of the servers files disagree, one sentence each.

    A partition with no server is never searched, and a server of a partition that is gone
    answers from a stale list; both come from configs written apart (edited by hand, or
    from an older indexer killed between two files).
    """
    clusters_path = config_dir / "clusters.json"
    try:
        partitions = read_once(clusters_path, _partition_names)
    except (OSError, ValueError, KeyError, TypeError):
        return []  # no partition file: servers.json alone is a valid config
    served: dict[str, str] = {}  # partition -> server name
    for name, entry in servers.servers.items():
        cluster = file_agent_partition(entry, clusters_path, name)
        if cluster is not None:
            served[cluster] = name
    redo = "run `lakeboard index` again to write both files"
    problems = [
        f"partition {p!r} of {clusters_path} has no file agent in the servers files, so its files are "
        f"never searched; {redo}"
        for p in partitions if p not in served
    ]
    problems += [
        f"server {server!r} serves partition {p!r}, which {clusters_path} does not have; {redo}"
        for p, server in served.items() if p not in partitions
    ]
    return problems


def file_agent_partition(entry: ServerEntry | None, clusters_path: Path, name: str | None = None) -> str | None:
    """The partition of `clusters_path` a file-agent entry serves, or None for any other server. An HTTP
    entry named as the index names a partition's file agent (`LAKE-PARTITION`) serves that partition:
    one served from another machine, mounted through servers.d."""
    if getattr(entry, "transport", None) == "http":
        prefix = f"{clusters_path.parent.name}-"
        if name is None or not name.startswith(prefix):
            return None
        try:
            partitions = read_once(clusters_path, _partition_names)
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return name[len(prefix):] if name[len(prefix):] in partitions else None
    args = getattr(entry, "args", None) or []
    if "lakeboard.servers.file_agent" not in args:
        return None
    options = dict(zip(args, args[1:]))
    config, cluster = options.get("--config"), options.get("--cluster")
    if config is None or cluster is None or os.path.realpath(config) != os.path.realpath(clusters_path):
        return None
    return cluster


def lake_files(root: Path) -> list[str]:
    """Every file of the lake, lake-relative and sorted.

    Hidden files and folders are left out, and so are names that are not UTF-8: the index
    skips them (JSON and MCP cannot carry them), so no answer can name them.
    """
    relative = (p.relative_to(root) for p in root.rglob("*") if p.is_file())
    names = (r.as_posix() for r in relative if not any(part.startswith(".") for part in r.parts))
    return sorted(name for name in names if is_utf8(name))



def runs_module(entry: ServerEntry, module: str) -> bool:
    """Whether a stdio entry starts `python -m module`."""
    return module in (getattr(entry, "args", None) or [])


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "lake"


def config_name(lake: Path, configs: Path) -> str:
    """The lake folder's name, or `parent-name` when another lake already uses that name
    (two lakes called `input` or `data` must not share a config)."""
    name = _slug(lake.name)
    owner = _lake_of(configs / name)
    if owner is None or owner == lake:
        return name
    return _slug(f"{lake.parent.name}-{lake.name}")


def resolve_lake(
    location: str | Path, *, configs: Path | None = None, reindex: bool = False, quiet: bool = False,
    refresh: bool = True,
) -> Lake:
    """The lake or config folder a user named; a lake not indexed yet is indexed into `configs`
    (None: the default configs folder, see common/config_home.py), and with `refresh` a lake
    that changed since it was indexed is re-indexed first.

    Raises LakeError, with one sentence saying what to give instead, for a path that does not
    exist, a file that is not a config file, a config that cannot be read, and a config folder
    inside its lake (traces and runs go to the config folder, and nothing is written into a lake).
    """
    try:
        bucket = lake_url(str(location))
    except ValueError as exc:
        raise LakeError(str(exc)) from exc
    if bucket is not None:
        return _resolve_bucket(bucket, configs, reindex=reindex, quiet=quiet)
    path = Path(location).expanduser()
    if not path.exists():
        raise LakeError(f"{str(path)!r} does not exist: {_GIVE}")
    if path.is_file() and path.name not in CONFIG_FILES:
        raise LakeError(f"{str(path)!r} is a file: {_GIVE}")
    if path.is_file() or any((path / f).is_file() for f in CONFIG_FILES):
        folder = (path.parent if path.is_file() else path).resolve()
        root = _lake_of(folder)
        _check_servers(folder)
        if reindex and root is not None:
            run_indexer(_source_of(folder) or root, folder.parent, name=folder.name, quiet=quiet, extra=["--force"])
        elif refresh:
            refresh_index(folder, root)
        return Lake(folder, root)
    lake = path.resolve()
    configs = configs if configs is not None else default_configs()
    if configs.exists() and not configs.is_dir():
        raise LakeError(f"{str(configs)!r} is a file: --configs names the folder lake configs are written to")
    config_dir = (configs / config_name(lake, configs)).resolve()
    _refuse_inside(config_dir, lake)
    if reindex or not (config_dir / "servers.json").is_file():
        run_indexer(lake, config_dir.parent, name=config_dir.name, quiet=quiet, extra=["--force"] if reindex else [])
    elif refresh:
        refresh_index(config_dir, lake)
    _check_servers(config_dir)
    return Lake(config_dir, lake)


def _resolve_bucket(bucket: ObjectLake, configs: Path | None, *, reindex: bool, quiet: bool) -> Lake:
    """The config of a lake in object storage, indexed first when it has none (its storage options
    from LAKEBOARD_STORAGE_OPTIONS and the store's chain). A bucket is not listed again to see whether
    it changed: that costs a listing of every object; `--reindex` (or `lakeboard index`) reads it again."""
    configs = configs if configs is not None else default_configs()
    name = _slug(bucket.name)
    if _source_of(configs / name) not in (None, bucket.url):
        name = _slug(bucket.root.replace("/", "-"))
    config_dir = (configs / name).resolve()
    if reindex or not (config_dir / "servers.json").is_file():
        run_indexer(bucket.url, configs, name=name, quiet=quiet, extra=["--force"] if reindex else [])
    _check_servers(config_dir)
    return Lake(config_dir, _lake_of(config_dir))


def refresh_index(config_dir: Path, lake: Path | None) -> str | None:
    """Re-index `lake` into `config_dir` if it changed since the index recorded it; the line said, or None.

    Cheap when nothing changed: one walk with a stat per file, no read. The indexer re-profiles
    only the files that changed (its profile cache), with the options the index was made with.
    An index without stamps (older, or written by hand) is left as it is.
    """
    indexed = read_indexed(config_dir)
    if indexed is None or lake is None or _source_of(config_dir) is not None:
        return None  # a bucket is not listed at every command: `--reindex` reads it again
    if not _has_search_index(config_dir):
        why = "its index was written by an older Lakeboard, with no search index"
    else:
        try:
            changes = lake_changes(indexed.files, lake_stamps(lake))
        except OSError:
            return None  # the lake cannot be listed now: its servers say so
        if not changes:
            return None
        why = f"the lake changed since it was indexed ({changes.describe()})"
    t0 = time.perf_counter()
    run_indexer(lake, config_dir.parent, name=config_dir.name, quiet=True, extra=indexed.index_args, silent=True)
    line = f"{why}; re-indexed in {time.perf_counter() - t0:.1f} s"
    print(line, file=sys.stderr)  # stderr: stdout may be JSON or the gateway's MCP channel
    return line


class _LakeFields(NamedTuple):
    """What the host reads of clusters.json (its partitions' file lists are left unvalidated)."""

    lake: str | None
    relevance_index: str | None
    source: str | None  # a bucket lake's URL
    source_options: dict
    data_root: str | None  # a bucket lake's mirror


def _lake_fields(path: Path) -> _LakeFields:
    # a few fields read, not the whole config validated: clusters.json lists every file of the lake
    data = json.loads(path.read_text(encoding="utf-8"))
    text = {k: v if isinstance(v, str) else None for k in ("lake", "relevance_index", "source", "data_root")
            for v in [data.get(k)]}
    options = data.get("source_options")
    return _LakeFields(**text, source_options=options if isinstance(options, dict) else {})


def _fields_of(config_dir: Path) -> _LakeFields | None:
    """clusters.json's fields, read once per version of the file (the gateway reads them at every lake
    check); None when it cannot be read."""
    try:
        return read_once(config_dir / "clusters.json", _lake_fields)
    except (OSError, ValueError, AttributeError):
        return None


def _has_search_index(config_dir: Path) -> bool:
    fields = _fields_of(config_dir)
    if fields is None:
        return True  # not ours to judge: the servers say what is wrong with it
    return fields.relevance_index is not None and Path(fields.relevance_index).is_dir()


_GIVE = "give a lake folder, or a config folder written by `lakeboard index`"


def _refuse_inside(config_dir: Path, lake: Path | None) -> None:
    if lake is not None and is_inside(config_dir, lake):
        raise LakeError(
            f"the config folder {config_dir} is inside its lake {lake}, and Lakeboard never writes into a lake: "
            "pass --configs DIR outside the lake (or set LAKEBOARD_HOME to a folder outside it)"
        )


def is_inside(path: Path, folder: Path) -> bool:
    """Whether `path` is `folder` or lies under it (links resolved)."""
    path, folder = Path(path).resolve(), Path(folder).resolve()
    return path == folder or folder in path.parents


def _check_servers(config_dir: Path) -> None:
    try:
        load_servers(config_dir)
    except ServersConfigError as exc:
        raise LakeError(str(exc)) from None


def _lake_of(config_dir: Path) -> Path | None:
    """The folder the config's code reads the lake from: the lake, or a bucket lake's mirror."""
    fields = _fields_of(config_dir)
    root = fields and (fields.data_root or fields.lake)
    return Path(root) if root else None


def _source_of(config_dir: Path) -> str | None:
    """The URL of the config's lake when it lives in object storage."""
    fields = _fields_of(config_dir)
    return fields.source if fields else None


def indexer_command(lake: Path | str, out: Path | None, *, name: str | None = None, quiet: bool = False,
                    extra: list[str] = ()) -> list[str]:
    """The command that indexes `lake` (a folder, or a bucket's URL) into `out` (None: the default configs
    folder). The indexer runs as its own process, never importing from the current folder: a user may index
    the folder they are in, and the lake's code must not run."""
    where = ["--out", str(Path(out).absolute())] if out is not None else []
    named = str(lake) if isinstance(lake, str) and "://" in lake else str(Path(lake).absolute())
    cmd = python_module_command("lakeboard.servers.indexing", named, *where, *extra)
    if name:
        cmd += ["--name", name]
    if quiet:
        cmd.append("--quiet")
    return cmd


def indexer_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The indexer's environment: the host's but its tokens (its workers read the lake's files), and `extra`."""
    return {**inheritable_environment(os.environ), **(extra or {})}


def run_indexer(lake: Path | str, out: Path, *, name: str | None = None, quiet: bool = False, extra: list[str] = (),
                silent: bool = False) -> None:
    """Index `lake` into `out`; `quiet`: its report goes to stderr, `silent`: nowhere (its errors still do)."""
    proc = subprocess.run(indexer_command(lake, out, name=name, quiet=quiet, extra=list(extra)),
                          env=indexer_environment(),
                          stdout=subprocess.DEVNULL if silent else sys.stderr if quiet else None)
    if proc.returncode != 0:
        raise LakeError(f"indexing {str(lake)!r} failed: {indexer_failure(proc.returncode)}")


def indexer_failure(returncode: int) -> str:
    """What an indexer's non-zero exit means, for a user: it says its own errors, but a signal leaves no word."""
    if returncode == 130 or returncode == -signal.SIGINT:
        return "interrupted"
    if returncode < 0:
        name = signal.Signals(-returncode).name if -returncode in signal.valid_signals() else f"signal {-returncode}"
        why = " (the system may have run out of memory)" if -returncode == signal.SIGKILL else ""
        return (f"the indexer was stopped by {name}{why}; the config folder keeps its last complete index. "
                "Run `lakeboard index` again; files already profiled are not profiled twice")
    return f"exit {returncode}; see the messages above"
