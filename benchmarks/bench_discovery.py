"""Discovery quality on the real lakes of ../shared (KramaBench archeology, legal, wildfire; DABench).

Default: the product end to end (`lakeboard eval --discovery-only`, no LLM) on each real lake,
with the weights in the repository: an *in-sample* figure, since those weights were fitted on
these lakes. Generated lakes of lakes/ (`--lakes general demo`) test mechanisms only.

`--cv`: the figure that counts. For each real lake, the relevance model is fitted on the other
three and scores this one (benchmarks/fit_relevance.py, the product's own features and choice
of files). Beside it, in the same run: a plain BM25 peer (one BM25 over all of a file's text,
its top k files, k chosen on the other three lakes) and `--mode rag` (the paper's RAG baseline:
the five files closest to the question). Also recall of the top 10 ranked files, and the
off-topic rate: each lake is asked the other lakes' questions, which must get no files. And the
ceiling of each figure: a file the ground truth names that is absent from the lake's copy is
missed whatever is returned (archeology lacks one file that 6 of its 12 questions need).
`--cv --pooled`: also each lake's questions asked of the four lakes pooled into one lake (a
folder each, hard links in --work), fitted as --cv: how the gate holds on a bigger lake.
Usage: python benchmarks/bench_discovery.py [--cv [--pooled]] [--work DIR] [--lakes general demo]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fit_relevance as fit  # noqa: E402
from relevance_data import REPO, LakeSpec, real_lakes  # noqa: E402

LAKES = REPO / "lakes"


def run_eval(spec: LakeSpec, work: Path, mode: str = "blackboard") -> dict:
    """`lakeboard eval --discovery-only` on one lake: mean recall, precision and F1."""
    out = work / f"{spec.name}-{mode}.jsonl"
    cmd = [sys.executable, "-P", "-m", "lakeboard.host.cli", "eval", str(spec.workload), "--lake", str(spec.lake),
           "--configs", str(work / "configs"), "--discovery-only", "--mode", mode, "--out", str(out)]
    subprocess.run(cmd, check=True, cwd="/", stdout=subprocess.DEVNULL)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    return {"lake": spec.name, **{k: statistics.fmean(r[k] for r in rows) for k in ("recall", "precision", "f1")}}


def bm25_peer(lakes: list, held) -> dict:
    """Plain BM25 over all of a file's text: its top k, k chosen on the other lakes."""
    from lakeboard.servers.relevance.features import FEATURES

    col = FEATURES.index("log_plain")

    def scores(lake, k: int) -> list[tuple[float, float, float]]:
        out = []
        for q in lake.questions:
            s = q.x[:, col]
            top = np.argsort(-s, kind="stable")[:k]
            out.append(fit.f1(top[s[top] > 0], q))
        return out

    train = [lake for lake in lakes if lake is not held]
    k = max(range(1, 6), key=lambda k: statistics.fmean(statistics.fmean(r[2] for r in scores(t, k)) for t in train))
    rows = scores(held, k)
    return {"lake": held.spec.name, "recall": statistics.fmean(r[0] for r in rows),
            "precision": statistics.fmean(r[1] for r in rows), "f1": statistics.fmean(r[2] for r in rows), "k": k}


def pooled_rows(lakes: list, work: Path) -> list[dict]:
    """Each lake's questions asked of the four lakes pooled into one, with weights fitted on the
    other three lakes (as --cv): F1, and the share of the questions the gate lets through."""
    from relevance_data import embedder, index_lake, lake_data, pooled_lake

    spec = pooled_lake([lake.spec for lake in lakes], work)
    index_lake(spec, work / "configs")
    pool, _, _ = lake_data(spec, work / "configs", embedder(work / "vectors-minilm.pickle", "minilm"))
    columns = fit.model_columns(dense=True)
    out = []
    for held in lakes:
        rel = fit.train(fit.without_questions_of(held, lakes), columns)
        texts = {q.text for q in held.questions}
        asked = dataclasses.replace(pool, questions=[q for q in pool.questions if q.text in texts], off_topic=[])
        preds = rel.predict(asked.questions, pool.facts)
        out.append({"lake": held.spec.name, **fit.lake_scores(asked, preds, [], rel.cutoff),
                    "passed": statistics.fmean(g >= rel.cutoff.gate_at for _, g in preds)})
    return out


