"""The local mirror of a bucket lake, against a real S3 API on 127.0.0.1 (moto's server)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from lakeboard.common.object_mirror import ObjectMirror, mirror_bytes
from lakeboard.common.object_stores import lake_url
from tests.support.s3_server import ACCESS_KEY, SECRET_KEY, S3Server, s3_server


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    with s3_server() as server:
        yield server


def mirror(s3: S3Server, folder: Path, max_bytes: int = 1 << 30) -> ObjectMirror:
    options = {"endpoint_url": s3.endpoint, "key": ACCESS_KEY, "secret": SECRET_KEY}
    return ObjectMirror(lake_url("s3://mirror-bucket/lake"), folder / "mirror" / "objects", options, max_bytes)


def test_named_files_are_fetched_whole_once_per_version_and_the_oldest_go_past_the_bound(s3: S3Server, tmp_path: Path):
    fs = s3.filesystem()
    fs.mkdir("mirror-bucket")
    big = os.urandom(3 << 20)  # bigger than a sample: the mirror holds whole files
    fs.pipe({"mirror-bucket/lake/big/data.bin": big, "mirror-bucket/lake/a.csv": b"a\n1\n",
             "mirror-bucket/lake/b.csv": b"b\n2\n"})
    m = mirror(s3, tmp_path)
    first = m.fill(["big/data.bin", "a.csv"])
    assert first.fetched == {"big/data.bin": len(big), "a.csv": 4} and not first.failed
    assert (m.folder / "big" / "data.bin").read_bytes() == big
    again = m.fill(["a.csv"])
    assert again.fetched == {} and again.kept == ["a.csv"], "an unchanged object is not fetched again"
    fs.pipe("mirror-bucket/lake/a.csv", b"a\n1\n2\n")
    assert m.fill(["a.csv"]).fetched == {"a.csv": 6} and (m.folder / "a.csv").read_bytes() == b"a\n1\n2\n"

    small = mirror(s3, tmp_path, max_bytes=len(big) + 8)
    os.utime(m.folder / "big" / "data.bin", ns=(1, 1))  # used longest ago
    report = small.fill(["b.csv"])
    assert report.evicted == ["big/data.bin"] and (m.folder / "b.csv").is_file() and (m.folder / "a.csv").is_file()
    for path in [tmp_path / "mirror", *(tmp_path / "mirror").rglob("*")]:
        assert os.stat(path).st_mode & 0o077 == 0, path


def test_what_cannot_be_mirrored_is_said_and_nothing_leaves_the_mirror(s3: S3Server, tmp_path: Path):
    fs = s3.filesystem()
    fs.mkdir("mirror-bucket", exist_ok=True) if not fs.exists("mirror-bucket") else None
    fs.pipe("mirror-bucket/lake/huge.bin", b"x" * 4096)
    report = mirror(s3, tmp_path, max_bytes=1024).fill(["../../escape.csv", "gone.csv", "huge.bin"])
    assert "'..'" in report.failed["../../escape.csv"]
    assert "could not be fetched" in report.failed["gone.csv"]
    assert "more than the mirror may hold" in report.failed["huge.bin"] and "LAKEBOARD_MIRROR_GB" in report.failed["huge.bin"]
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert [p.name for p in written] == ["manifest.json"]


def test_the_bound_comes_from_the_environment():
    assert mirror_bytes({"LAKEBOARD_MIRROR_GB": "0.5"}) == 1 << 29
    assert mirror_bytes({}) == 10 << 30 and mirror_bytes({"LAKEBOARD_MIRROR_GB": "lots"}) == 10 << 30
