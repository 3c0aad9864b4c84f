"""Loader checks on the real lakes: the share of files whose generated loader is verified.

    python -P benchmarks/bench_loader_checks.py [--lake NAME=DIR ...] [--json]

Profiles every file of each lake with `profile_file` (which runs the file's loader on it and
compares what it returns with the profile, as `lakeboard index` does) and prints, per lake:
files, files that are data, the share of their loaders verified, what the check cost (median
and total seconds), and each unverified file with its reasons. Default lakes: the three
KramaBench dev lakes and DABench under ../shared.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared"
LAKES = {
    "archeology": SHARED / "kramabench" / "archeology" / "input",
    "legal": SHARED / "kramabench" / "legal" / "input",
    "wildfire": SHARED / "kramabench" / "wildfire" / "input",
    "dabench": SHARED / "dabench" / "input",
}


def measure(root: Path) -> dict:
    from lakeboard.servers.profiling import iter_lake_files, profile_file

    t0 = time.perf_counter()
    profiles = [profile_file(p, root) for p in iter_lake_files(root)]
    data = [p for p in profiles if p.ok]
    checks = [p.loader_check for p in data if p.loader_check is not None]
    seconds = [c.seconds for c in checks if c.seconds is not None]
    return {
        "files": len(profiles),
        "data": len(data),
        "checked": len(checks),
        "verified": sum(c.verified for c in checks),
        "check_median_s": round(statistics.median(seconds), 4) if seconds else None,
        "check_total_s": round(sum(seconds), 2),
        "profile_total_s": round(time.perf_counter() - t0, 2),
        "unverified": {p.path: (p.loader_check.reasons if p.loader_check else ["not checked"])
                       for p in data if p.loader_check is None or not p.loader_check.verified},
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lake", action="append", default=[], metavar="NAME=DIR", help="a lake to measure (repeatable)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    lakes = dict(item.split("=", 1) for item in args.lake) if args.lake else LAKES
    results = {}
    for name, folder in lakes.items():
        root = Path(folder).resolve()
        if not root.is_dir():
            print(f"{name}: {root} not found, skipped", file=sys.stderr)
            continue
        results[name] = measure(root)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{'lake':12} {'files':>5} {'data':>5} {'verified':>9} {'share':>6} {'check p50 s':>11} {'check total s':>13} {'profile+check s':>15}")
    for name, r in results.items():
        share = r["verified"] / r["data"] if r["data"] else 1.0
        print(f"{name:12} {r['files']:5} {r['data']:5} {r['verified']:9} {share:6.1%} {r['check_median_s'] or 0:11.3f} "
              f"{r['check_total_s']:13.2f} {r['profile_total_s']:15.2f}")
    for name, r in results.items():
        if r["unverified"]:
            print(f"\n{name}: {len(r['unverified'])} unverified")
            for path, reasons in r["unverified"].items():
                print(f"  {path}: {'; '.join(reasons)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
