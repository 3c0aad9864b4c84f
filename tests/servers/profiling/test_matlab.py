"""MATLAB .mat files: variables listed without loading them, small ones sampled, 7.3 read as HDF5."""

from __future__ import annotations

from pathlib import Path

import h5py
import numpy as np
from scipy.io import savemat

from tests.servers.profiling.loading import profile_and_load


def test_variables_are_listed_and_the_loader_returns_them(tmp_path: Path) -> None:
    f = tmp_path / "ecg_record.mat"
    savemat(f, {"signal": np.arange(5000, dtype=float).reshape(1000, 5) / 10, "fs": 250.0, "label": "normal sinus"})
    prof, ns = profile_and_load(f)
    assert prof.format == "mat" and prof.status == "ok" and prof.kind == "array"
    arrays = {a.name: a for a in prof.arrays}
    assert arrays["signal"].shape == [1000, 5] and arrays["signal"].dtype == "double"
    assert arrays["signal"].sample[:3] == [0.0, 0.1, 0.2] and arrays["fs"].sample == [250.0]
    assert "MATLAB file with 3 variables: signal (1000, 5) double" in prof.summary
    data = ns["data"]
    assert set(data) == {"signal", "fs", "label"} and data["signal"].shape == (1000, 5) and data["label"] == "normal sinus"
    assert prof.loader_check.verified


def test_a_version_7_3_file_is_read_as_hdf5_and_a_damaged_one_says_so(tmp_path: Path) -> None:
    f = tmp_path / "run.mat"
    with h5py.File(f, "w", userblock_size=512) as h:
        h["speed"] = np.linspace(0, 1, 50)
    with open(f, "r+b") as raw:  # MATLAB writes its header into the user block: text, then version 0x0200
        text = b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Mon Jan  1 00:00:00 2024 HDF5 schema 1.00 ."
        raw.write(text.ljust(116) + b"\x00" * 8 + b"\x00\x02IM")
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.format == "hdf5" and prof.attributes["matlab"] == "version 7.3 (HDF5)"
    assert [a.name for a in prof.arrays] == ["speed"] and ns["data"]["speed"].shape == (50,)
    bad = tmp_path / "bad.mat"
    bad.write_bytes(b"MATLAB 5.0 MAT-file" + b"\x00" * 40)
    prof, _ = profile_and_load(bad)
    assert prof.status == "unreadable" and "not a MATLAB file scipy can read" in prof.reason
