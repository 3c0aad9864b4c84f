"""Compare two BM25 libraries, bm25s and tantivy, for the lexical discovery stage.

    python benchmarks/bench_bm25_backends.py [--shared ../shared] [--n 50000]

Both libraries get the same pre-tokenised terms (`relevance.tokens.terms`) of the same texts
(`relevance.search_fields.profile_texts`), in two layouts: one combined field, and one field per
text kind whose scores are summed. Both use k1=1.2, b=0.75 (tantivy's fixed values; bm25s's
"lucene" method then ranks the same, its scores being tantivy's divided by k1+1).

1. Quality on the four real lakes (KramaBench archeology, legal, wildfire; DABench): recall@1,
   recall@10, F1 of the top 1 and top 3, MRR, against each task's `data_sources`.
2. Speed and memory on N synthetic documents, made from the real lakes' documents with renamed
   and shuffled terms (profiling N real files would take far longer than the indexes do): build
   time, size on disk, load time (bm25s with mmap, tantivy Index.open), median query time over
   200 queries, and the memory a loaded index adds in a fresh process, alone and with a second
   process holding the same index open.

Needs `pip install bm25s tantivy psutil`. Profiles are cached under the system temp folder.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lakeboard.host.eval.discovery_scores import resolve_unit, score_discovery
from lakeboard.servers.profiling.lake import profile_lake
from lakeboard.servers.relevance.search_fields import profile_texts
from lakeboard.servers.relevance.tokens import query_terms, terms

REPO = Path(__file__).resolve().parents[1]
FIELDS = ("stem", "folders", "titles", "notes", "columns", "values", "text")
COMBINED = ("all",)
K1, B = 1.2, 0.75
QUERIES_AT_SCALE = 200


@dataclass
class Doc:
    path: str
    fields: dict[str, list[str]]  # field name -> terms, in order, duplicates kept

    def layout(self, names: tuple[str, ...]) -> list[list[str]]:
        if names == COMBINED:
            return [[t for f in FIELDS for t in self.fields[f]]]
        return [self.fields[f] for f in names]


def documents(lake: Path, cache: Path) -> list[Doc]:
    docs = []
    for prof in profile_lake(lake, cache):
        t = profile_texts(prof)
        texts = {"stem": t.stem, "folders": t.folders, "titles": " ; ".join(t.titles), "notes": " ; ".join(t.notes),
                 "columns": " ; ".join(t.columns), "values": " ; ".join(t.values), "text": t.text}
        docs.append(Doc(prof.path, {f: terms(texts[f]) for f in FIELDS}))
    return docs


# ----------------------------------------------------------------------------- backends


class Bm25sIndex:
    """One bm25s index per field; a query's score is the sum over fields."""

    name = "bm25s"

    def __init__(self, fields: tuple[str, ...]) -> None:
        self.fields = fields
        self.models: list = []
        self.n = 0

    def build(self, columns: list[list[list[str]]], folder: Path) -> None:
        import bm25s

        self.n = len(columns[0])
        for name, col in zip(self.fields, columns):
            if not any(col):  # bm25s cannot index a field empty in every document; it scores 0
                continue
            m = bm25s.BM25(k1=K1, b=B, method="lucene")
            m.index(col, show_progress=False)
            m.save(str(folder / name), show_progress=False)

    def load(self, folder: Path) -> None:
        import bm25s

        self.models = [
            bm25s.BM25.load(str(folder / f), mmap=True, show_progress=False) for f in self.fields if (folder / f).is_dir()
        ]
        self.n = int(self.models[0].scores["num_docs"])

    def scores(self, query: list[str]) -> np.ndarray:
        total = np.zeros(self.n, dtype=np.float32)
        for m in self.models:
            total += m.get_scores(query)
        return total

    def top(self, query: list[str], k: int) -> np.ndarray:
        s = self.scores(query)
        idx = np.argpartition(-s, min(k, self.n - 1))[:k]
        return idx[np.argsort(-s[idx])]


