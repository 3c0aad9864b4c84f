"""Every reader of a binary format, alike: a damaged file is unreadable, with a sentence that
names its format; the same bytes under a wrong extension are read by what they are, and the
mismatch is said."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakeboard.servers.profiling import profile_file
from tests.servers.profiling.test_cdf import _cdf
from tests.servers.profiling.test_fits import _fits
from tests.servers.profiling.test_hdf5 import _hdf5
from tests.servers.profiling.test_netcdf import _netcdf
from tests.servers.profiling.test_statistical_packages import _write

# (a good file's name, its writer, how many of its bytes the damaged copy keeps, the format's
# name in the reason, the format read from the content and the words of the mismatch note)
CASES = [
    ("good.cdf", _cdf, 300, "CDF", "cdf", "content is cdf"),
    ("good.h5", _hdf5, 600, "HDF5", "hdf5", "content is an HDF5 file"),
    ("good.nc", _netcdf, 120, "NetCDF", "netcdf", "content is a NetCDF file"),
    ("good.fits", _fits, 1000, "FITS", "fits", "content is a FITS file"),  # cut before the header's END card
    ("good.sav", _write, 200, "SPSS", "spss", "content is an SPSS data file"),
]


@pytest.mark.parametrize("name, write, keep, said, fmt, note", CASES, ids=[c[0] for c in CASES])
def test_damaged_files_say_why_and_misnamed_ones_are_read_by_their_content(
        tmp_path: Path, name: str, write, keep: int, said: str, fmt: str, note: str) -> None:
    good = tmp_path / name
    write(good)
    bad = tmp_path / f"bad{good.suffix}"
    bad.write_bytes(good.read_bytes()[:keep])
    prof = profile_file(bad, tmp_path)
    assert prof.status == "unreadable" and said in prof.reason
    misnamed = tmp_path / "export.dat"
    misnamed.write_bytes(good.read_bytes())
    prof = profile_file(misnamed, tmp_path)
    assert prof.status == "ok" and prof.format == fmt and note in prof.attributes["note"]
