"""The sample replica of a bucket lake, against a real S3 API on 127.0.0.1 (moto's server)."""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lakeboard.common.object_stores import lake_url
from lakeboard.servers.object_lakes.replica import MANIFEST, SAMPLE_BYTES, TAIL_BYTES, refresh_replica
from tests.support.s3_server import ACCESS_KEY, SECRET_KEY, S3Server


def options(s3: S3Server) -> dict[str, object]:
    return {"endpoint_url": s3.endpoint, "key": ACCESS_KEY, "secret": SECRET_KEY}


def big_csv() -> bytes:
    return b"id,value,label\n" + b"".join(f"{i},{i * 0.5},row{i % 97}\n".encode() for i in range(200_000))


def big_parquet() -> bytes:
    n = 300_000
    rng = np.random.default_rng(0)
    buf = io.BytesIO()
    pd.DataFrame({"id": np.arange(n), "x": rng.normal(size=n)}).to_parquet(buf, row_group_size=50_000)
    return buf.getvalue()


def test_each_object_is_read_once_per_version_and_never_beyond_the_budget(s3: S3Server, tmp_path: Path) -> None:
    fs = s3.filesystem()
    fs.mkdir("budget")
    small, csv, parquet = b"a,b\n1,2\n", big_csv(), big_parquet()
    assert len(csv) > 3 * SAMPLE_BYTES and len(parquet) > 3 * SAMPLE_BYTES
    fs.pipe({"budget/lake/small.csv": small, "budget/lake/big/rows.csv": csv, "budget/lake/big/table.parquet": parquet})
    lake = lake_url("s3://budget/lake")
    folder = tmp_path / "replica"

    report = refresh_replica(lake, options(s3), folder)
    objects = report.manifest.objects
    assert set(objects) == {"small.csv", "big/rows.csv", "big/table.parquet"}
    assert sorted(report.fetched) == sorted(o.bytes_read for o in objects.values())
    assert all(o.bytes_read <= SAMPLE_BYTES for o in objects.values()), objects
    assert objects["small.csv"].whole and (report.folder / "small.csv").read_bytes() == small
    head = (report.folder / "big" / "rows.csv").read_bytes()
    assert not objects["big/rows.csv"].whole and csv.startswith(head) and head.endswith(b"\n"), "a head cut at a line end"
    sparse = (report.folder / "big" / "table.parquet").read_bytes()
    assert len(sparse) == len(parquet), "head and tail at their place in a file of the object's size"
    assert sparse[-TAIL_BYTES:] == parquet[-TAIL_BYTES:] and sparse[:1000] == parquet[:1000]
    assert objects["big/table.parquet"].bytes_read == SAMPLE_BYTES

    mtimes = {p: p.stat().st_mtime_ns for p in report.folder.rglob("*") if p.is_file()}
    again = refresh_replica(lake, options(s3), folder)
    assert again.fetched == [], "nothing changed: nothing is read"
    assert {p: p.stat().st_mtime_ns for p in again.folder.rglob("*") if p.is_file()} == mtimes
    assert "none changed" in again.summary

    fs.pipe("budget/lake/small.csv", b"a,b\n3,4\n5,6\n")
    fs.rm("budget/lake/big/rows.csv")
    third = refresh_replica(lake, options(s3), folder)
    assert third.fetched == [len(b"a,b\n3,4\n5,6\n")], "only the changed object is read again"
    assert (third.folder / "small.csv").read_bytes() == b"a,b\n3,4\n5,6\n"
    assert not (third.folder / "big" / "rows.csv").exists(), "an object that left the lake leaves the replica"
    assert set(third.manifest.objects) == {"small.csv", "big/table.parquet"}


def test_hostile_keys_stay_inside_the_replica_or_are_skipped_with_the_reason(s3: S3Server, tmp_path: Path) -> None:
    fs = s3.filesystem()
    fs.mkdir("hostile")
    keys = {
        "ok.csv": "written",
        "a/../../escape.csv": "'..'",
        "./dot.csv": "'.'",
        "sub//double.csv": "empty",
        "x": "written",
        "x/y.csv": "as a folder",
        "weird $(touch pwned);`.csv": "written",
        "p" * 300 + ".csv": "longer than a file name",
    }
    fs.pipe({f"hostile/lake/{k}": b"a\n1\n" for k in keys})
    report = refresh_replica(lake_url("s3://hostile/lake"), options(s3), tmp_path / "replica")
    for key, expected in keys.items():
        if expected == "written":
            assert key in report.manifest.objects and (report.folder / key).is_file(), key
        else:
            assert expected in report.manifest.skipped[key], (key, report.manifest.skipped)
    written = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()}
    assert written == {f"replica/objects/{k}" for k in report.manifest.objects} | {f"replica/{MANIFEST}"}
    assert not Path("pwned").exists() and not (tmp_path / "pwned").exists()


def test_a_replica_of_another_lake_is_refused_and_a_missing_bucket_raises(s3: S3Server, tmp_path: Path) -> None:
    fs = s3.filesystem()
    fs.mkdir("first")
    fs.pipe("first/lake/a.csv", b"a\n1\n")
    folder = tmp_path / "replica"
    refresh_replica(lake_url("s3://first/lake"), options(s3), folder)
    with pytest.raises(ValueError, match="another lake"):
        refresh_replica(lake_url("s3://first/other"), options(s3), folder)
    with pytest.raises(OSError):
        refresh_replica(lake_url("s3://no-such-bucket/lake"), options(s3), tmp_path / "missing")


def test_the_replica_is_owner_only(s3: S3Server, tmp_path: Path) -> None:
    fs = s3.filesystem()
    fs.mkdir("private")
    fs.pipe("private/lake/a/b.csv", b"a\n1\n")
    report = refresh_replica(lake_url("s3://private/lake"), options(s3), tmp_path / "replica")
    for path in [tmp_path / "replica", *(tmp_path / "replica").rglob("*")]:
        assert os.stat(path).st_mode & 0o077 == 0, path
    assert report.manifest.objects["a/b.csv"].whole
