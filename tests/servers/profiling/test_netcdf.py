"""Classic NetCDF via scipy: dimensions, variables with units, first values, a loader that reads them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.io import netcdf_file

from lakeboard.servers.profiling import profile_file
from lakeboard.servers.relevance.search_fields import profile_texts
from tests.servers.profiling.loading import profile_and_load


def _netcdf(path: Path, version: int = 1) -> None:
    with netcdf_file(path, "w", version=version) as f:
        f.title = b"Daily river discharge"
        f.createDimension("time", None)
        f.createDimension("station", 3)
        t = f.createVariable("time", "i4", ("time",))
        t[:] = np.arange(4)
        t.units = b"days since 2020-01-01"
        q = f.createVariable("discharge", "f8", ("time", "station"))
        q[:] = np.arange(12, dtype=float).reshape(4, 3)
        q.units = b"m3 s-1"
        q.long_name = b"river discharge at the gauge"


@pytest.mark.parametrize("version", [1, 2])
def test_variables_attributes_and_loader(tmp_path: Path, version: int) -> None:
    f = tmp_path / "rivers.nc"
    _netcdf(f, version)
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.format == "netcdf" and prof.kind == "array"
    assert prof.attributes["title"] == "Daily river discharge"
    assert prof.attributes["dimensions"] == "time=unlimited, station=3"
    arrays = {a.name: a for a in prof.arrays}
    q = arrays["discharge"]
    assert q.shape == [4, 3] and q.attributes["units"] == "m3 s-1" and q.attributes["dimensions"] == "time, station"
    assert q.sample == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    assert "Daily river discharge" in prof.summary and "discharge [m3 s-1]" in prof.summary
    assert ns["data"]["discharge"].shape == (4, 3)
    assert prof.loader_check is not None and prof.loader_check.verified, prof.loader_check
    assert "river discharge at the gauge" in profile_texts(prof).notes


def test_netcdf_named_cdf_is_read_as_netcdf(tmp_path: Path) -> None:
    f = tmp_path / "rivers.cdf"
    _netcdf(f)
    prof = profile_file(f, tmp_path)
    assert prof.status == "ok" and prof.format == "netcdf"
    assert "content is a NetCDF file" in prof.attributes["note"]


def test_packed_values_unpacked_and_fill_values_nan(tmp_path: Path) -> None:
    """CF packing: int16 values with scale_factor and add_offset, _FillValue in packed units."""
    f = tmp_path / "sst.nc"
    with netcdf_file(f, "w") as nc:
        nc.createDimension("time", 3)
        v = nc.createVariable("sst", "h", ("time",))
        v[:] = np.array([100, -32767, 250], dtype="h")
        v._FillValue, v.scale_factor, v.add_offset = np.int16(-32767), 0.01, 20.0
        t = nc.createVariable("time", "i4", ("time",))
        t[:] = np.arange(3)
    prof, ns = profile_and_load(f)
    assert prof.loader_check.verified
    assert np.allclose(ns["data"]["sst"], [21.0, np.nan, 22.5], equal_nan=True)
    assert ns["data"]["time"].tolist() == [0, 1, 2]