class TantivyIndex:
    """One tantivy index, one text field per field (whitespace tokenizer: the terms are already
    ours); a query is a should-match of every term in every field, so scores add across fields."""

    name = "tantivy"

    def __init__(self, fields: tuple[str, ...]) -> None:
        self.fields = fields
        self.index = None
        self.searcher = None
        self.n = 0

    def _schema(self):
        import tantivy

        sb = tantivy.SchemaBuilder()
        for f in self.fields:
            sb.add_text_field(f, tokenizer_name="whitespace", index_option="freq")
        sb.add_unsigned_field("ord", fast=True)
        return sb.build()

    def build(self, columns: list[list[list[str]]], folder: Path) -> None:
        import tantivy

        folder.mkdir(parents=True, exist_ok=True)
        index = tantivy.Index(self._schema(), path=str(folder))
        writer = index.writer(200_000_000, 1)
        for i, row in enumerate(zip(*columns)):
            d = tantivy.Document()
            d.add_unsigned("ord", i)
            for f, toks in zip(self.fields, row):
                d.add_text(f, " ".join(toks))
            writer.add_document(d)
        writer.commit()
        writer.wait_merging_threads()

    def load(self, folder: Path) -> None:
        import tantivy

        self.index = tantivy.Index.open(str(folder))
        self.searcher = self.index.searcher()
        self.n = self.searcher.num_docs

    def _query(self, query: list[str]):
        import tantivy

        schema = self.index.schema
        clauses = [(tantivy.Occur.Should, tantivy.Query.term_query(schema, f, t)) for f in self.fields for t in query]
        return tantivy.Query.boolean_query(clauses)

    def _hits(self, query: list[str], limit: int) -> tuple[list[int], list[float]]:
        hits = self.searcher.search(self._query(query), limit, count=False).hits
        ords = self.searcher.fast_field_values("ord", [a for _, a in hits])
        return ords, [s for s, _ in hits]

    def scores(self, query: list[str]) -> np.ndarray:
        out = np.zeros(self.n, dtype=np.float32)
        ords, s = self._hits(query, self.n)
        out[ords] = s
        return out

    def top(self, query: list[str], k: int) -> list[int]:
        return self._hits(query, k)[0]


BACKENDS = {"bm25s": Bm25sIndex, "tantivy": TantivyIndex}
LAYOUTS = {"combined": COMBINED, "fields": FIELDS}


def built(backend: str, layout: str, docs: list[Doc], folder: Path) -> tuple[object, float]:
    names = LAYOUTS[layout]
    columns = [list(c) for c in zip(*(d.layout(names) for d in docs))]
    t0 = time.perf_counter()
    BACKENDS[backend](names).build(columns, folder)
    return BACKENDS[backend](names), time.perf_counter() - t0


# ----------------------------------------------------------------------------- quality


def lakes(shared: Path) -> list[tuple[str, Path, Path]]:
    kb = shared / "kramabench"
    out = [(d, kb / d / "input", kb / "workload" / f"{d}.json") for d in ("archeology", "legal", "wildfire")]
    return out + [("dabench", shared / "dabench" / "input", shared / "dabench" / "workload" / "dabench.json")]


