"""How Lakeboard scales with the number of files: generated lakes of 1k, 10k and 50k small files.

    python benchmarks/bench_scale.py [--sizes 1000 10000 50000] [--work DIR] [--keep] [--method]

The lakes are the many-folders lake of `make_folders_lake.py` with its counts scaled to the
size asked for (item folders, dated series, per-place and per-id files, department folders).
For each size:
- `lakeboard index` into an empty config folder, timed; then again over the unchanged lake;
- the config folder's size, in bytes and beside the lake's;
- `lakeboard discover` in a fresh process, its first question (host and every helper start cold);
- `lakeboard serve` over stdio through a fastmcp client: a first `request_help` (the warm-up),
  the idle memory of the gateway and every process under it (summed PSS), then 20 more
  questions, whose median time is the warm p50. The gateway checks the lake for changes at
  most every 5 s before a request (its default), as a user's would.
The questions are made from the generator's own words (towns, sites, vessels, sensors,
department topics, years), so files match them. With --method, each also says how to work on
the data in two more sentences, as long questions do: the host then embeds each sentence too.

Everything is written under --work (default: a temporary folder), never into the repository;
the lakes and configs are deleted afterwards unless --keep. Prints the table of issue 26 item 9,
then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks import make_folders_lake  # noqa: E402
from benchmarks.bench_first_broadcast import _trace_events, cold_run, group_memory  # noqa: E402

WARM_QUESTIONS = 20
IDLE_S = 2.0
START_WAIT_S = 600.0
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]


# ------------------------------------------------------------------------------ lakes


def spec_for(n_files: int) -> dict:
    """The many-folders spec with its counts scaled so the lake holds about `n_files` files."""
    base = make_folders_lake.SPEC
    fixed = 2 + 24 + 120  # README, dictionary, inspections, energy: the same at any size
    scaled = ("vessels", "sites", "towns", "sensors", "units")
    per_item = {"vessels": 2, "sites": 2, "towns": 1, "sensors": 1, "units": 3.1}  # files each
    log_years = max(1, min(24, round(base["log_years"] * n_files / 1500)))  # at most 2001-2024
    variable = sum(base[k] * per_item[k] for k in scaled)
    factor = max(0.05, (n_files - fixed - 24 * log_years) / variable)
    return {**base, **{k: max(1, round(base[k] * factor)) for k in scaled}, "log_years": log_years,
            "target_files": n_files}


def lake_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and p.name != make_folders_lake.MARKER)


def folder_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and not p.is_symlink())


METHOD = " Then drop the rows with missing values and sort what is left by date. Report the mean of each group."


def questions(paths: list[str], n: int, seed: int = 7, method: bool = False) -> list[str]:
    """`n` requests in the lake's own words, one template after another, each naming what some file
    holds; with `method`, each followed by sentences on how to work on it."""
    rng = random.Random(seed)
    by_kind: dict[str, list[list[str]]] = {}
    for rel in paths:
        parts = rel.split("/")
        by_kind.setdefault(parts[0], []).append(parts)

    def rainfall() -> str:
        town = rng.choice(by_kind["rainfall"])[1].removeprefix("rainfall_").removesuffix(".csv").capitalize()
        return f"daily rainfall in {town} in early 2023"

    def site() -> str:
        return f"nitrate, ph and turbidity samples at site {rng.choice(by_kind['sites'])[1]}"

    def vessel() -> str:
        return f"track and speed of vessel {rng.choice(by_kind['vessels'])[1]} in 2022"

    def sensor() -> str:
        return f"pm25 and pm10 readings of sensor {rng.choice(by_kind['sensors'])[1].removesuffix('.csv')}"

    def department() -> str:
        parts = rng.choice([p for p in by_kind["departments"] if p[-1].endswith(".csv")])
        topic, year = parts[-1].removesuffix(".csv").rsplit("_", 1)
        return f"{topic} of the {parts[1]} department in {year}"

    def energy() -> str:
        return f"energy consumption in kwh and peak kw in {rng.choice(MONTHS)} {rng.randint(2015, 2024)}"

    def inspection() -> str:
        return f"outcomes of food and housing inspections in {rng.randint(2001, 2024)}"

    def logs() -> str:
        year, month = rng.choice(by_kind["logs"])[1:3]
        return f"error events of the payroll system in {MONTHS[int(month) - 1]} {year}"

    templates = [rainfall, department, site, vessel, sensor, energy, department, inspection, logs, rainfall]
    asked: dict[str, None] = {}  # distinct: a repeated request would measure a cache, if one ever exists
    for i in range(n):
        for _ in range(100):
            request = templates[i % len(templates)]()
            if request not in asked:
                break
        asked[request] = None
    return [f"{r[:1].upper()}{r[1:]}.{METHOD}" if method else r for r in asked]


# ------------------------------------------------------------------------------ measures


def timed_index(lake: Path, out: Path, name: str) -> float:
    """`lakeboard index` in its own process, as a user runs it; its wall time."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-P", "-m", "lakeboard.host.cli", "index", str(lake), "--out", str(out),
                    "--name", name, "--quiet"], check=True, cwd=REPO, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


