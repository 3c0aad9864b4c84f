"""HDF5 and NetCDF-4 via h5py: datasets in groups, attributes, first values, a loader that reads them."""

from __future__ import annotations

import json
from pathlib import Path

import h5py
import numpy as np

from lakeboard.servers.profiling import profile_file
from lakeboard.servers.relevance.search_fields import profile_texts
from tests.servers.profiling.loading import profile_and_load


def _hdf5(path: Path, **root_attrs: str) -> None:
    with h5py.File(path, "w") as f:
        f.attrs.update(root_attrs)
        g = f.create_group("surface")
        t = g.create_dataset("temperature", data=np.arange(24, dtype=np.float32).reshape(2, 12) + 270)
        t.attrs["units"] = "K"
        t.attrs["long_name"] = "air temperature at two metres"
        f.create_dataset("station", data=np.array([b"north", b"south"]))
        f.create_dataset("readings", data=np.array([(1, 2.5), (2, 3.5)], dtype=[("hour", "i4"), ("wind_speed", "f8")]))


def test_groups_datasets_attributes_and_loader(tmp_path: Path) -> None:
    f = tmp_path / "climate.h5"
    _hdf5(f, title="Hourly station climate")
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.format == "hdf5" and prof.kind == "array"
    assert prof.attributes["title"] == "Hourly station climate"
    arrays = {a.name: a for a in prof.arrays}
    assert set(arrays) == {"surface/temperature", "station", "readings"}
    temp = arrays["surface/temperature"]
    assert temp.shape == [2, 12] and temp.attributes["units"] == "K"
    assert temp.sample == [270.0, 271.0, 272.0, 273.0, 274.0, 275.0, 276.0, 277.0]  # a slab of the first row
    assert arrays["station"].sample == ["north", "south"]
    assert arrays["readings"].attributes["fields"] == "hour, wind_speed"
    assert "Hourly station climate" in prof.summary and "surface/temperature [K]" in prof.summary
    assert ns["data"]["surface/temperature"].shape == (2, 12)
    assert prof.loader_check is not None and prof.loader_check.verified, prof.loader_check


def test_search_fields_read_long_names_and_compound_fields(tmp_path: Path) -> None:
    f = tmp_path / "climate.h5"
    _hdf5(f)
    texts = profile_texts(profile_file(f, tmp_path))
    assert "air temperature at two metres" in texts.notes
    assert {"hour", "wind_speed", "surface/temperature"} <= set(texts.columns)


def test_netcdf4_is_named_so_and_nc_is_not_a_mismatch(tmp_path: Path) -> None:
    f = tmp_path / "ocean.nc"
    _hdf5(f, _NCProperties="version=2,netcdf=4.9.2", title="Sea state")
    prof = profile_file(f, tmp_path)
    assert prof.status == "ok" and prof.format == "hdf5"
    assert prof.summary.startswith("NetCDF-4 file (Sea state)") and prof.attributes["layout"] == "NetCDF-4"
    assert "note" not in prof.attributes and "_NCProperties" not in prof.attributes


def test_links_to_other_files_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.h5"
    with h5py.File(secret, "w") as s:
        s.create_dataset("secret", data=np.arange(5))
    lake = tmp_path / "lake"
    lake.mkdir()
    f = lake / "links.h5"
    with h5py.File(f, "w") as h:
        h.create_dataset("own", data=np.arange(3))
        h["elsewhere"] = h5py.ExternalLink(str(secret), "/secret")
        h["alias"] = h5py.SoftLink("/own")
        layout = h5py.VirtualLayout(shape=(5,), dtype="i8")
        layout[:] = h5py.VirtualSource(str(secret), "secret", shape=(5,))
        h.create_virtual_dataset("mapped", layout)
    prof, ns = profile_and_load(f, lake)
    arrays = {a.name: a for a in prof.arrays}
    assert set(arrays) == {"own", "mapped"}  # neither link is walked
    assert arrays["mapped"].sample == [] and "other files" in arrays["mapped"].attributes["note"]
    assert set(ns["data"]) == {"own"}  # the loader reads only the file's own data
    assert prof.loader_check is not None and prof.loader_check.verified, prof.loader_check


def test_a_group_linked_into_itself_is_walked_once(tmp_path: Path) -> None:
    f = tmp_path / "loop.h5"
    with h5py.File(f, "w") as h:
        g = h.create_group("g")
        g.create_dataset("x", data=np.arange(3))
        g["again"] = g  # a hard link: the group holds itself
    prof = profile_file(f, tmp_path)
    assert prof.status == "ok" and [a.name for a in prof.arrays] == ["g/x"]


