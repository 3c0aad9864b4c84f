"""Reading and profiling a bucket lake's objects on a Dask cluster, a batch of objects per task.

Each task runs where a Dask worker is: it reads its objects' samples from the store (never more
than the sample budget of any object), profiles them in a worker process with today's per-file
bounds on time and memory (`profiling/worker_pool.py`), and returns the samples and the profiles.
The indexer writes them into the replica and the profile cache as tasks finish, so a worker that
dies loses only the batch it held, which Dask runs again elsewhere. At most a few batches per
worker are in flight, so a lake of a million objects is never all in the scheduler at once.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path

from lakeboard.common.lake_files import empty_folder
from lakeboard.common.object_stores import ObjectLake, filesystem, lake_url
from lakeboard.servers.object_lakes.listing import ObjectEntry
from lakeboard.servers.object_lakes.replica import BatchRunner, Sampled, fetch_samples, write_sample

log = logging.getLogger(__name__)
RETRIES = 3  # a batch whose worker died is run again, this many times at most
BATCH = 200  # objects per task: a task starts one profiling process, which takes about a second
IN_FLIGHT_PER_WORKER = 3


_local = threading.local()  # per worker thread: its private folder and its profiling process


def _profiler(timeout_s: float):
    """This thread's folder for samples and its pool of one profiling process, made at its first batch
    and kept: starting the process (its imports) costs about as much as profiling a batch."""
    from lakeboard.servers.profiling.worker_pool import WorkerPool

    if getattr(_local, "root", None) is None:
        _local.root, _local.pool = Path(tempfile.mkdtemp(prefix="lakeboard-batch-", dir=_worker_folder())), None
        weakref.finalize(_local, shutil.rmtree, _local.root, True)
    if _local.pool is None or _local.pool.timeout_s != timeout_s:
        if _local.pool is not None:
            _local.pool.close()  # its profiling process is not left behind
        _local.pool = WorkerPool(_local.root, 1, timeout_s=timeout_s)
    empty_folder(_local.root)  # the last batch's samples
    return _local.pool, _local.root


def _worker_folder() -> str | None:
    """The Dask worker's own folder, or None outside a worker. Dask removes it with the worker, and
    purges it after a worker that was killed (a killed worker runs no finalizer, so a folder of
    its own in /tmp would keep the lake's samples)."""
    try:
        from distributed import get_worker

        return get_worker().local_directory
    except (ImportError, ValueError):  # ValueError: not running on a worker
        return None


def _filesystem(lake: ObjectLake, options: dict[str, object]):
    """This thread's filesystem of the lake's store, made at its first batch (a new client per batch
    costs a store's session and its service description)."""
    key = (lake.url, repr(sorted(options.items())))
    if getattr(_local, "fs_key", None) != key:
        _local.fs, _local.fs_key = filesystem(lake, options), key
    return _local.fs


def profile_batch(url: str, options: dict[str, object], entries: list[tuple], budget: int,
                  timeout_s: float) -> list[tuple[tuple, list[tuple[int, bytes]] | str, str | None]]:
    """Runs on a Dask worker: the batch's samples read from the store and profiled in a bounded worker
    process (kept from batch to batch), in a private folder emptied at the next batch."""
    from lakeboard.servers.profiling.lake import failure_profile

    lake = lake_url(url)
    batch = [ObjectEntry(*e) for e in entries]
    got = fetch_samples(_filesystem(lake, options), lake, batch, budget)
    out: list[tuple[tuple, list[tuple[int, bytes]] | str, str | None]] = []
    pool, root = _profiler(timeout_s)
    written = []
    for e, parts in zip(batch, got):
        if isinstance(parts, str):
            continue
        try:
            write_sample(root, e, parts)
            written.append(e.rel)
        except OSError as exc:  # an object that is also a folder: the indexer says so when it writes
            log.debug("%s not profiled here: %s", e.rel, exc)
    profiles = {}
    for o in pool.run(written, keep_workers=True):
        profiles[o.relpath] = o.profile_json if o.profile_json is not None else \
            failure_profile(o.relpath, root, o.status, o.failure or "failed").model_dump_json()
    for e, parts in zip(batch, got):
        out.append((tuple(e), parts, profiles.get(e.rel)))
    return out


def dask_batches(client, lake: ObjectLake, options: dict[str, object], budget: int, timeout_s: float) -> BatchRunner:
    """A runner for `refresh_replica` that sends each batch to the cluster `client` is connected to."""
    from distributed import as_completed

    workers = max(1, len(client.scheduler_info().get("workers", {})))

    def run(batches: Iterator[list[ObjectEntry]]) -> Iterator[Sampled]:
        def submit(batch: list[ObjectEntry]):
            return client.submit(profile_batch, lake.url, options, [tuple(e) for e in batch], budget, timeout_s,
                                 pure=False, retries=RETRIES)

        pending = iter(batches)
        running = as_completed()
        for batch in pending:
            running.add(submit(batch))
            if running.count() >= IN_FLIGHT_PER_WORKER * workers:
                break
        for future in running:
            results = future.result()
            future.release()
            nxt = next(pending, None)
            if nxt is not None:
                running.add(submit(nxt))
            for entry, parts, profile_json in results:
                yield ObjectEntry(*entry), parts, profile_json

    return run


def _embed_chunk(texts: list[str]):
    """Runs on a Dask worker: MiniLM vectors of some file cards, on one BLAS thread (its cores are the
    cluster's to share between workers)."""
    from threadpoolctl import threadpool_limits

    from lakeboard.common.minilm import embed

    with threadpool_limits(1):
        return embed(texts)


def dask_embedder(client, chunk: int = 256):
    """An embedder for the index's file cards that sends chunks of them to the cluster's workers:
    after profiling, embedding is most of what is left of an index."""
    import numpy as np

    def embed(texts: list[str]) -> np.ndarray:
        chunks = [texts[i:i + chunk] for i in range(0, len(texts), chunk)]
        if not chunks:
            return np.zeros((0, 384), dtype=np.float32)
        return np.vstack(client.gather(client.map(_embed_chunk, chunks, pure=False, retries=RETRIES)))

    return embed


def dask_client(address: str, workers: int | None):
    """A client of the cluster at `address`, or of a local cluster of `workers` processes
    (one thread each: profiling is CPU-bound) when the address is `local`."""
    from distributed import Client, LocalCluster

    if address == "local":
        cluster = LocalCluster(n_workers=workers or 2, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.WARNING)
        return Client(cluster)
    return Client(address, timeout=30)