async def _all_helpers_started(trace: Path, seen: int) -> None:
    """Wait until every helper of the gateway's first post has started (read from its trace)."""
    deadline = time.monotonic() + START_WAIT_S
    while time.monotonic() < deadline:
        events = _trace_events(trace, seen)
        helpers = next((set(e["data"]["helpers"]) for e in events if e["kind"] == "post"), set())
        if helpers <= {e["server"] for e in events if e["kind"] == "server_started"}:
            return
        await asyncio.sleep(0.5)
    raise TimeoutError(f"helpers of the gateway were not all started after {START_WAIT_S:g} s")


async def gateway_session(config: Path, asked: list[str]) -> dict:
    """`lakeboard serve` over stdio: the first answer, idle PSS of the gateway and its tree, then timed answers."""
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    transport = StdioTransport(sys.executable, ["-P", "-m", "lakeboard.host.cli", "serve", str(config)],
                               env=dict(os.environ), cwd=str(REPO), keep_alive=False)
    trace = config / "traces" / "gateway.jsonl"
    seen = len(_trace_events(trace, 0))
    times, boards = [], []
    async with Client(transport, mode="legacy", timeout=600) as client:
        start = time.perf_counter()
        first = (await client.call_tool("request_help", {"request": asked[0]})).structured_content
        first_s = time.perf_counter() - start
        await _all_helpers_started(trace, seen)  # on a large lake some are still starting after the first answer
        all_started_s = time.perf_counter() - start
        await asyncio.sleep(IDLE_S)
        (gateway,) = [p for p in psutil.Process().children() if "serve" in p.cmdline()]
        tree = [gateway, *gateway.children(recursive=True)]
        memory = group_memory(tree)
        for request in asked[1:]:
            t0 = time.perf_counter()
            boards.append((await client.call_tool("request_help", {"request": request})).structured_content)
            times.append(time.perf_counter() - t0)
    failures = [f"question {i}: {f['helper']} {f['kind']} in {f['phase']}: {f['message'][:160]}"
                for i, b in enumerate([first, *boards]) for f in b["failed"] + b["timed_out"]]
    return {"first_s": first_s, "all_started_s": all_started_s, "times_s": times,
            "p50_ms": statistics.median(times) * 1000,
            "board_p50_ms": statistics.median(b["elapsed_s"] for b in boards) * 1000,
            "first_files": len(first["files"]),
            "max_ms": max(times) * 1000, "answered_with_files": sum(bool(b["files"]) for b in boards),
            "files_per_answer": statistics.median(len(b["files"]) for b in boards), "failures": failures,
            "processes": len(tree), "pss": sum(memory["pss"]), "rss": sum(memory["rss"]),
            "resident": memory["together"] if memory["by_pages"] else None}