def ceiling(lake) -> dict:
    """The most any choice of files could score on `lake`: a ground-truth file absent from the lake
    (its README lists them) is missed whatever is returned. F1 with every present file returned
    and nothing else; recall of 10 files when they are the right ones."""
    present = [(sum(bool(u.any()) for u in q.unit_files), len(q.units)) for q in lake.questions if q.units]
    recall = [p / n for p, n in present]
    return {"lake": lake.spec.name, "recall": statistics.fmean(recall), "precision": 1.0,
            "f1": statistics.fmean(2 * r / (1 + r) for r in recall),
            "recall10": statistics.fmean(min(p, 10) / n for p, n in present), "off_topic_empty": 1.0}


def print_rows(title: str, rows: list[dict], extra: bool = False) -> None:
    print(title)
    head = f"  {'lake':11s} {'recall':>7s} {'prec.':>7s} {'F1':>7s}"
    print(head + (f" {'rec@10':>7s} {'off-topic empty':>16s}" if extra else ""))
    for r in rows:
        line = f"  {r['lake']:11s} {r['recall']:7.3f} {r['precision']:7.3f} {r['f1']:7.3f}"
        print(line + (f" {r['recall10']:7.3f} {r['off_topic_empty']:16.3f}" if extra else ""))
    keys = ("recall", "precision", "f1") + (("recall10", "off_topic_empty") if extra else ())
    m = {k: statistics.fmean(r[k] for r in rows) for k in keys}
    line = f"  {'macro':11s} {m['recall']:7.3f} {m['precision']:7.3f} {m['f1']:7.3f}"
    print(line + (f" {m['recall10']:7.3f} {m['off_topic_empty']:16.3f}" if extra else ""))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cv", action="store_true", help="cross-validate across the real lakes, with the peers")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "lakeboard-fit")
    ap.add_argument("--lakes", nargs="*", default=[], help="generated lakes of lakes/ to run as well (mechanism checks)")
    ap.add_argument("--pooled", action="store_true",
                    help="with --cv: also ask each lake's questions of the four lakes pooled into one")
    args = ap.parse_args()
    if args.work.resolve().is_relative_to(REPO):
        ap.error(f"--work {args.work} is inside the repository; choose a folder outside it")
    args.work.mkdir(parents=True, exist_ok=True)
    specs = real_lakes()
    if args.cv:
        lakes = fit.rows_of(args.work, "minilm")
        columns = fit.model_columns(dense=True)
        print_rows("Lakeboard, cross-validated (fitted on the other three lakes)", fit.cross_validate(lakes, columns),
                   extra=True)
        print_rows("ceiling: every ground-truth file present in the lake returned, and nothing else",
                   [ceiling(lake) for lake in lakes], extra=True)
        print_rows("peer: plain BM25, top k (k fitted on the other three lakes)", [bm25_peer(lakes, l) for l in lakes])
        print_rows("peer: --mode rag (the paper's RAG baseline)", [run_eval(s, args.work, "rag") for s in specs])
        if args.pooled:
            rows = pooled_rows(lakes, args.work)
            print_rows("Lakeboard, cross-validated, each lake's questions asked of the four lakes pooled into one", rows)
            print("  share of the questions the gate lets through: "
                  + ", ".join(f"{r['lake']} {r['passed']:.3f}" for r in rows))
    else:
        print_rows("Lakeboard end to end, weights fitted on these lakes (in-sample)",
                   [run_eval(s, args.work) for s in specs])
    own = [LakeSpec(name, LAKES / name, LAKES / f"{name}-questions.json") for name in args.lakes]
    if own:
        print_rows("generated lakes (mechanism checks, not quality figures)", [run_eval(s, args.work) for s in own])
    return 0


if __name__ == "__main__":
    sys.exit(main())
