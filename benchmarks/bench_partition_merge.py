"""The directory partition's last step at scale: merging a lake's folder chunks down to its clusters.

    python benchmarks/bench_partition_merge.py [--sizes 1000 5000 20000 100000] [--scan-up-to 20000]

Chunks are made as a lake's folders are: sorted paths under a few top folders, 1 to 12 files each.
For each number of chunks, prints the median time (of 3) of `_merge_to` (a heap of neighbouring
pairs) and, up to --scan-up-to chunks, of the merge that scans every pair at each step
(tests/support/chunk_merging.py), with their ratio; both give the same clusters.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lakeboard.servers.partitioning.directory import MAX_CLUSTERS, _merge_to  # noqa: E402
from tests.support.chunk_merging import merge_by_scanning  # noqa: E402


def chunks_of(m: int, seed: int = 3) -> list[tuple[str, list[str]]]:
    rng = random.Random(seed)
    return [(f"top{k % 7}/folder{k:06d}", [f"top{k % 7}/folder{k:06d}/f{j}.csv" for j in range(rng.randint(1, 12))])
            for k in range(m)]


def median_s(merge, chunks, runs: int = 3) -> tuple[float, list]:
    times, out = [], None
    for _ in range(runs):
        t = time.perf_counter()
        out = merge(chunks, MAX_CLUSTERS)
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 20000, 100000])
    ap.add_argument("--scan-up-to", type=int, default=20000, help="largest size the quadratic merge runs on")
    args = ap.parse_args()
    print("| chunks | heap | scanning every pair | ratio |")
    print("| --- | --- | --- | --- |")
    for m in args.sizes:
        chunks = chunks_of(m)
        heap_s, heap_out = median_s(_merge_to, chunks)
        if m <= args.scan_up_to:
            scan_s, scan_out = median_s(merge_by_scanning, chunks, runs=1 if m > 5000 else 3)
            assert scan_out == heap_out, "the two merges disagree"
            print(f"| {m:,} | {heap_s * 1000:.1f} ms | {scan_s * 1000:.1f} ms | {scan_s / heap_s:.0f}x |")
        else:
            print(f"| {m:,} | {heap_s * 1000:.1f} ms | not run | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