def quality(name: str, lake: Path, workload: Path, cache: Path, work: Path) -> dict[str, dict[str, float]]:
    docs = documents(lake, cache / name)
    paths = [d.path for d in docs]
    low = [p.lower() for p in paths]
    tasks = [t for t in json.loads(workload.read_text()) if t.get("data_sources")]
    queries = [list(query_terms(t["query"])) for t in tasks]
    out: dict[str, dict[str, float]] = {}
    rankings: dict[str, list[list[int]]] = {}
    for backend in BACKENDS:
        for layout in LAYOUTS:
            key = f"{backend}/{layout}"
            index, _ = built(backend, layout, docs, work / name / key)
            index.load(work / name / key)
            rows = []
            ranked_all = []
            for task, q in zip(tasks, queries):
                s = index.scores(q)
                ranked = [int(i) for i in np.argsort(-s, kind="stable") if s[i] > 0]
                ranked_all.append(ranked)
                ret = [paths[i] for i in ranked]
                units = task["data_sources"]
                matchers = [resolve_unit(u, paths) for u in units]
                rank = next((r for r, i in enumerate(ranked, 1) if any(m(low[i]) for m in matchers)), None)
                rows.append((
                    score_discovery(ret[:1], units, paths).recall,
                    score_discovery(ret[:10], units, paths).recall,
                    score_discovery(ret[:1], units, paths).f1,
                    score_discovery(ret[:3], units, paths).f1,
                    1.0 / rank if rank else 0.0,
                ))
            out[key] = dict(zip(("R@1", "R@10", "F1@1", "F1@3", "MRR"), (statistics.fmean(c) for c in zip(*rows))))
            rankings[key] = ranked_all
    for layout in LAYOUTS:
        a, b = rankings[f"bm25s/{layout}"], rankings[f"tantivy/{layout}"]
        out[f"bm25s/{layout}"]["same top-10"] = statistics.fmean(x[:10] == y[:10] for x, y in zip(a, b))
        out[f"tantivy/{layout}"]["same top-10"] = out[f"bm25s/{layout}"]["same top-10"]
    out["_meta"] = {"files": len(docs), "tasks": len(tasks)}
    return out


# ----------------------------------------------------------------------------- scale


def synthetic(real: list[Doc], n: int, seed: int = 7) -> list[Doc]:
    """N documents from the real ones: each a real document whose terms are, half of them, renamed
    into one of 500 "topics" and shuffled within their field, so the vocabulary grows with N."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        src = real[i % len(real)]
        g = rng.randrange(500)
        fields = {}
        for f, toks in src.fields.items():
            new = [t if rng.random() < 0.5 else f"{t}q{g}" for t in toks]
            rng.shuffle(new)
            fields[f] = new
        out.append(Doc(f"synthetic/{i}/{src.path}", fields))
    return out


def synthetic_queries(shared: Path, n: int, seed: int = 11) -> list[list[str]]:
    rng = random.Random(seed)
    qs = [list(query_terms(t["query"])) for _, _, w in lakes(shared) for t in json.loads(w.read_text())]
    qs = [q for q in qs if q]
    out = []
    for _ in range(n):
        g = rng.randrange(500)
        out.append([t if rng.random() < 0.5 else f"{t}q{g}" for t in rng.choice(qs)])
    return out


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def child(backend: str, layout: str, folder: Path, queries_file: Path) -> None:
    """Run in a fresh process: load, query, report memory and times, then wait for stdin to close."""
    import psutil

    import bm25s  # noqa: F401 - imported before the baseline: the library is not the index
    import tantivy  # noqa: F401

    proc = psutil.Process()
    queries = json.loads(queries_file.read_text())
    before = proc.memory_full_info()
    t0 = time.perf_counter()
    index = BACKENDS[backend](LAYOUTS[layout])
    index.load(folder)
    load_s = time.perf_counter() - t0
    loaded = proc.memory_full_info()
    all_t, top_t = [], []
    for q in queries:
        t = time.perf_counter()
        index.scores(q)
        all_t.append(time.perf_counter() - t)
        t = time.perf_counter()
        index.top(q, 100)
        top_t.append(time.perf_counter() - t)
    after = proc.memory_full_info()
    print(json.dumps({
        "load_s": load_s,
        "all_ms": 1000 * statistics.median(all_t),
        "top100_ms": 1000 * statistics.median(top_t),
        "rss_load_mb": (loaded.rss - before.rss) / 2**20,
        "rss_mb": (after.rss - before.rss) / 2**20,
        "uss_mb": (after.uss - before.uss) / 2**20,
        "pss_mb": (after.pss - before.pss) / 2**20,
    }), flush=True)
    sys.stdin.read()


def mapped_pss(pid: int, folder: Path) -> float:
    import psutil

    root = str(folder)
    return sum(m.pss for m in psutil.Process(pid).memory_maps(grouped=True) if m.path.startswith(root)) / 2**20


def measure_loaded(backend: str, layout: str, folder: Path, queries_file: Path) -> dict[str, float]:
    """Two fresh processes load the same index; the first one's figures, plus how much of the
    index's mapped files each is charged (PSS) once both hold it."""
    cmd = [sys.executable, "-P", __file__, "--child", backend, layout, str(folder), str(queries_file)]
    first = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO)
    res = json.loads(first.stdout.readline())
    res["mapped_pss_1proc_mb"] = mapped_pss(first.pid, folder)
    second = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO)
    second.stdout.readline()
    res["mapped_pss_2proc_mb"] = mapped_pss(first.pid, folder)
    for p in (first, second):
        p.stdin.close()
        p.wait()
    return res


