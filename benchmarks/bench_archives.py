"""Profiling the tables inside a zip and a tar.gz archive, against profiling the same tables unpacked.

    python benchmarks/bench_archives.py [--members 8] [--mb 30] [--runs 3] [--work DIR]

Writes `--members` CSV files of about `--mb` MB each (numbers, dates and text), a deflated zip
and a tar.gz of them. Then, each in a fresh process, `--runs` times: each archive profiled, and the
CSV files profiled one after another. Prints the medians of the seconds each took (loader checks included)
and of the resident memory profiling added beyond the imports (ru_maxrss after, less before).
The archive pays for unpacking each member into a temporary file; the ratio says what that costs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
import pandas as pd
pd.DataFrame({"a": ["x"]}).astype("string")  # pandas' string machinery, as a profiling worker has it
from lakeboard.servers.profiling import profile_file
def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
before = rss_mb()
paths = [Path(p) for p in sys.argv[1:]]
t0 = time.perf_counter()
profiles = [profile_file(p, p.parent) for p in paths]
print(json.dumps({"seconds": time.perf_counter() - t0, "added_mb": rss_mb() - before,
                  "tables": sum(len(p.tables) for p in profiles),
                  "verified": sum(bool(p.loader_check and p.loader_check.verified) for p in profiles)}))
"""


def write_lake(folder: Path, members: int, mb: int) -> tuple[list[Path], list[Path]]:
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    rows = mb * 2**20 // 40  # about 40 bytes a row
    csvs = []
    for i in range(members):
        frame = pd.DataFrame({
            "date": pd.date_range("2000-01-01", periods=rows, freq="min").strftime("%Y-%m-%d %H:%M"),
            "station": rng.choice(["north", "south", "east", "west"], rows),
            "value": rng.random(rows).round(4),
        })
        path = folder / "plain" / f"part_{i}.csv"
        path.parent.mkdir(exist_ok=True)
        frame.to_csv(path, index=False)
        csvs.append(path)
    archive = folder / "zipped" / "parts.zip"
    archive.parent.mkdir(exist_ok=True)
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        for path in csvs:
            z.write(path, f"parts/{path.name}")
    tar = folder / "zipped" / "parts.tar.gz"
    with tarfile.open(tar, "w:gz") as t:
        for path in csvs:
            t.add(path, f"parts/{path.name}")
    return [archive, tar], csvs


def run(paths: list[Path]) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, *map(str, paths)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--members", type=int, default=8)
    ap.add_argument("--mb", type=int, default=30)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--work", type=Path, default=None)
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="lakeboard-bench-archives-"))
    work.mkdir(parents=True, exist_ok=True)
    archives, csvs = write_lake(work, args.members, args.mb)
    unpacked = sum(p.stat().st_size for p in csvs)
    print(f"{args.members} CSV files, {unpacked / 2**20:,.0f} MB; "
          + ", ".join(f"{a.name} {a.stat().st_size / 2**20:,.0f} MB" for a in archives))
    results = {"unpacked": [run(csvs) for _ in range(args.runs)]}
    for a in archives:
        results[a.name] = [run([a]) for _ in range(args.runs)]
    for name, rs in results.items():
        print(f"  {name:12s} median {statistics.median(r['seconds'] for r in rs):6.2f} s, "
              f"memory added {statistics.median(r['added_mb'] for r in rs):6.0f} MB, "
              f"{rs[0]['tables']} tables, {rs[0]['verified']} loaders verified")
    plain = statistics.median(r["seconds"] for r in results["unpacked"])
    for a in archives:
        print(f"  {a.name} / unpacked time: {statistics.median(r['seconds'] for r in results[a.name]) / plain:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
