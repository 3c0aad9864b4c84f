"""`python -m lakeboard.servers.indexing LAKE`: what `lakeboard index` runs (in its own process)."""

from __future__ import annotations

import argparse
import errno
import os
import sys
import time
from pathlib import Path

from lakeboard.common.child_processes import SAFE_FOLDER
from lakeboard.common.code_text import printable
from lakeboard.common.config_home import default_configs
from lakeboard.common.private_files import keep_new_files_private
from lakeboard.common.object_stores import ObjectLake, lake_url, public_options
from lakeboard.servers.profiling.cache import CacheWriteError
from lakeboard.servers.search_agent.settings import BACKENDS as SEARCH_BACKENDS


def _progress_printer():
    tty = sys.stderr.isatty()
    last = [0.0]

    def show(done: int, total: int, path: str) -> None:
        now = time.monotonic()
        if done != total and now - last[0] < (0.1 if tty else 2.0):
            return
        last[0] = now
        count = f"{done}/{total} files" if total else f"{done} objects on Dask"  # a bucket's total: not known yet
        msg = f"profiling {count}  {printable(path[-60:])}"
        if tty:
            print("\r" + msg.ljust(100), end="" if done != total else "\n", file=sys.stderr, flush=True)
        else:
            print(msg, file=sys.stderr, flush=True)

    return show


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0")
    return value


def _leave_current_folder(args: argparse.Namespace) -> None:
    """Work from a safe folder: the current one may be the lake, and readers (and the libraries
    they load) look for configuration files in it. Paths given relative to it are made absolute first."""
    for name in ("lake", "out", "docs", "llm_config"):
        value = getattr(args, name)
        if isinstance(value, Path):
            setattr(args, name, Path(os.path.abspath(value.expanduser())))
    os.chdir(SAFE_FOLDER)


_DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def _sentence(exc: Exception, out: Path) -> str:
    """The error as a sentence; a full disk says which file and what to do (not just "[Errno 28]")."""
    if isinstance(exc, CacheWriteError) or not (isinstance(exc, OSError) and exc.errno in _DISK_FULL):
        return str(exc)
    where = exc.filename or out
    return (f"the disk is full: cannot write {where} ({exc.strerror}); free some space there, or index into "
            "a folder on another disk with --out DIR")


# The options that say how a lake is indexed (not where, nor how loudly): a host that finds the
# lake changed re-indexes with them. The API key is never among them (it is read from the environment).
_RECORDED = {"strategy": "--strategy", "clusters": "--clusters", "docs": "--docs", "search_backend": "--search-backend",
             "model": "--model", "base_url": "--base-url", "llm_config": "--llm-config", "time_budget": "--time-budget"}


