"""A bucket lake's replica brought up to date for `lakeboard index`: read here, or on a Dask cluster."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from lakeboard.common.object_stores import ObjectLake
from lakeboard.servers.object_lakes.replica import SAMPLE_BYTES, ReplicaReport, refresh_replica

REPLICA_FOLDER = "replica"  # in the config folder


def recorded_options(config_dir: Path, bucket: ObjectLake) -> dict[str, object]:
    """The store options the last index of this bucket recorded (its endpoint): a re-index needs them
    again, and a host that re-indexes has only the config and the store's chain."""
    from lakeboard.schemas.clusters import ClusterConfig

    try:
        config = ClusterConfig.model_validate_json((config_dir / "clusters.json").read_text())
    except (OSError, ValueError):
        return {}
    return dict(config.source_options) if config.source == bucket.url else {}


def replicate(bucket: ObjectLake, config_dir: Path, options: dict[str, object], *, client=None,
              progress: Callable[[int, str], None] | None = None) -> ReplicaReport:
    """The bucket's replica in `config_dir`, refreshed here or, given a Dask `client`, by its workers.
    Raises ValueError when the bucket cannot be read or holds no objects Lakeboard can read; a config
    folder this call made is then removed (an empty bucket leaves nothing behind)."""
    new = not config_dir.exists()
    try:
        if client is not None:
            report = _on_dask(bucket, config_dir, options, client, progress)
        else:
            report = refresh_replica(bucket, options, config_dir / REPLICA_FOLDER, progress=progress)
        if not report.manifest.objects:
            skipped = len(report.manifest.skipped)
            raise ValueError(f"the lake {bucket.url} holds no objects Lakeboard can read"
                             + (f" ({skipped} skipped)" if skipped else ""))
    except Exception as exc:  # noqa: BLE001 - each store raises its own errors (botocore, google, azure)
        if new:
            shutil.rmtree(config_dir, ignore_errors=True)
        if isinstance(exc, ValueError):
            raise
        raise ValueError(f"cannot read {bucket.url}: {type(exc).__name__}: {str(exc)[:500]}") from exc
    return report


def _on_dask(bucket: ObjectLake, config_dir: Path, options: dict[str, object], client,
             progress: Callable[[int, str], None] | None) -> ReplicaReport:
    """The replica refreshed by Dask workers, which read and profile each batch where they run; their
    profiles go into the profile cache as each batch arrives, so profiling here finds them done."""
    from lakeboard.servers.object_lakes.dask_batches import BATCH, dask_batches
    from lakeboard.servers.profiling.cache import ProfileCache
    from lakeboard.servers.profiling.worker_pool import DEFAULT_TIMEOUT_S

    with ProfileCache(config_dir / "profiles") as cache:
        cache.ensure()
        with cache.batch():
            return refresh_replica(
                bucket, options, config_dir / REPLICA_FOLDER,
                runner=dask_batches(client, bucket, options, SAMPLE_BYTES, DEFAULT_TIMEOUT_S),
                on_profile=lambda profile, stat: cache.put(profile, stat=stat), progress=progress, batch=BATCH,
            )
