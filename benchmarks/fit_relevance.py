"""Fit the relevance model on the real lakes of ../shared and cross-validate it lake by lake.

Each lake weighs the same in the fit, whatever its number of questions or files. The
other lakes' questions, asked of each lake, are its off-topic requests: every file is a
negative for them, and the gate's threshold is chosen so that they get no files.
The product returns the best data file only (common/file_choice.py): a fitted model of what
a file beyond the best adds raised F1 on the lakes it was fitted on and lowered it on every
held-out lake, so it was dropped.
Usage: python benchmarks/fit_relevance.py [--cv] [--write] [--dense] [--work DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import pickle
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from relevance_data import (LakeData, Question, embedder, features, index_lake, rows_version,  # noqa: E402
                            lake_data, real_lakes)

# Evidence the file model weighs better without, under cross-validation: the gate reads log_all
# and dense_nearest, and values stay in the all-fields and plain BM25 scores.
NOT_IN_FILE_MODEL = ("log_all", "bm25_values", "dense_nearest")
OFF_TOPIC_WEIGHT = 0.3  # share of a lake's weight in the cut-off's objective given to off-topic requests


class FlooredScaler:
    """Standardise each feature, with a floor on the scale: a feature that is almost always 0 in
    the training lakes (an id in a name) would otherwise get a huge raw weight from a tiny one."""

    FLOOR = 0.2

    def fit(self, x, y=None):
        self.mean_ = x.mean(0)
        self.scale_ = np.maximum(x.std(0), self.FLOOR)
        return self

    def transform(self, x):
        return (x - self.mean_) / self.scale_

    def fit_transform(self, x, y=None):
        return self.fit(x).transform(x)


@dataclass
class Cutoff:
    gate_at: float  # the lake serves a request when the gate's probability reaches this


def model_columns(dense: bool) -> list[int]:
    """The features the file model weighs: the dense ones only where the lake has vectors."""
    from lakeboard.servers.relevance.features import FEATURES

    return [i for i, f in enumerate(FEATURES) if f not in NOT_IN_FILE_MODEL and (dense or not f.startswith("dense"))]


def build(configs: Path, dense: str | None) -> list[LakeData]:
    embed = embedder(configs.parent / f"vectors-{dense}.pickle", dense) if dense else None
    lakes, indexes = [], []
    for spec in real_lakes():
        data, li, cards = lake_data(spec, configs, embed)
        lakes.append(data)
        indexes.append((li, cards))
    for data, (li, cards) in zip(lakes, indexes):
        for other in lakes:
            if other is data:
                continue
            for q in other.questions:
                x, ev = features(li, q.text, cards, embed)
                data.off_topic.append(Question(q.text, [], x, np.zeros(len(x), dtype=np.int8), [], ev.hits, ev.idf,
                                               list(ev.query.terms.values()), ev.standing))
    return lakes


def training_rows(lakes: list[LakeData], columns: list[int]):
    xs, ys, ws = [], [], []
    for lake in lakes:
        for q in lake.questions:
            pos = q.y.sum()
            if pos == 0:
                continue
            # each lake weighs 1, split over its questions; in a question, positives and
            # negatives weigh the same
            w = np.where(q.y == 1, 0.5 / pos, 0.5 / max(len(q.y) - pos, 1)) / len(lake.questions)
            xs.append(q.x[:, columns]); ys.append(q.y); ws.append(w)
        off = lake.off_topic
        for q in off:
            xs.append(q.x[:, columns]); ys.append(q.y)
            ws.append(np.full(len(q.y), OFF_TOPIC_WEIGHT / (len(off) * len(q.y))))
    return np.vstack(xs), np.concatenate(ys), np.concatenate(ws)


def fit(lakes: list[LakeData], columns: list[int], c: float = 1.0):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    x, y, w = training_rows(lakes, columns)
    model = make_pipeline(FlooredScaler(), LogisticRegression(C=c, max_iter=2000))
    model.fit(x, y, logisticregression__sample_weight=w * len(w))
    return model


def gate_rows(questions: list[Question], ps: list[np.ndarray]) -> np.ndarray:
    from lakeboard.servers.relevance.engine import gate_row

    return np.vstack([gate_row(q.x, p, q.standing) for q, p in zip(questions, ps)])


def fit_gate(lakes: list[LakeData], model, columns: list[int]):
    """A request the lake can serve, against the other lakes' requests: each lake weighs the same."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    xs, ys, ws = [], [], []
    for lake in lakes:
        on = [q for q in lake.questions if q.y.any()]
        for group, label in ((on, 1), (lake.off_topic, 0)):
            if not group:
                continue
            ps = [model.predict_proba(q.x[:, columns])[:, 1] for q in group]
            xs.append(gate_rows(group, ps)); ys += [label] * len(group)
            ws += [0.5 / len(group)] * len(group)
    gate = make_pipeline(FlooredScaler(), LogisticRegression(C=1.0, max_iter=2000))
    w = np.array(ws)
    gate.fit(np.vstack(xs), np.array(ys), logisticregression__sample_weight=w * len(w))
    return gate


