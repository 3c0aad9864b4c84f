"""Kernel server benchmark: warm round trip of a trivial cell over MCP, and kernel cold start.

    python benchmarks/bench_kernel.py [--calls 300] [--restarts 5] [--servers 3] [--unsafe-no-sandbox]

Starts the real kernel server (`python -m lakeboard.servers.kernel`, sandboxed by bubblewrap unless
`--unsafe-no-sandbox`) over stdio with fastmcp's Client, on a throwaway lake and workdir.

- round trip: `execute("1")` through MCP, client-side wall time, after 20 warm-up calls;
  p50 / p95 / mean over `--calls`, plus the part spent inside the server (duration_s);
- kernel cold start: the `restart` tool's startup_s (kill, spawn bwrap + ipykernel, until
  the kernel answers kernel_info on shell and IOPub); median and max over `--restarts`;
- first result: from spawning the server process to the first cell's result (Python and
  server start-up, MCP handshake, sandbox probe and kernel cold start), median over `--servers`.

Targets (issue 4): round trip p50 <= 20 ms; kernel cold start <= 3 s (median).
Prints the figures and PASS/FAIL; exits 1 on FAIL. `--json FILE` also writes the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from fastmcp import Client  # noqa: E402
from fastmcp.client.transports import StdioTransport  # noqa: E402

TARGET_P50_MS = 20.0
TARGET_COLD_S = 3.0


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def client_for(lake: Path, workdir: Path, unsafe: bool, log: Path) -> Client:
    args = ["-P", "-m", "lakeboard.servers.kernel", "--lake", str(lake), "--workdir", str(workdir)]
    if unsafe:
        args.append("--unsafe-no-sandbox")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(workdir), "PYTHONPATH": str(REPO)}
    transport = StdioTransport(sys.executable, args, env=env, cwd=str(REPO), keep_alive=False,
                               log_file=log)
    return Client(transport, timeout=120)


async def first_result(lake: Path, workdir: Path, unsafe: bool, log: Path) -> float:
    started = time.perf_counter()
    async with client_for(lake, workdir, unsafe, log) as client:
        result = await client.call_tool("execute", {"code": "1"})
        elapsed = time.perf_counter() - started
        assert result.structured_content["result"] == "1", result.structured_content
    return elapsed


async def warm_and_restarts(lake: Path, workdir: Path, unsafe: bool, calls: int, restarts: int,
                            log: Path) -> dict:
    async with client_for(lake, workdir, unsafe, log) as client:
        for _ in range(20):
            await client.call_tool("execute", {"code": "1"})
        wall: list[float] = []
        inside: list[float] = []
        for _ in range(calls):
            started = time.perf_counter()
            result = await client.call_tool("execute", {"code": "1"})
            wall.append((time.perf_counter() - started) * 1000)
            inside.append(result.structured_content["duration_s"] * 1000)
        sandboxed = result.structured_content["sandboxed"]
        cold: list[float] = []
        for _ in range(restarts):
            action = await client.call_tool("restart", {})
            cold.append(action.structured_content["startup_s"])
        check = await client.call_tool("execute", {"code": "40 + 2"})
        assert check.structured_content["result"] == "42"
    return {
        "sandboxed": sandboxed,
        "calls": calls,
        "round_trip_ms": {"p50": percentile(wall, 0.5), "p95": percentile(wall, 0.95),
                          "mean": statistics.fmean(wall)},
        "inside_server_ms": {"p50": percentile(inside, 0.5), "p95": percentile(inside, 0.95)},
        "kernel_cold_start_s": {"median": statistics.median(cold), "max": max(cold), "runs": cold},
    }


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--restarts", type=int, default=5)
    parser.add_argument("--servers", type=int, default=3, help="fresh servers for the first-result figure")
    parser.add_argument("--unsafe-no-sandbox", action="store_true", help="measure without bubblewrap")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="lakeboard-bench-kernel-") as tmp:
        root = Path(tmp)
        lake, workdir = root / "lake", root / "work"
        lake.mkdir()
        workdir.mkdir()
        (lake / "data.csv").write_text("a,b\n1,2\n")
        log = root / "server.log"
        try:
            figures = await warm_and_restarts(lake, workdir, args.unsafe_no_sandbox, args.calls, args.restarts, log)
            firsts = [await first_result(lake, workdir, args.unsafe_no_sandbox, log) for _ in range(args.servers)]
        except Exception:
            sys.stderr.write(log.read_text()[-3000:] if log.exists() else "")
            raise
    figures["first_result_s"] = {"median": statistics.median(firsts), "runs": firsts}

    rt, cold = figures["round_trip_ms"], figures["kernel_cold_start_s"]
    inside = figures["inside_server_ms"]
    mode = "sandboxed (bubblewrap)" if figures["sandboxed"] else "UNSANDBOXED"
    print(f"kernel server, {mode}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    print(f"round trip execute('1') over MCP stdio, warm, {args.calls} calls:")
    print(f"  p50 {rt['p50']:.1f} ms   p95 {rt['p95']:.1f} ms   mean {rt['mean']:.1f} ms"
          f"   (inside the server: p50 {inside['p50']:.1f} ms, p95 {inside['p95']:.1f} ms)")
    print(f"kernel cold start (restart -> ready), {args.restarts} runs:")
    print(f"  median {cold['median']:.2f} s   max {cold['max']:.2f} s")
    print(f"server spawn -> first cell result, {args.servers} runs: median {figures['first_result_s']['median']:.2f} s")
    passed_rt = rt["p50"] <= TARGET_P50_MS
    passed_cold = cold["median"] <= TARGET_COLD_S
    print(f"{'PASS' if passed_rt else 'FAIL'}: round trip p50 {rt['p50']:.1f} ms <= {TARGET_P50_MS:.0f} ms")
    print(f"{'PASS' if passed_cold else 'FAIL'}: kernel cold start {cold['median']:.2f} s <= {TARGET_COLD_S:.0f} s")
    figures["targets"] = {"round_trip_p50_ms": TARGET_P50_MS, "kernel_cold_start_s": TARGET_COLD_S,
                          "passed": passed_rt and passed_cold}
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))
    return 0 if passed_rt and passed_cold else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
