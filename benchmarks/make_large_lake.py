"""Generate a large synthetic lake for the profiling benchmark.

    python benchmarks/make_large_lake.py DIR [--workers N]

About 1,600 files and 1.5 GB (400 MB without the big CSV): CSV (with title lines above the header and notes below the
data, many of them in monthly families), TSV, XLSX, JSON, Parquet, NPZ, text documents,
and one CSV of more than 1 GB. Files are written one at a time (the big CSV in chunks), so
memory stays small. A marker file records the spec: a second run with the same spec does
nothing; a run with another spec regenerates. A folder that is not empty and carries no
marker is never touched.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

SPEC: dict[str, int] = {
    "version": 2,
    "seed": 20241031,
    "csv_families": 40,  # x 12 monthly files
    "csv_single": 160,
    "tsv": 300,
    "xlsx": 60,
    "json": 200,
    "parquet": 200,
    "npz": 100,
    "txt": 120,
    "big_csv_bytes": 1_100_000_000,
}
MARKER = ".lakeboard-bench-lake.json"  # written last: the lake is complete
PARTIAL = ".lakeboard-bench-lake.partial"  # written first: the folder is ours to wipe

DEPARTMENTS = ["environment", "finance", "health", "transport", "housing", "education", "utilities", "planning"]
REGIONS = ["north", "south", "east", "west", "central", "harbour", "uplands", "valley"]
PRODUCTS = ["widget", "gadget", "sprocket", "gear", "valve", "pump", "sensor", "cable", "panel", "filter"]
ANALYTES = ["nitrate", "phosphate", "lead", "copper", "zinc", "arsenic", "chloride", "sulfate"]
WORDS = (
    "the report describes annual figures for each district and notes changes in method budget "
    "allocation service levels monitoring network survey response rates quality assurance and "
    "data collection procedures used by the department with reference to prior years"
).split()


# ----------------------------------------------------------------------------- tables


def _table(rng: np.random.Generator, theme: int, n: int) -> pd.DataFrame:
    """One of four column layouts, so the lake mixes unrelated schemas with shared names."""
    dates = pd.Timestamp("2018-01-01") + pd.to_timedelta(rng.integers(0, 2500, n), unit="D")
    if theme == 0:
        return pd.DataFrame(
            {
                "date": dates.strftime("%Y-%m-%d"),
                "station": rng.choice([f"ST{i:03d}" for i in range(60)], n),
                "temperature": rng.normal(12, 8, n).round(2),
                "humidity": rng.uniform(20, 100, n).round(1),
                "pressure": rng.normal(1013, 9, n).round(1),
                "wind_speed": rng.gamma(2, 2, n).round(2),
                "flag": rng.choice(["", "E", "M"], n, p=[0.9, 0.05, 0.05]),
                "value": rng.normal(50, 15, n).round(3),
            }
        )
    if theme == 1:
        qty = rng.integers(1, 50, n)
        price = rng.uniform(1, 400, n).round(2)
        return pd.DataFrame(
            {
                "id": rng.integers(1, 10_000_000, n),
                "date": dates.strftime("%Y-%m-%d"),
                "region": rng.choice(REGIONS, n),
                "product": rng.choice(PRODUCTS, n),
                "quantity": qty,
                "unit_price": price,
                "total": (qty * price).round(2),
            }
        )
    if theme == 2:
        return pd.DataFrame(
            {
                "respondent": rng.integers(100000, 999999, n),
                "district": rng.choice(REGIONS, n),
                "age": rng.integers(18, 90, n),
                "income": rng.lognormal(10.5, 0.5, n).round(0),
                "score_a": rng.integers(1, 6, n),
                "score_b": rng.integers(1, 6, n),
                "comment": rng.choice(["", "ok", "too slow", "great service", "no answer"], n),
            }
        )
    return pd.DataFrame(
        {
            "sample_id": [f"S-{x}" for x in rng.integers(10000, 99999, n)],
            "date": dates.strftime("%Y-%m-%d"),
            "site": rng.choice([f"W{i:02d}" for i in range(40)], n),
            "analyte": rng.choice(ANALYTES, n),
            "value": rng.lognormal(0, 1, n).round(4),
            "unit": "mg/L",
            "lod": rng.choice([0.01, 0.05, 0.1], n),
        }
    )


def _with_notes(rng: np.random.Generator, body: str, title: str) -> str:
    """0-3 title lines above the header; notes below the data in most files."""
    lines = [title, f"Extracted {int(rng.integers(2019, 2025))}-0{int(rng.integers(1, 10))}-15 by the data office", ""]
    n = int(rng.integers(0, 4))
    head = "\n".join(lines[:n]) + "\n" if n else ""
    notes = "\nNotes:\n(1) Provisional figures.\n(2) Source: departmental records.\n" if rng.random() < 0.6 else ""
    return head + body + notes


def _document(rng: np.random.Generator, n_words: int) -> str:
    words = rng.choice(WORDS, n_words)
    lines = [" ".join(words[i : i + 14]).capitalize() + "." for i in range(0, n_words, 14)]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------ files


def _plan(spec: dict[str, int]) -> list[tuple[str, str, int]]:
    """(kind, relative path, per-file seed) for every small file."""
    jobs: list[tuple[str, str, int]] = []

    def add(kind: str, rel: str) -> None:
        jobs.append((kind, rel, spec["seed"] * 10_000 + len(jobs) + 1))

    for f in range(spec["csv_families"]):
        dept = DEPARTMENTS[f % len(DEPARTMENTS)]
        for m in range(1, 13):
            add("csv", f"{dept}/series_{f:03d}/observations_2023-{m:02d}.csv")
    # (kind, spec key, path): the i-th file of a kind goes to the (i mod 8)-th department or region.
    for kind, key, pattern in (
        ("csv", "csv_single", "{dept}/tables/table_{i:04d}.csv"),
        ("tsv", "tsv", "exports/{region}/export_{i:04d}.tsv"),
        ("xlsx", "xlsx", "{dept}/workbooks/workbook_{i:03d}.xlsx"),
        ("json", "json", "api_dumps/{region}/records_{i:04d}.json"),
        ("parquet", "parquet", "warehouse/{dept}/part_{i:04d}.parquet"),
        ("npz", "npz", "grids/{region}/grid_{i:03d}.npz"),
        ("txt", "txt", "docs/{dept}/note_{i:03d}.txt"),
    ):
        for i in range(spec[key]):
            add(kind, pattern.format(i=i, dept=DEPARTMENTS[i % 8], region=REGIONS[i % 8]))
    return jobs


def _write_one(root: str, kind: str, rel: str, seed: int) -> int:
    rng = np.random.default_rng(seed)
    path = Path(root) / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    theme = int(rng.integers(0, 4))
    if kind == "csv":
        df = _table(rng, theme, int(rng.integers(3000, 7000)))
        path.write_text(_with_notes(rng, df.to_csv(index=False, lineterminator="\n"), f"Table {rel}"))
    elif kind == "tsv":
        df = _table(rng, theme, int(rng.integers(2500, 5000)))
        path.write_text(df.to_csv(index=False, sep="\t", lineterminator="\n"))
    elif kind == "xlsx":
        from openpyxl import Workbook

        wb = Workbook(write_only=True)
        for s in range(int(rng.integers(1, 4))):
            ws = wb.create_sheet(f"Sheet{s + 1}")
            df = _table(rng, int(rng.integers(0, 4)), int(rng.integers(300, 900)))
            for _ in range(int(rng.integers(0, 4))):  # header offset
                ws.append([f"Workbook {rel}"] if rng.random() < 0.5 else [])
            ws.append(list(df.columns))
            for row in df.itertuples(index=False):
                ws.append([v.item() if hasattr(v, "item") else v for v in row])
        wb.save(path)
    elif kind == "json":
        df = _table(rng, theme, int(rng.integers(1000, 2000)))
        records = df.to_json(orient="records")
        if rng.random() < 0.5:
            path.write_text(records)
        else:
            path.write_text('{"source": "api", "page": 1, "records": ' + records + "}")
    elif kind == "parquet":
        df = _table(rng, theme, int(rng.integers(25000, 45000)))
        df.to_parquet(path, index=False)
    elif kind == "npz":
        n = int(rng.integers(150, 230))
        np.savez(path, grid=rng.normal(0, 1, (n, n)), lat=np.linspace(40, 41, n), lon=np.linspace(-3, -2, n), time=np.arange(n))
    elif kind == "txt":
        path.write_text(_document(rng, int(rng.integers(600, 1800))))
    else:
        raise ValueError(kind)
    return path.stat().st_size


def _write_big_csv(path: Path, target_bytes: int, seed: int) -> int:
    """Stream a > 1 GB CSV: a few distinct chunks written in turn, so memory stays at one chunk."""
    rng = np.random.default_rng(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    chunks = []
    for i in range(4):
        df = _table(rng, 1, 150_000)
        chunks.append(df.to_csv(index=False, header=False, lineterminator="\n").encode())
    written = 0
    with path.open("wb", buffering=8 << 20) as f:
        written += f.write(b"Full transaction export, all regions\nGenerated by the finance data warehouse\n\n")
        written += f.write(b"id,date,region,product,quantity,unit_price,total\n")
        i = 0
        while written < target_bytes:
            written += f.write(chunks[i % len(chunks)])
            i += 1
        written += f.write(b"\nEnd of export. Totals are not audited.\n")
    return written


def _read_marker(root: Path, name: str) -> dict | None:
    try:
        return json.loads((root / name).read_text())
    except (OSError, ValueError):
        return None


def generate(root: Path, spec: dict[str, int] = SPEC, workers: int | None = None, log=print) -> dict:
    """Make sure `root` holds the lake for `spec`; return a summary (files, bytes, seconds, skipped)."""
    root = root.resolve()
    if _read_marker(root, MARKER) == spec:
        files = [p for p in root.rglob("*") if p.is_file() and not p.name.startswith(".lakeboard-bench")]
        log(f"lake already generated with this spec at {root}: skipping")
        return {"files": len(files), "bytes": sum(p.stat().st_size for p in files), "seconds": 0.0, "skipped": True}
    if root.exists() and any(root.iterdir()):
        if _read_marker(root, MARKER) is None and _read_marker(root, PARTIAL) is None:
            raise SystemExit(f"{root} is not empty and was not made by this script; choose an empty or new folder.")
        log(f"regenerating {root} (spec changed or an earlier run was interrupted)")
        shutil.rmtree(root)
    root.mkdir(parents=True, exist_ok=True)
    (root / PARTIAL).write_text(json.dumps(spec))
    t0 = time.perf_counter()
    jobs = _plan(spec)
    total = 0
    workers = workers or max(1, min(4, os.cpu_count() or 1))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        big = pool.submit(_write_big_csv, root / "finance/exports/transactions_full_export.csv", spec["big_csv_bytes"], spec["seed"])
        futures = [pool.submit(_write_one, str(root), *job) for job in jobs]
        for i, fut in enumerate(futures, 1):
            total += fut.result()
            if i % 250 == 0:
                log(f"  {i}/{len(jobs)} small files")
        total += big.result()
    tmp = root / (MARKER + ".tmp")
    tmp.write_text(json.dumps(spec))
    os.replace(tmp, root / MARKER)
    (root / PARTIAL).unlink()
    secs = time.perf_counter() - t0
    log(f"wrote {len(jobs) + 1} files, {total / 1e6:.0f} MB in {secs:.1f} s to {root}")
    return {"files": len(jobs) + 1, "bytes": total, "seconds": secs, "skipped": False}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Generate the large benchmark lake (idempotent).")
    ap.add_argument("dir", type=Path)
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args(argv)
    generate(args.dir, workers=args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