def _index_options(args: argparse.Namespace) -> list[str]:
    options = [f for name, flag in _RECORDED.items() if getattr(args, name) is not None
               for f in (flag, str(getattr(args, name)))]
    return options + (["--no-analysis"] if args.no_analysis else [])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="lakeboard index", description="Profile a lake, partition it and write configs.")
    ap.add_argument("lake", help="a lake folder, or a prefix of a bucket: s3://bucket/prefix, gs://..., az://...")
    ap.add_argument("--name", help="config name (default: the lake folder's name, or the prefix's last part)")
    ap.add_argument("--storage-option", action="append", default=[], metavar="KEY=VALUE",
                    help="an option of the bucket's filesystem (fsspec), e.g. endpoint_url=...; credentials are "
                         "best left to the store's usual chain (environment, profile files); none is ever written")
    ap.add_argument("--out", type=Path, help="configs folder (default: $LAKEBOARD_HOME/configs, else configs/ in "
                                             "the user data folder, e.g. ~/.local/share/lakeboard/configs)")
    ap.add_argument("--strategy", choices=["directory", "embedding", "llm"], default="directory")
    ap.add_argument("--clusters", type=int, help="number of clusters (default: chosen by the strategy)")
    ap.add_argument("--docs", type=Path, help="documents folder for the search agent (default: LAKE/docs if any)")
    ap.add_argument("--search-backend", choices=SEARCH_BACKENDS,
                    help="the search agent's backend (default: local when there are documents, else no search "
                         "agent); web backends read their URL or keys from the server's environment")
    ap.add_argument("--workers", type=int, help="profiling processes (default: number of cores); with --dask local, "
                                                "the local cluster's workers")
    ap.add_argument("--dask", metavar="ADDRESS",
                    help="profile a bucket lake on the Dask cluster at ADDRESS (e.g. tcp://scheduler:8786), or on a "
                         "local cluster of --workers processes with `local`; each worker reads its objects itself")
    ap.add_argument("--model", help="model for --strategy llm (else LAKEBOARD_LLM_MODEL / the LLM config file)")
    ap.add_argument("--base-url", help="its OpenAI-compatible endpoint (the key: LAKEBOARD_LLM_API_KEY)")
    ap.add_argument("--llm-config", type=Path, help="LLM config file (TOML)")
    ap.add_argument("--no-analysis", action="store_true",
                    help="with a model, skip the file agents' analysis of their partitions (they analyse when they start)")
    ap.add_argument("--time-budget", type=_seconds, metavar="SECONDS",
                    help="stop profiling after this long from the start (default: no limit); the files left are "
                         "listed as skipped with the reason, their profiles are made by the next index")
    ap.add_argument("--force", action="store_true",
                    help="index again even when the config already indexes the lake as it is now")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    keep_new_files_private()  # profiles hold samples of every file: owner-only, as all it writes
    if args.out is None:
        args.out = default_configs()
    try:
        bucket = lake_url(args.lake)
    except ValueError as exc:
        print(f"lakeboard index: {printable(str(exc), 4000)}", file=sys.stderr)
        return 2
    if bucket is None:
        args.lake = Path(args.lake.removeprefix("file://"))
        if args.dask:
            print("lakeboard index: --dask profiles lakes in object storage (s3://, gs://, az://), whose objects "
                  "each Dask worker reads itself; a folder is profiled by local processes (--workers)", file=sys.stderr)
            return 2
    _leave_current_folder(args)

    from lakeboard.common.llm_settings import LLMConfigError, LLMSettings
    from lakeboard.servers.indexing import index_lake
    from lakeboard.servers.partitioning import PartitionError

    client = None
    try:
        model = LLMSettings.resolve({"model": args.model, "base_url": args.base_url, "config": args.llm_config})
        if args.dask:
            from lakeboard.servers.object_lakes.dask_batches import dask_client, dask_embedder

            client = dask_client(args.dask, args.workers)
        replica = None if bucket is None else _replicate(bucket, args, client)
        res = index_lake(
            args.lake if replica is None else replica.folder, name=args.name, out=args.out, strategy=args.strategy, n_clusters=args.clusters,
            docs=args.docs, search_backend=args.search_backend, workers=args.workers, progress=None if args.quiet else _progress_printer(),
            model=model, time_budget_s=args.time_budget, index_args=_index_options(args), force=args.force,
            source=None if bucket is None else bucket.url, adjust=None if replica is None else replica.apply,
            source_options=None if replica is None else public_options(replica.options),
            embed=None if client is None else dask_embedder(client),
        )
    except (PartitionError, NotADirectoryError, ValueError, OSError, LLMConfigError) as exc:
        print(f"lakeboard index: {printable(_sentence(exc, args.out), 4000)}", file=sys.stderr)
        return 2
    finally:
        if client is not None:
            _close(client)
    if res.up_to_date:
        print(f"{printable(res.config_dir, 4000)} already indexes the lake as it is ({res.n_files} files in "
              f"{res.n_clusters} clusters, checked in {res.seconds:.1f}s); --force indexes it again")
        return _analyse(res.config_dir, model, quiet=args.quiet) if model is not None and not args.no_analysis else 0
    print(f"indexed {res.n_files} files into {res.n_clusters} clusters in {res.seconds:.1f}s")
    if res.errors:
        print(f"{len(res.errors)} files are not usable as data (served with the reason):")
        for path, why in list(res.errors.items())[:20]:
            print(f"  {printable(path, 500)}: {printable(why, 1000)}")
        if len(res.errors) > 20:
            print(f"  ... and {len(res.errors) - 20} more (see clusters.json)")
    if res.checked:
        verified = res.checked - len(res.unverified)
        print(f"{verified} of {res.checked} loaders verified ({verified / res.checked:.0%}): each run on its file "
              "and compared with the profile")
        for path, why in list(res.unverified.items())[:20]:
            print(f"  unverified {printable(path, 500)}: {printable(why, 1000)}")
        if len(res.unverified) > 20:
            print(f"  ... and {len(res.unverified) - 20} more (`lakeboard loader` shows a file's check)")
    if res.search_backend is None:
        print("no search agent: the lake has no documents folder (add one with --docs DIR, "
              "or --search-backend searxng|google|brave for web search)")
    print(f"wrote {printable(res.config_dir / 'clusters.json', 4000)}")
    print(f"wrote {printable(res.config_dir / 'servers.json', 4000)}  (mcpServers format: paste an entry into any MCP client)")
    if model is not None and not args.no_analysis:
        return _analyse(res.config_dir, model, quiet=args.quiet)
    return 0


