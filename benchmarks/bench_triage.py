"""Search agent triage benchmark: time of `triage` on long, pathological questions.

    python benchmarks/bench_triage.py [--sizes 20000,40000,80000] [--repeat 5]

For each size N, two questions of about N characters (one long word, one long run of short
words: the shapes that make a backtracking pattern slow) are triaged `--repeat` times; prints
the median time of the pair and its ratio to the smallest size's time, which should grow about
as N does (linear), not as N squared.

Target (moved here from the test suite): the pair at N = 20,000 in < 1 s.
Prints the figures and PASS/FAIL; exits 1 on FAIL.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lakeboard.servers.search_agent.triage import triage  # noqa: E402

TARGET_PAIR_S = 1.0
TARGET_SIZE = 20_000


def time_pair(size: int) -> float:
    started = time.perf_counter()
    triage("what is " + "a" * size + "?")
    triage("how is " + "x " * size)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20000,40000,80000")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    sizes = sorted({int(s) for s in args.sizes.split(",")} | {TARGET_SIZE})

    medians = {n: statistics.median(time_pair(n) for _ in range(args.repeat)) for n in sizes}
    base = sizes[0]
    print(f"{'chars':>8}  {'median s':>9}  {'x time':>7}  {'x size':>7}")
    for n in sizes:
        print(f"{n:>8}  {medians[n]:>9.3f}  {medians[n] / medians[base]:>7.1f}  {n / base:>7.1f}")
    ok = medians[TARGET_SIZE] < TARGET_PAIR_S
    print(f"target: pair at {TARGET_SIZE} chars < {TARGET_PAIR_S:g} s: "
          f"{medians[TARGET_SIZE]:.3f} s {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
