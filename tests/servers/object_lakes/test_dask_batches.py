"""Reading and profiling a bucket lake on a real Dask LocalCluster, with a worker killed on the way."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from lakeboard.common.object_stores import lake_url
from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.object_lakes.dask_batches import dask_batches
from lakeboard.servers.object_lakes.replica import SAMPLE_BYTES, refresh_replica
from lakeboard.servers.profiling.cache import ProfileCache
from tests.support.s3_server import ACCESS_KEY, SECRET_KEY, S3Server

N_OBJECTS = 24


@pytest.fixture(scope="module")
def client() -> Iterator:
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as c:
        yield c
        folders = list(c.run(lambda dask_worker: dask_worker.local_directory).values())
    # the batches' sample folders lived in the workers' own folders, which Dask removed with them
    assert folders and not any(Path(f).exists() for f in folders)


@pytest.fixture(scope="module")
def bucket(s3: S3Server) -> str:
    fs = s3.filesystem()
    fs.mkdir("dask-bucket")
    fs.pipe({f"dask-bucket/lake/part{i:02d}/table.csv": f"id,value\n{i},{i * 2}\n{i + 1},{i * 3}\n".encode()
             for i in range(N_OBJECTS)})
    return "s3://dask-bucket/lake"


def run(s3: S3Server, client, url: str, folder: Path, on_profile, batch: int = 4):
    options = {"endpoint_url": s3.endpoint, "key": ACCESS_KEY, "secret": SECRET_KEY}
    lake = lake_url(url)
    return refresh_replica(lake, options, folder, runner=dask_batches(client, lake, options, SAMPLE_BYTES, 60.0),
                           on_profile=on_profile, batch=batch)


def test_workers_read_and_profile_each_batch_and_the_profiles_are_cached_as_they_arrive(s3, client, bucket, tmp_path):
    profiles: dict[str, FileProfile] = {}
    with ProfileCache(tmp_path / "profiles") as cache:
        def keep(profile: FileProfile, stat: tuple[int, int]) -> None:
            profiles[profile.path] = profile
            cache.put(profile, stat=stat)

        report = run(s3, client, bucket, tmp_path / "replica", keep)
    assert set(profiles) == set(report.manifest.objects) and len(profiles) == N_OBJECTS
    batch_folders = client.run(lambda dask_worker: [p.name for p in Path(dask_worker.local_directory).glob("lakeboard-batch-*")])
    assert any(batch_folders.values()), "each worker's samples are kept in its own Dask folder"
    assert all(p.ok and p.tables and p.tables[0].n_rows == 2 for p in profiles.values())
    stats = {rel: ((report.folder / rel).stat().st_size, (report.folder / rel).stat().st_mtime_ns) for rel in profiles}
    with ProfileCache(tmp_path / "profiles") as cache:
        assert set(cache.fresh(stats)) == set(profiles), "profiling the replica afterwards finds every file done"


def test_a_worker_killed_mid_index_loses_nothing(s3, client, bucket, tmp_path):
    pids = list(client.run(os.getpid).values())
    profiles: list[str] = []
    killed: list[int] = []

    def keep(profile: FileProfile, stat: tuple[int, int]) -> None:
        profiles.append(profile.path)
        if not killed:  # the first batch is in: kill a worker while the others run
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])

    report = run(s3, client, bucket, tmp_path / "replica", keep, batch=2)
    assert killed and sorted(profiles) == sorted(report.manifest.objects) and len(set(profiles)) == N_OBJECTS
    assert not report.manifest.skipped


def test_file_cards_embedded_on_the_workers_equal_those_embedded_here(client):
    import numpy as np

    from lakeboard.common.minilm import available_embedder
    from lakeboard.servers.object_lakes.dask_batches import dask_embedder

    here = available_embedder()
    if here is None:
        pytest.skip("the MiniLM package is not installed here")
    cards = [f"table_{i}.csv: columns id, value, station {i}" for i in range(10)]
    remote = dask_embedder(client, chunk=3)(cards)  # four chunks, gathered in order
    assert remote.shape == (10, 384) and np.allclose(remote, here(cards), atol=1e-5)
    assert dask_embedder(client)([]).shape == (0, 384)