def _close(client) -> None:
    """The Dask client, and the local cluster it started (a cluster given by its address keeps running)."""
    cluster = client.cluster
    client.close()
    if cluster is not None:
        cluster.close()


def _replicate(bucket: ObjectLake, args: argparse.Namespace, client=None):
    """The bucket's sample replica brought up to date in its config folder (`args.name` set to the
    config's name), and what was read said. Raises ValueError as `bucket_index.replicate` does."""
    from lakeboard.common.object_stores import storage_options
    from lakeboard.servers.object_lakes.bucket_index import recorded_options, replicate
    from lakeboard.servers.partitioning.base import slug

    args.name = slug(args.name or bucket.name)
    config_dir = args.out.expanduser().resolve() / args.name
    options = {**recorded_options(config_dir, bucket), **storage_options(args.storage_option)}
    show = None if args.quiet or client is None else _progress_printer()
    report = replicate(bucket, config_dir, options, client=client,
                       progress=None if show is None else lambda done, rel: show(done, 0, rel))
    if not args.quiet:
        print(f"read {bucket.url}: {report.summary}")
        for key, why in list(report.manifest.skipped.items())[:20]:
            print(f"  skipped {printable(key, 500)}: {printable(why, 1000)}")
    return report


def _analyse(config_dir: Path, model, *, quiet: bool) -> int:
    """The file agents' offline phase: each partition analysed by the model, stored for its server."""
    from lakeboard.schemas.clusters import ClusterConfig
    from lakeboard.servers.indexing.analyses import analyse_partitions

    if model.base_url is None and model.api_key is None:
        print(f"the file agents' analysis is skipped: model {model.model} has no endpoint (--base-url) and no key",
              file=sys.stderr)
        return 0
    config = ClusterConfig.model_validate_json((config_dir / "clusters.json").read_text())

    def show(done: int, total: int, name: str) -> None:
        if not quiet:
            print(f"analysing partitions with {model.model}: {done}/{total} ({printable(name)})", file=sys.stderr, flush=True)

    result = analyse_partitions(config_dir, config, model, progress=show)
    reused = f", {len(result.reused)} kept from before" if result.reused else ""
    print(f"analysed {len(result.analysed)} partitions with {model.model}{reused}; "
          f"stored in {config_dir / 'analyses'}")
    for name, why in result.failed.items():
        print(f"  {printable(name)}: not analysed ({printable(why, 1000)}); its file agent answers offline until it analyses on its own")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl-C reaches the whole process group: `lakeboard index` says it once
        sys.exit(130)