def select(pred: tuple, cut: Cutoff, facts: list | None = None) -> np.ndarray:
    """The best data file, followed by the dictionaries and READMEs that describe it (as a file
    agent serves them); nothing when the gate says the lake does not serve the request."""
    p, g = pred
    if g < cut.gate_at or not len(p):
        return np.array([], dtype=int)
    data = np.array([not f.describes for f in facts]) if facts is not None else np.ones(len(p), dtype=bool)
    top = int(np.argmax(np.where(data, p, -1.0))) if data.any() else int(np.argmax(p))
    chosen = [top]
    if facts is not None:
        index = {f.path: i for i, f in enumerate(facts)}
        chosen += [index[d] for d in facts[top].described_by if index[d] != top]
    return np.array(chosen, dtype=int)


def f1(chosen: np.ndarray, q: Question) -> tuple[float, float, float]:
    """Recall over the question's ground-truth units, precision over the files returned (as the
    product's scorer, host/eval/discovery_scores.py, counts them)."""
    picked = np.zeros(len(q.y), dtype=bool)
    picked[chosen] = True
    r = sum(bool((u & picked).any()) for u in q.unit_files) / len(q.units) if q.units else 0.0
    pr = q.y[chosen].sum() / len(chosen) if len(chosen) else 0.0
    return r, pr, (2 * r * pr / (r + pr) if r + pr else 0.0)


def lake_scores(lake: LakeData, on: list, off: list, cut: Cutoff) -> dict:
    """`on`, `off`: per request, the model's predictions (Relevance.predict)."""
    rows = [f1(select(pred, cut, lake.facts), q) for pred, q in zip(on, lake.questions)]
    top10 = [f1(np.argsort(-pred[0], kind="stable")[:10], q)[0] for pred, q in zip(on, lake.questions)]
    empty = [len(select(pred, cut)) == 0 for pred in off]
    return {"recall": statistics.fmean(r[0] for r in rows), "precision": statistics.fmean(r[1] for r in rows),
            "f1": statistics.fmean(r[2] for r in rows), "recall10": statistics.fmean(top10),
            "off_topic_empty": statistics.fmean(empty) if empty else 1.0}


@dataclass
class Relevance:
    model: object
    gate: object
    cutoff: Cutoff
    columns: list[int]

    def predict(self, questions: list[Question], facts: list) -> list[tuple]:
        """Per request, (each file's probability, the gate's probability)."""
        usable = np.array([f.usable for f in facts], dtype=bool)
        ps = [self.model.predict_proba(q.x[:, self.columns])[:, 1] * usable for q in questions]
        if not ps:
            return []
        gs = self.gate.predict_proba(gate_rows(questions, ps))[:, 1]
        return list(zip(ps, gs))


def train(lakes: list[LakeData], columns: list[int], c: float = 1.0) -> Relevance:
    model = fit(lakes, columns, c)
    rel = Relevance(model, fit_gate(lakes, model, columns), Cutoff(0.0), columns)
    preds = [(rel.predict(l.questions, l.facts), rel.predict(l.off_topic, l.facts)) for l in lakes]

    def objective(g: float) -> float:
        scores = [lake_scores(l, on, off, Cutoff(g)) for l, (on, off) in zip(lakes, preds)]
        return statistics.fmean((1 - OFF_TOPIC_WEIGHT) * s["f1"] + OFF_TOPIC_WEIGHT * s["off_topic_empty"]
                                for s in scores)

    rel.cutoff = Cutoff(max(GATE_GRID, key=objective))
    return rel


# Steps of 0.025: with steps of 0.1, a small change in one training lake (one table's 'NO DATA'
# cells read as gaps) moved a held-out lake's threshold a whole step and its F1 by 0.055; in
# steps of 0.025 the cross-validated macro F1 was 0.579 and 0.581 before and after that change.
GATE_GRID = [round(0.025 * k, 3) for k in range(39)]  # 0.0 to 0.95


def without_questions_of(held: LakeData, lakes: list[LakeData]) -> list[LakeData]:
    """The other lakes, with the held-out lake's questions taken out of their off-topic requests:
    a question scored on the held-out lake must not have been seen in training, even as a negative."""
    texts = {q.text for q in held.questions}
    return [dataclasses.replace(l, off_topic=[q for q in l.off_topic if q.text not in texts])
            for l in lakes if l is not held]