def measure(n_files: int, work: Path, keep: bool, log, method: bool = False) -> dict:
    spec = spec_for(n_files)
    lake, out, name = work / f"lake-{n_files}", work / f"configs-{n_files}", f"scale-{n_files}"
    t0 = time.perf_counter()
    paths = list(make_folders_lake.plan(spec))
    make_folders_lake.generate(lake, spec, log=lambda _: None)
    size = lake_bytes(lake)
    log(f"[{n_files}] generated {len(paths)} files, {size / 1e6:.0f} MB in {time.perf_counter() - t0:.0f} s at {lake}")
    asked = questions(paths, WARM_QUESTIONS + 1, method=method)
    try:
        shutil.rmtree(out, ignore_errors=True)  # a fresh index: no profile cache, no config,
        shutil.rmtree(work / "home" / "cache", ignore_errors=True)  # and no card vectors of an earlier run
        index_s = timed_index(lake, out, name)
        reindex_s = timed_index(lake, out, name)
        config = out / name
        config_size = folder_bytes(config)
        log(f"[{n_files}] index {index_s:.1f} s, re-index {reindex_s:.1f} s, config {config_size / 1e6:.1f} MB")
        cold = cold_run(config, asked[0], work / f"discover-{n_files}.jsonl", fork=True)
        log(f"[{n_files}] cold discover {cold['wall_s']:.1f} s ({len(cold['files'])} files, "
            f"{len(cold['errors'])} helper errors)")
        warm = asyncio.run(gateway_session(config, asked))
        log(f"[{n_files}] gateway: first answer {warm['first_s']:.1f} s, warm p50 {warm['p50_ms']:.0f} ms, "
            f"idle PSS {warm['pss'] / 2**30:.2f} GB over {warm['processes']} processes")
    finally:
        if not keep:
            shutil.rmtree(out, ignore_errors=True)
            shutil.rmtree(lake, ignore_errors=True)
    return {"size": n_files, "files": len(paths), "lake_bytes": size, "index_s": index_s, "reindex_s": reindex_s,
            "config_bytes": config_size, "config_ratio": config_size / size, "cold_discover_s": cold["wall_s"],
            "cold_discover_cpu_s": cold["cpu_s"], "cold_files": len(cold["files"]),
            "cold_errors": sorted(cold["errors"]), "gateway_first_s": warm["first_s"],
            "gateway_first_files": warm["first_files"], "gateway_all_started_s": warm["all_started_s"],
            "warm_board_p50_ms": warm["board_p50_ms"],  # the broadcast alone, as the board reports it
            "warm_p50_ms": warm["p50_ms"], "warm_max_ms": warm["max_ms"],
            "warm_ms": [round(t * 1000) for t in warm["times_s"]],
            "warm_answered_with_files": warm["answered_with_files"], "warm_questions": len(warm["times_s"]),
            "warm_files_per_answer": warm["files_per_answer"], "warm_failures": warm["failures"],
            "idle_pss_bytes": warm["pss"], "idle_rss_bytes": warm["rss"], "idle_processes": warm["processes"],
            "idle_resident_bytes": warm["resident"],  # each physical page once, where /proc shows frame numbers
            "first_question": asked[0]}


# ------------------------------------------------------------------------------ report


def _label(n: int) -> str:
    return f"{n // 1000}k" if n % 1000 == 0 else str(n)


def table(rows: list[dict]) -> str:
    lines = ["| | " + " | ".join(_label(r["size"]) for r in rows) + " |", "| --- |" + " --- |" * len(rows)]

    def row(title: str, cell) -> None:
        lines.append(f"| {title} | " + " | ".join(cell(r) for r in rows) + " |")

    row("files (lake size)", lambda r: f"{r['files']:,} ({r['lake_bytes'] / 1e6:.0f} MB)")
    row("warm `request_help` p50", lambda r: f"{r['warm_p50_ms']:,.0f} ms")
    row("cold first `discover`", lambda r: f"{r['cold_discover_s']:.1f} s")
    row("idle memory, gateway and all helpers (PSS)", lambda r: f"{r['idle_pss_bytes'] / 2**30:.2f} GB")
    row("index / re-index of an unchanged lake", lambda r: f"{r['index_s']:.1f} s / {r['reindex_s']:.1f} s")
    row("config folder", lambda r: f"{r['config_bytes'] / 1e6:.1f} MB ({r['config_ratio']:.1f}x the lake)")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 50000], help="files per lake")
    ap.add_argument("--work", type=Path, help="where lakes and configs go (default: a temporary folder)")
    ap.add_argument("--keep", action="store_true", help="keep the lakes and configs")
    ap.add_argument("--method", action="store_true", help="requests of three sentences: the data, then how to work on it")
    args = ap.parse_args()
    work = (args.work or Path(tempfile.mkdtemp(prefix="lakeboard-scale-"))).resolve()
    if work.is_relative_to(REPO):
        ap.error(f"--work {work} is inside the repository; choose a folder outside it")
    work.mkdir(parents=True, exist_ok=True)
    os.environ["LAKEBOARD_HOME"] = str(work / "home")  # nothing written to the user's data folder

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    log(f"working in {work}; {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    rows = []
    try:
        for n in args.sizes:
            rows.append(measure(n, work, args.keep, log, args.method))
    finally:
        if not args.keep and args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    print(table(rows))
    for r in rows:
        print(f"{_label(r['size'])}: first question {r['first_question']!r}: cold discover returned "
              f"{r['cold_files']} files; warm answers with files {r['warm_answered_with_files']}/"
              f"{r['warm_questions']}, median {r['warm_files_per_answer']:g} files, slowest {r['warm_max_ms']:,.0f} ms; "
              f"broadcast alone p50 {r['warm_board_p50_ms']:,.0f} ms; gateway's first answer {r['gateway_first_s']:.1f} s "
              f"({r['gateway_first_files']} files), every helper started at {r['gateway_all_started_s']:.1f} s; "
              f"{r['idle_processes']} processes")
        for failure in [f"discover: {e}" for e in r["cold_errors"]] + [f"gateway {f}" for f in r["warm_failures"]]:
            print(f"  helper failure: {failure}")
    print(json.dumps({"benchmark": "scale", "cores": os.cpu_count(), "load_1min": os.getloadavg()[0], "sizes": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