# ----------------------------------------------------------------------------- main


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument("--n", type=int, default=50_000, help="synthetic documents for speed and memory")
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "lakeboard-bench-bm25")
    ap.add_argument("--skip-quality", action="store_true")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        backend, layout, folder, queries = args.child
        child(backend, layout, Path(folder), Path(queries))
        return

    work = Path(tempfile.mkdtemp(prefix="bench-bm25-"))
    try:
        real: list[Doc] = []
        if not args.skip_quality:
            print("Quality on the four real lakes (macro over tasks; all-document scores, ranked)")
            header = f"{'lake':<11}{'index':<18}" + "".join(f"{c:>8}" for c in ("R@1", "R@10", "F1@1", "F1@3", "MRR")) + "  same top-10"
            print(header)
            macro: dict[str, list[dict[str, float]]] = {}
            for name, lake, workload in lakes(args.shared):
                res = quality(name, lake, workload, args.cache, work)
                meta = res.pop("_meta")
                for key, row in res.items():
                    macro.setdefault(key, []).append(row)
                    print(f"{name:<11}{key:<18}" + "".join(f"{row[c]:>8.3f}" for c in ("R@1", "R@10", "F1@1", "F1@3", "MRR"))
                          + f"{row['same top-10']:>13.2f}")
                print(f"{'':<11}({meta['files']} files, {meta['tasks']} tasks)")
            for key, rows in macro.items():
                print(f"{'macro':<11}{key:<18}" + "".join(f"{statistics.fmean(r[c] for r in rows):>8.3f}" for c in ("R@1", "R@10", "F1@1", "F1@3", "MRR")))
        for name, lake, _ in lakes(args.shared):
            real += documents(lake, args.cache / name)

        docs = synthetic(real, args.n)
        queries = synthetic_queries(args.shared, QUERIES_AT_SCALE)
        qfile = work / "queries.json"
        qfile.write_text(json.dumps(queries))
        mean_terms = statistics.fmean(sum(len(v) for v in d.fields.values()) for d in docs)
        print(f"\nSpeed and memory: {args.n} synthetic documents from {len(real)} real ones "
              f"({mean_terms:.0f} terms each on average), {len(queries)} queries")
        print(f"{'index':<18}{'build s':>9}{'disk MB':>9}{'load ms':>9}{'all ms':>9}{'top100 ms':>10}"
              f"{'RSS MB':>8}{'USS MB':>8}{'PSS MB':>8}{'map PSS 1p':>11}{'2p':>7}")
        for backend in BACKENDS:
            for layout in LAYOUTS:
                key = f"{backend}/{layout}"
                folder = work / "scale" / key
                _, build_s = built(backend, layout, docs, folder)
                m = measure_loaded(backend, layout, folder, qfile)
                print(f"{key:<18}{build_s:>9.1f}{folder_bytes(folder) / 2**20:>9.1f}{1000 * m['load_s']:>9.1f}"
                      f"{m['all_ms']:>9.2f}{m['top100_ms']:>10.2f}{m['rss_mb']:>8.1f}{m['uss_mb']:>8.1f}"
                      f"{m['pss_mb']:>8.1f}{m['mapped_pss_1proc_mb']:>11.1f}{m['mapped_pss_2proc_mb']:>7.1f}", flush=True)
                shutil.rmtree(folder)
        print("all ms: scores of every document; RSS/USS/PSS: added by loading and querying, in a fresh process;"
              "\nmap PSS: the index's mapped files charged to the process, alone (1p) and with a second process holding it (2p)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