def test_a_file_with_no_datasets_is_empty(tmp_path: Path) -> None:
    f = tmp_path / "empty.h5"
    with h5py.File(f, "w") as h:
        h.create_group("nothing")
    prof = profile_file(f, tmp_path)
    assert prof.status == "empty" and "no datasets" in prof.reason


def test_hostile_dataset_names_stay_data(tmp_path: Path) -> None:
    """Dataset and attribute names a hostile file holds reach the loader as literals and comments only."""
    import subprocess
    import sys

    from tests.support.hostile_names import MARKER, hostile_names

    names = [n for n in hostile_names(12, seed=3) if "/" not in n and n not in (".", "")]
    f = tmp_path / "hostile.h5"
    with h5py.File(f, "w") as h:
        for n in names:
            ds = h.create_dataset(n, data=np.arange(2))
            ds.attrs["long_name"] = n
    prof = profile_file(f, tmp_path)
    assert sorted(a.name for a in prof.arrays) == sorted(names)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    run = "import json, sys; ns = {}; exec(sys.stdin.read(), ns); print(json.dumps(sorted(ns['data'])))"
    done = subprocess.run([sys.executable, "-c", run], input=prof.loader, cwd=scratch, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == sorted(names) and not (scratch / MARKER).exists()


def test_unusual_datasets_and_attributes(tmp_path: Path) -> None:
    """Scalars, empty and null dataspaces, variable-length strings, references and bytes that are
    not UTF-8: one profile, every readable dataset loaded, attributes readable as text."""
    f = tmp_path / "unusual.h5"
    with h5py.File(f, "w") as h:
        h.create_dataset("scalar", data=3.5)
        h.create_dataset("no_rows", shape=(0, 3), dtype="f4")
        h.create_dataset("null", data=h5py.Empty("f"))
        h.create_dataset("names", data=["a", "bb"], dtype=h5py.string_dtype())
        h.create_dataset("refs", data=[h["scalar"].ref], dtype=h5py.ref_dtype)
        h.attrs["empty"] = h5py.Empty("f")
        h.attrs["ref"] = h["scalar"].ref
        h.attrs["latin1"] = b"caf\xe9"
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.loader_check is not None and prof.loader_check.verified, prof.loader_check
    arrays = {a.name: a for a in prof.arrays}
    assert arrays["scalar"].sample == [3.5] and arrays["names"].sample == ["a", "bb"]
    assert "empty dataspace" in arrays["null"].attributes["note"] and "null" not in ns["data"]
    assert set(prof.attributes) == {"latin1"} and prof.attributes["latin1"] == "caf\ufffd"
    prof.model_dump_json()  # no lone surrogate in the profile: it serialises


def test_many_datasets_are_counted_up_to_a_bound(tmp_path: Path, monkeypatch) -> None:
    from lakeboard.servers.profiling import hdf5

    monkeypatch.setattr(hdf5, "MAX_ARRAYS", 3)
    monkeypatch.setattr(hdf5, "MAX_COUNTED", 10)
    f = tmp_path / "many.h5"
    with h5py.File(f, "w") as h:
        for i in range(25):
            h.create_dataset(f"d{i:02d}", data=np.arange(2))
    prof = profile_file(f, tmp_path)
    assert [a.name for a in prof.arrays] == ["d00", "d01", "d02"]
    assert prof.attributes["datasets"] == "at least 10 (first 3 profiled)" and "at least 10 datasets" in prof.summary


def test_declared_fill_values_are_nan_and_packed_values_unpacked(tmp_path: Path) -> None:
    """CF packing (int16 with scale_factor and add_offset, _FillValue in packed units) and an ISTP
    FILLVAL on a float32 dataset, compared in the dataset's own type; a string fill is no number."""
    f = tmp_path / "sst.h5"
    with h5py.File(f, "w") as h:
        sst = h.create_dataset("sst", data=np.array([100, -32767, 250], dtype=np.int16))
        sst.attrs.update({"_FillValue": np.int16(-32767), "scale_factor": 0.01, "add_offset": 20.0})
        speed = h.create_dataset("speed", data=np.array([4.5, 9999.99, 6.0], dtype=np.float32))
        speed.attrs["FILLVAL"] = 9999.99  # float64, as written beside float32 data
        label = h.create_dataset("count", data=np.array([1, 2, 3], dtype=np.int32))
        label.attrs["missing_value"] = "N/A"
    prof, ns = profile_and_load(f)
    assert prof.loader_check.verified
    data = ns["data"]
    assert np.allclose(data["sst"], [21.0, np.nan, 22.5], equal_nan=True)
    assert np.isnan(data["speed"]).tolist() == [False, True, False] and data["speed"][0] == 4.5
    assert data["count"].tolist() == [1, 2, 3] and data["count"].dtype == np.int32
