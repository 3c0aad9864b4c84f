"""NumPy .npy/.npz: keys, shapes, dtypes and first values, without loading whole arrays."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from lakeboard.servers.profiling import profile_file
from tests.servers.profiling.loading import profile_and_load


def test_npy_header_and_sample(tmp_path: Path) -> None:
    f = tmp_path / "grid.npy"
    np.save(f, np.arange(600, dtype=np.float32).reshape(20, 30))
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.kind == "array" and prof.format == "npy"
    (a,) = prof.arrays
    assert a.shape == [20, 30] and a.dtype == "float32" and a.sample[:3] == [0.0, 1.0, 2.0]
    assert ns["data"].shape == (20, 30)


def test_npz_keys(tmp_path: Path) -> None:
    f = tmp_path / "bundle.npz"
    np.savez_compressed(
        f, temperature=np.linspace(0, 1, 1000), station=np.array(["a", "b"]), counts=np.eye(3, dtype=int)
    )
    prof, ns = profile_and_load(f)
    assert {a.name: (a.shape, a.dtype) for a in prof.arrays} == {
        "temperature": ([1000], "float64"),
        "station": ([2], "<U1"),
        "counts": ([3, 3], "int64"),
    }
    assert prof.attributes["compressed"] == "true"
    assert set(ns["data"]) == {"temperature", "station", "counts"}


def test_object_arrays_need_pickle(tmp_path: Path) -> None:
    f = tmp_path / "objects.npy"
    np.save(f, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    prof, ns = profile_and_load(f)
    assert "allow_pickle" in prof.arrays[0].attributes["note"]
    assert "allow_pickle=True" in prof.loader and len(ns["data"]) == 2


def test_truncated_npy_and_damaged_npz(tmp_path: Path) -> None:
    good = tmp_path / "good.npy"
    np.save(good, np.zeros((1000, 100)))
    cut = tmp_path / "cut.npy"
    cut.write_bytes(good.read_bytes()[:5000])
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"PK\x03\x04" + b"\x00" * 100)
    p1, p2 = profile_file(cut, tmp_path), profile_file(bad, tmp_path)
    assert p1.status == "unreadable" and "truncated" in p1.reason
    assert p2.status == "unreadable" and p2.reason
