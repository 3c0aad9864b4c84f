"""Discovery quality: `lakeboard eval --discovery-only` on the KramaBench dev domains and on our own lakes.

Prints per-domain and macro recall / precision / F1 over the KramaBench domains (no LLM), then
each generated lake of `lakes/` on its own row: the generalization lake (`lakes/general/`,
families split on year, month, town, id and date range) and the demo lake. The macro covers the
KramaBench domains only. Targets: macro F1 >= 0.62 on the dev domains, F1 >= 0.80 on the
generalization lake.
Usage: python benchmarks/bench_discovery.py [--kramabench ../shared/kramabench] [--domains a b] [--lakes general demo]
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
sys.path.insert(0, str(REPO))
LAKES = REPO / "lakes"
GENERAL_TARGET = 0.80
DEV_TARGET = 0.62


def run_domain(domain: str, workload: Path, lake: Path, work: Path) -> dict:
    out = work / f"{domain}.jsonl"
    t0 = time.perf_counter()
    cmd = [sys.executable, "-P", "-m", "lakeboard.host.cli", "eval", str(workload),
           "--lake", str(lake), "--configs", str(work / "configs"),
           "--discovery-only", "--out", str(out)]
    subprocess.run(cmd, check=True, cwd=REPO, stdout=subprocess.DEVNULL)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    mean = lambda k: statistics.fmean(r[k] for r in rows)  # noqa: E731
    return {"domain": domain, "tasks": len(rows), "recall": mean("recall"), "precision": mean("precision"),
            "f1": mean("f1"), "median_broadcast_s": statistics.median(r["broadcast_s"] for r in rows),
            "volunteer_precision": volunteer_precision(rows, workload, lake, work / "configs"),
            "wall_s": time.perf_counter() - t0}


def volunteer_precision(rows: list[dict], workload: Path, lake: Path, configs: Path) -> float:
    """Mean over tasks of the share of volunteering file agents whose partition holds a file
    the task needs (search agents left out)."""
    from lakeboard.host.eval.discovery_scores import resolve_unit

    [clusters_file] = [p for p in configs.glob("*/clusters.json") if json.loads(p.read_text())["lake"] == str(lake)]
    config = json.loads(clusters_file.read_text())
    files_of = {f"{config['name']}-{c['name']}": c["files"] for c in config["clusters"]}
    paths = [f for fs in files_of.values() for f in fs]
    needs = {t["id"]: t["data_sources"] for t in json.loads(workload.read_text())}
    shares = []
    for r in rows:
        volunteers = [v for v in r.get("volunteers", []) if v in files_of]
        if not volunteers:
            continue
        matchers = [resolve_unit(u, paths) for u in needs[r["id"]]]
        useful = [v for v in volunteers if any(m(f.lower()) for f in files_of[v] for m in matchers)]
        shares.append(len(useful) / len(volunteers))
    return statistics.fmean(shares) if shares else 0.0


def print_rows(results: list[dict]) -> None:
    print(f"{'domain':12s} {'tasks':>5s} {'recall':>7s} {'prec.':>7s} {'F1':>7s} {'volunteer prec.':>16s} "
          f"{'median broadcast':>17s}")
    for r in results:
        print(f"{r['domain']:12s} {r['tasks']:5d} {r['recall']:7.3f} {r['precision']:7.3f} {r['f1']:7.3f} "
              f"{r['volunteer_precision']:16.3f} {r['median_broadcast_s'] * 1000:14.0f} ms")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kramabench", type=Path, default=REPO.parent / "shared" / "kramabench")
    ap.add_argument("--domains", nargs="+", default=["archeology", "legal", "wildfire"])
    ap.add_argument("--lakes", nargs="*", default=["general", "demo"],
                    help="lakes of lakes/ scored on their own (lakes/NAME with lakes/NAME-questions.json); none to skip")
    args = ap.parse_args()
    kb = args.kramabench.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        results = [run_domain(d, kb / "workload" / f"{d}.json", kb / d / "input", Path(tmp)) for d in args.domains]
        own = [run_domain(name, LAKES / f"{name}-questions.json", LAKES / name, Path(tmp)) for name in args.lakes]
    print_rows(results)
    macro = {k: statistics.fmean(r[k] for r in results) for k in ("recall", "precision", "f1")}
    print(f"{'macro':12s} {'':5s} {macro['recall']:7.3f} {macro['precision']:7.3f} {macro['f1']:7.3f}")
    print(f"target macro F1 >= {DEV_TARGET:.2f}: {'PASS' if macro['f1'] >= DEV_TARGET else 'FAIL'}")
    if own:
        print("\nown lakes (each on its own, not in the macro)")
        print_rows(own)
    for r in own:
        if r["domain"] == "general":
            print(f"target F1 >= {GENERAL_TARGET:.2f} on the generalization lake: "
                  f"{'PASS' if r['f1'] >= GENERAL_TARGET else 'FAIL'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
