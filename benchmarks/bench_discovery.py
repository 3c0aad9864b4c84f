"""Discovery quality on KramaBench: `lakeboard eval --discovery-only` on each domain.

Prints per-domain and macro recall / precision / F1 (no LLM). Target: macro F1 >= 0.60.
Usage: python benchmarks/bench_discovery.py [--kramabench ../shared/kramabench] [--domains a b]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_domain(kb: Path, domain: str, work: Path) -> dict:
    out = work / f"{domain}.jsonl"
    t0 = time.perf_counter()
    cmd = [sys.executable, "-m", "host.cli", "eval", str(kb / "workload" / f"{domain}.json"),
           "--lake", str(kb / domain / "input"), "--configs", str(work / "configs"),
           "--discovery-only", "--out", str(out)]
    subprocess.run(cmd, check=True, cwd=REPO, stdout=subprocess.DEVNULL)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    mean = lambda k: statistics.fmean(r[k] for r in rows)  # noqa: E731
    return {"domain": domain, "tasks": len(rows), "recall": mean("recall"), "precision": mean("precision"),
            "f1": mean("f1"), "median_broadcast_s": statistics.median(r["broadcast_s"] for r in rows),
            "wall_s": time.perf_counter() - t0}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kramabench", type=Path, default=REPO.parent / "shared" / "kramabench")
    ap.add_argument("--domains", nargs="+", default=["archeology", "legal", "wildfire"])
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = [run_domain(args.kramabench.resolve(), d, Path(tmp)) for d in args.domains]
    print(f"{'domain':12s} {'tasks':>5s} {'recall':>7s} {'prec.':>7s} {'F1':>7s} {'median broadcast':>17s}")
    for r in results:
        print(f"{r['domain']:12s} {r['tasks']:5d} {r['recall']:7.3f} {r['precision']:7.3f} {r['f1']:7.3f} "
              f"{r['median_broadcast_s'] * 1000:14.0f} ms")
    macro = {k: statistics.fmean(r[k] for r in results) for k in ("recall", "precision", "f1")}
    print(f"{'macro':12s} {'':5s} {macro['recall']:7.3f} {macro['precision']:7.3f} {macro['f1']:7.3f}")
    print(f"target macro F1 >= 0.60: {'PASS' if macro['f1'] >= 0.60 else 'FAIL'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
