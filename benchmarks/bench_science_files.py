"""Profiling large scientific files: HDF5, classic NetCDF and FITS are read in slabs, never whole.

    python benchmarks/bench_science_files.py [--mb 400] [--work DIR]

Writes one file of each kind of about `--mb` megabytes (random float64 data; the FITS file holds
an image and a 2M-row table), then profiles each in a fresh process and prints the seconds it
took and the resident memory it added beyond the readers' imports (ru_maxrss after profiling,
less ru_maxrss after importing them). Target: well under the file's size. A file under the
loader check's size bound (256 MB: the FITS file here) also has its loader run, in a child
process: its time counts in the seconds, its memory is the child's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
import numpy as np, pandas as pd, h5py, scipy.io, astropy.io.fits, astropy.table
pd.DataFrame({"a": ["x"]}).astype("string")  # pandas' string machinery, as a profiling worker has it
from lakeboard.servers.profiling import profile_file
def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
before = rss_mb()
path = Path(sys.argv[1])
t0 = time.perf_counter()
p = profile_file(path, path.parent)
print(json.dumps({"status": p.status, "seconds": time.perf_counter() - t0, "added_mb": rss_mb() - before,
                  "summary": p.summary[:90]}))
"""


def write_files(folder: Path, mb: int) -> list[Path]:
    import h5py
    import numpy as np
    from astropy.io import fits
    from scipy.io import netcdf_file

    rows = mb * 2**20 // 8 // 1000  # rows of 1000 float64 values
    block = 2000
    h5, nc, fit = folder / "big.h5", folder / "big.nc", folder / "big.fits"
    rng = np.random.default_rng(0)
    with h5py.File(h5, "w") as f:
        d = f.create_dataset("x", shape=(rows, 1000), dtype="f8")
        for i in range(0, rows, block):
            d[i:i + block] = rng.random((min(block, rows - i), 1000))
    with netcdf_file(nc, "w", version=2) as f:
        f.createDimension("t", rows)
        f.createDimension("s", 1000)
        v = f.createVariable("x", "f8", ("t", "s"))
        for i in range(0, rows, block):
            v[i:i + block] = rng.random((min(block, rows - i), 1000))
    n = 2_000_000
    table = fits.BinTableHDU.from_columns([fits.Column(name="A", format="D", array=rng.random(n)),
                                           fits.Column(name="B", format="D", unit="deg", array=rng.random(n)),
                                           fits.Column(name="NAME", format="8A", array=np.array(["abc"] * n))])
    fits.HDUList([fits.PrimaryHDU(rng.random((rows // 2, 1000))), table]).writeto(fit, overwrite=True)
    return [h5, nc, fit]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mb", type=int, default=400)
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "lakeboard-science-files")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    files = write_files(args.work, args.mb)
    print(f"{'file':10s} {'size MB':>8s} {'seconds':>8s} {'added MB':>9s}  status, summary")
    for path in files:
        done = subprocess.run([sys.executable, "-P", "-c", CHILD, str(path)], capture_output=True, text=True, check=True)
        r = json.loads(done.stdout)
        print(f"{path.name:10s} {path.stat().st_size / 2**20:8.0f} {r['seconds']:8.2f} {r['added_mb']:9.1f}  "
              f"{r['status']}, {r['summary']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