def cross_validate(lakes: list[LakeData], columns: list[int], c: float = 1.0) -> list[dict]:
    out = []
    for held in lakes:
        rel = train(without_questions_of(held, lakes), columns, c)
        scores = lake_scores(held, rel.predict(held.questions, held.facts), rel.predict(held.off_topic, held.facts),
                             rel.cutoff)
        out.append({"lake": held.spec.name, **scores, "cutoff": rel.cutoff})
    return out


def print_table(title: str, rows: list[dict]) -> None:
    print(title)
    print(f"  {'lake':11s} {'recall':>7s} {'prec.':>7s} {'F1':>7s} {'rec@10':>7s} {'off-topic empty':>16s}")
    for r in rows:
        print(f"  {r['lake']:11s} {r['recall']:7.3f} {r['precision']:7.3f} {r['f1']:7.3f} {r['recall10']:7.3f} "
              f"{r['off_topic_empty']:16.3f}  {r.get('cutoff', '')}")
    m = {k: statistics.fmean(r[k] for r in rows) for k in ("recall", "precision", "f1", "recall10", "off_topic_empty")}
    print(f"  {'macro':11s} {m['recall']:7.3f} {m['precision']:7.3f} {m['f1']:7.3f} {m['recall10']:7.3f} "
          f"{m['off_topic_empty']:16.3f}")


WEIGHTS = Path(__file__).resolve().parents[1] / "servers" / "relevance" / "relevance_weights.json"


def rows_of(work: Path, dense: str | None) -> list[LakeData]:
    """The real lakes' rows, cached per version of their indexes and of the relevance code (the
    lakes are indexed again first when stale)."""
    configs = work / "configs"
    for spec in real_lakes():
        index_lake(spec, configs)
    cache = work / f"rows-{dense or 'lexical'}-{rows_version(configs)}.pickle"
    if cache.exists():
        return pickle.loads(cache.read_bytes())
    lakes = build(configs, dense)
    cache.write_bytes(pickle.dumps(lakes))
    return lakes


def to_weights(rel: Relevance, lakes: list[LakeData]):
    from lakeboard.servers.relevance.relevance_model import LinearModel, RelevancePolicy, RelevanceWeights
    from lakeboard.servers.relevance.engine import GATE_INPUTS
    from lakeboard.servers.relevance.features import FEATURES

    return RelevanceWeights(
        file=LinearModel.from_sklearn([FEATURES[c] for c in rel.columns], rel.model),
        gate=LinearModel.from_sklearn(list(GATE_INPUTS), rel.gate),
        policy=RelevancePolicy(gate_at=rel.cutoff.gate_at),
        fitted_on=[l.spec.name for l in lakes],
    )


def write_weights(work: Path, c: float) -> None:
    from lakeboard.servers.relevance.relevance_model import WeightsFile

    variants = {}
    for name, dense in (("dense", "minilm"), ("lexical", None)):
        lakes = rows_of(work, dense)
        columns = model_columns(bool(dense))
        variants[name] = to_weights(train(lakes, columns, c), lakes)
    text = WeightsFile(**variants).model_dump_json(indent=1)
    tmp = WEIGHTS.with_suffix(".tmp")
    tmp.write_text(text + "\n")
    tmp.replace(WEIGHTS)
    print(f"wrote {WEIGHTS}")


def main() -> int:
    from lakeboard.servers.relevance.features import FEATURES

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "lakeboard-fit")
    ap.add_argument("--dense", nargs="?", const="minilm", default=None,
                    help="add dense similarity: minilm (sentence-transformers) or runtime (the product's)")
    ap.add_argument("--ablate", action="store_true", help="cross-validate without each feature in turn")
    ap.add_argument("--c", type=float, default=1.0)
    ap.add_argument("--write", action="store_true",
                    help=f"fit on every lake, with and without the dense similarity, and write {WEIGHTS}")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.write:
        write_weights(args.work, args.c)
        return 0
    lakes = rows_of(args.work, args.dense)
    columns = model_columns(bool(args.dense))
    rows = cross_validate(lakes, columns, args.c)
    print_table("cross-validated (train on three lakes, score the fourth)", rows)
    if args.ablate:
        base = statistics.fmean(r["f1"] for r in rows)
        for i in columns:
            rest = [c for c in columns if c != i]
            r2 = cross_validate(lakes, rest, args.c)
            print(f"  without {FEATURES[i]:16s} macro F1 {statistics.fmean(r['f1'] for r in r2):.3f} "
                  f"({statistics.fmean(r['f1'] for r in r2) - base:+.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
