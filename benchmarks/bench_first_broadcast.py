"""Time to first broadcast and idle memory of every helper server of a lake.

The lake is indexed first (not timed). Then, cold (every server just started):
- `lakeboard discover CONFIG "request" --json` runs as a fresh process a few times; the
  median wall time covers starting the host and every helper server over stdio, the
  broadcast and the answer. The CPU seconds of the process tree say how much of it is work
  rather than waiting for a busy machine.
- once more in this process (the same pool, board and discovery as the CLI), after which
  the servers stay up idle and the memory of every server process is measured: the
  group's resident set (each physical page once), and summed RSS and PSS.
Targets on this 2-core machine: at most 16 file-agent servers, median time to the first
broadcast answered <= 5 s, idle RSS of all servers together <= 1.5 GB.

    python benchmarks/bench_first_broadcast.py [--lake DIR | --generated] [--runs 3] [--request TEXT] [--no-fork]
                                               [--gateway]

`--no-fork` starts every server on its own (LAKEBOARD_FORK_SERVERS=0), for comparison with
the servers forked from one fork server (the default).

`--gateway` measures the path MCP clients take instead: `lakeboard serve CONFIG` started over
stdio as a client starts it, timed from its start to the first `request_help` answered; the
idle memory is that of the servers under the last run's gateway (its helpers and fork server).

Default lake: the KramaBench legal lake (../shared/kramabench). `--generated` builds the
many-folders lake of `make_folders_lake.py` (~1,500 small files in hundreds of folders)
in a temporary folder.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
LEGAL_REQUEST = "number of identity theft reports by state in 2024"
GENERATED_REQUEST = "daily rainfall per town in 2023"
MAX_SERVERS, MAX_SECONDS, MAX_RSS_GB = 16, 5.0, 1.5
PAGE = os.sysconf("SC_PAGE_SIZE")
PFN_MASK = (1 << 55) - 1


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cold_run(config: Path, request: str, trace: Path, fork: bool) -> dict:
    """One `lakeboard discover` in a fresh process: wall time, CPU of its tree, failures."""
    env = {**os.environ, "LAKEBOARD_FORK_SERVERS": "1" if fork else "0"}
    cpu0, t0 = _children_cpu_s(), time.perf_counter()
    out = subprocess.run([sys.executable, "-P", "-m", "lakeboard.host.cli", "discover", str(config), request, "--json",
                          "--trace", str(trace)], check=True, cwd=REPO, capture_output=True, text=True,
                         env=env).stdout
    wall, cpu = time.perf_counter() - t0, _children_cpu_s() - cpu0
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    started = [e["elapsed_s"] for e in events if e["kind"] == "server_started"]
    posting = next(e for e in events if e["kind"] == "posting")
    return {"wall_s": wall, "cpu_s": cpu, "files": json.loads(out)["files"], "errors": posting["data"]["errors"],
            "last_start_s": max(started, default=0.0), "broadcast_s": posting["elapsed_s"]}


def _trace_events(path: Path, skip: int) -> list[dict]:
    lines = path.read_text().splitlines() if path.is_file() else []
    return [json.loads(line) for line in lines[skip:] if line.strip()]


async def gateway_run(config: Path, request: str, fork: bool, measure: bool, idle_s: float = 2.0) -> dict:
    """One `lakeboard serve` over stdio: time to its first request_help answer; idle memory when `measure`."""
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    env = {**os.environ, "LAKEBOARD_FORK_SERVERS": "1" if fork else "0"}
    transport = StdioTransport(sys.executable, ["-P", "-m", "lakeboard.host.cli", "serve", str(config)], env=env,
                               cwd=str(REPO), keep_alive=False)
    trace = config / "traces" / "gateway.jsonl"
    seen = len(_trace_events(trace, 0))
    cpu0, t0 = _children_cpu_s(), time.perf_counter()
    memory = None
    async with Client(transport, mode="legacy", timeout=300) as client:
        board = (await client.call_tool("request_help", {"request": request})).structured_content
        wall = time.perf_counter() - t0
        if measure:
            await asyncio.sleep(idle_s)
            (gateway,) = [p for p in psutil.Process().children() if "serve" in p.cmdline()]
            memory = {"errors": [], **group_memory(gateway.children(recursive=True)),
                      "gateway_rss": gateway.memory_info().rss}
    cpu = _children_cpu_s() - cpu0
    events = _trace_events(trace, seen)
    started = [e["elapsed_s"] for e in events if e["kind"] == "server_started"]
    failures = board["failed"] + board["timed_out"] + board.get("skipped", [])
    return {"wall_s": wall, "cpu_s": cpu, "files": board["files"], "errors": {f["helper"]: f["kind"] for f in failures},
            "last_start_s": max(started, default=0.0), "broadcast_s": board["elapsed_s"], "memory": memory}


def _resident_pages(pid: int) -> set[int] | None:
    """The physical pages (frame numbers) resident in a process; None where the kernel hides them."""
    pages: set[int] = set()
    try:
        maps = Path(f"/proc/{pid}/maps").read_text().splitlines()
        fd = os.open(f"/proc/{pid}/pagemap", os.O_RDONLY)
    except OSError:
        return None
    try:
        for line in maps:
            start, end = (int(x, 16) for x in line.split()[0].split("-"))
            if end > 1 << 47:
                continue  # [vsyscall]: not in the pagemap
            data = os.pread(fd, (end - start) // PAGE * 8, start // PAGE * 8)
            for (entry,) in struct.iter_unpack("Q", data):
                if entry >> 63:  # present in memory
                    pages.add(entry & PFN_MASK)
    except OSError:
        return None
    finally:
        os.close(fd)
    if pages == {0}:
        return None  # frame numbers are shown only to a privileged reader
    return pages


def group_memory(processes: list[psutil.Process]) -> dict:
    """Memory of a group of processes: summed RSS and PSS, and the group's own resident set.

    Forked servers share the pages of the process they were forked from, so each one's RSS
    counts them again; the group's resident set counts every physical page once. Without
    the privilege to read frame numbers, the summed PSS (shared pages divided among their
    sharers) stands in for it.
    """
    rss, pss, uss, union, readable = [], [], [], set(), True
    for p in processes:
        try:
            info = p.memory_full_info()
        except psutil.NoSuchProcess:
            continue
        rss.append(info.rss)
        pss.append(info.pss)
        uss.append(info.uss)
        pages = _resident_pages(p.pid) if readable else None
        if pages is None:
            readable = False
        else:
            union |= pages
    together = len(union) * PAGE if readable else sum(pss)
    return {"rss": rss, "pss": pss, "uss": uss, "together": together, "by_pages": readable}


async def idle_memory(config: Path, request: str, fork: bool, idle_s: float = 2.0) -> dict:
    """Start every helper, answer one request, wait idle, then measure every server process."""
    from lakeboard.host.blackboard import Blackboard
    from lakeboard.host.discover_files import discover
    from lakeboard.host.lakes import resolve_lake
    from lakeboard.host.pool import ClientPool

    lake = resolve_lake(config)
    me = psutil.Process()
    async with ClientPool(lake.servers(helpers_only=True), log_dir=config / "logs", fork_servers=fork) as pool:
        result = await discover(Blackboard(pool, can_help_timeout_s=60, respond_timeout_s=60), request)
        await asyncio.sleep(idle_s)
        memory = group_memory(me.children(recursive=True))
    return {"errors": result.errors, **memory}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--lake", type=Path, default=REPO.parent / "shared" / "kramabench" / "legal" / "input")
    where.add_argument("--generated", action="store_true", help="the many-folders lake of make_folders_lake.py")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--request", default=None)
    ap.add_argument("--no-fork", action="store_true", help="start every server on its own")
    ap.add_argument("--gateway", action="store_true", help="time `lakeboard serve` over stdio instead of `discover`")
    args = ap.parse_args()
    request = args.request or (GENERATED_REQUEST if args.generated else LEGAL_REQUEST)
    with tempfile.TemporaryDirectory() as tmp:
        lake = args.lake
        if args.generated:
            from benchmarks.make_folders_lake import generate

            lake = Path(tmp) / "folders-lake"
            generate(lake, log=lambda _: None)
        subprocess.run([sys.executable, "-P", "-m", "lakeboard.servers.indexing", str(lake), "--out", tmp, "--name", "bench",
                        "--quiet"], check=True, cwd=REPO, stdout=subprocess.DEVNULL)
        config = Path(tmp) / "bench"
        from lakeboard.host.lakes import resolve_lake

        helpers = resolve_lake(config).servers(helpers_only=True).servers  # what `lakeboard discover` starts
        agents = sum("lakeboard.servers.file_agent" in (getattr(e, "args", None) or []) for e in helpers.values())
        n_files = sum(1 for p in lake.rglob("*") if p.is_file())
        n_folders = len({p.parent for p in lake.rglob("*") if p.is_file()})
        load_before = os.getloadavg()
        fork = not args.no_fork
        if args.gateway:
            runs = [asyncio.run(gateway_run(config, request, fork, measure=i == args.runs - 1))
                    for i in range(args.runs)]
            memory = runs[-1]["memory"]
        else:
            runs = [cold_run(config, request, Path(tmp) / f"trace-{i}.jsonl", fork) for i in range(args.runs)]
            memory = asyncio.run(idle_memory(config, request, fork))
        load_after = os.getloadavg()

    med = statistics.median(r["wall_s"] for r in runs)
    together_gb = memory["together"] / 2**30
    print(f"lake: {lake} ({n_files} files in {n_folders} folders); request: {request!r}")
    print("servers: " + ("forked from one fork server" if fork else "each started on its own")
          + (", under `lakeboard serve` over stdio (time to its first request_help answer)" if args.gateway
             else ", under `lakeboard discover`"))
    print(f"load average (1 min) before {load_before[0]:.1f}, after {load_after[0]:.1f} on {os.cpu_count()} cores")
    for i, r in enumerate(runs, 1):
        failed = f"; failed: {', '.join(sorted(r['errors']))}" if r["errors"] else ""
        print(f"  run {i}: {r['wall_s']:.2f} s wall, {r['cpu_s']:.1f} s CPU (host and servers); last server ready "
              f"at {r['last_start_s']:.2f} s, broadcast {r['broadcast_s']:.2f} s; first file: "
              f"{r['files'][0] if r['files'] else None}{failed}")
    cpu = statistics.median(r["cpu_s"] for r in runs)
    print(f"median CPU {cpu:.1f} s: at least {cpu / (os.cpu_count() or 1):.1f} s of wall time even on an idle machine")
    if memory["errors"]:
        print(f"  memory run: failed: {', '.join(sorted(memory['errors']))}")
    mb = [r / 2**20 for r in memory["rss"]]
    print(f"idle server processes: {len(mb)}; RSS per process: median {statistics.median(mb):.0f} MB, max "
          f"{max(mb):.0f} MB; unique (USS) per process: median {statistics.median(memory['uss']) / 2**20:.0f} MB")
    print(f"summed over processes: RSS {sum(memory['rss']) / 2**30:.2f} GB (counts shared pages once per process), "
          f"PSS {sum(memory['pss']) / 2**30:.2f} GB")
    if args.gateway:
        print(f"the gateway process itself: RSS {memory['gateway_rss'] / 2**30:.2f} GB (not counted below)")
    how = "each physical page once, from /proc/PID/pagemap" if memory["by_pages"] else "summed PSS"
    checks = [
        (f"file-agent servers: {agents} ({len(helpers)} helpers in all)", f"<= {MAX_SERVERS}", agents <= MAX_SERVERS),
        (f"median cold first broadcast: {med:.2f} s", f"<= {MAX_SECONDS:g} s", med <= MAX_SECONDS),
        (f"idle RSS of all servers together ({how}): {together_gb:.2f} GB", f"<= {MAX_RSS_GB:g} GB",
         together_gb <= MAX_RSS_GB),
    ]
    for what, target, ok in checks:
        print(f"{what} (target {target}): {'PASS' if ok else 'FAIL'}")
    return 0 if all(ok for _, _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
