"""Fan-out benchmark: blackboard broadcast to N real MCP helpers vs calling them in turn.

    python benchmarks/bench_fanout.py [--sizes 1,8,32,64] [--posts 5] [--delay-ms 200]

For each N, starts N toy helper servers over stdio (tests/support/toy_helper.py), whose
`can_help` and `respond` each sleep `--delay-ms`. Starting them is not measured. Then:

- broadcast: the `can_help` round of `Blackboard.post(..., max_responders=N)`, which
  asks every helper at once and waits for every decision before any `respond`: wall
  time until the last decision arrived; median over `--posts` posts. `respond round`
  is the rest of that posting (every volunteer responding at once);
- post: a default posting (each volunteer responds as soon as it decided), median;
- sequential: the master-slave baseline over the same open sessions: can_help then
  respond on each helper, one after another.

Target (issue 3): broadcast at the largest N <= 1.25 x delay + 50 ms (300 ms at 200 ms).
Prints a table and PASS/FAIL; exits 1 on FAIL. `--json FILE` also writes the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lakeboard.host.blackboard import Blackboard  # noqa: E402
from lakeboard.host.pool import ClientPool  # noqa: E402
from lakeboard.host.servers_config import parse_entry  # noqa: E402
from lakeboard.schemas.board import Posting  # noqa: E402
from lakeboard.schemas.messages import BlackboardRequest  # noqa: E402
from tests.support.servers import toy_entry  # noqa: E402


def target_ms(delay_ms: float) -> float:
    return 1.25 * delay_ms + 50.0


def check(posting: Posting, n: int) -> Posting:
    if posting.errors or len(posting.responses) != n:
        raise SystemExit(f"a post at N={n} lost helpers: {[(o.helper, o.error) for o in posting.errors]}")
    return posting


async def measure(n: int, posts: int, delay_ms: float, sequential_runs: int, log_dir: Path) -> dict:
    servers = {
        f"h{i:02d}": parse_entry(f"h{i:02d}", toy_entry(f"h{i:02d}", "--delay-ms", f"{delay_ms:g}")) for i in range(n)
    }
    started = time.monotonic()
    async with ClientPool(servers, connect_timeout_s=300, log_dir=log_dir) as pool:
        start_s = time.monotonic() - started
        down = [name for name, s in pool.status().items() if s.state != "ready"]
        if down:
            raise SystemExit(f"{len(down)} of {n} helpers did not start: {', '.join(down[:5])}; see {log_dir}")
        timeout_s = max(10.0, delay_ms / 1000 * 10)
        board = Blackboard(pool, can_help_timeout_s=timeout_s, respond_timeout_s=timeout_s)
        await board.post(BlackboardRequest(request="warm up"))  # first calls pay one-off costs

        broadcast, respond_round, post, host_cpu = [], [], [], []
        for i in range(posts):
            request = BlackboardRequest(request=f"monthly sales, run {i}", reason="benchmark")
            cpu = time.process_time()
            two_rounds = check(await board.post(request, max_responders=n), n)
            host_cpu.append(time.process_time() - cpu)
            broadcast.append(two_rounds.can_help_phase_s)
            respond_round.append(two_rounds.elapsed_s - two_rounds.can_help_phase_s)
            post.append(check(await board.post(request), n).elapsed_s)

        sequential = []
        request = BlackboardRequest(request="monthly sales, sequential").tool_arguments()
        for _ in range(sequential_runs):
            t0 = time.monotonic()
            for name in pool.helpers:
                decision = await pool.call(name, "can_help", request, timeout_s=timeout_s)
                if decision.structured and decision.structured.get("can_help"):
                    await pool.call(name, "respond", request, timeout_s=timeout_s)
            sequential.append(time.monotonic() - t0)

    return {
        "n": n,
        "start_s": start_s,
        "broadcast_ms": statistics.median(broadcast) * 1000,
        "broadcast_max_ms": max(broadcast) * 1000,
        "respond_round_ms": statistics.median(respond_round) * 1000,
        "host_cpu_ms": statistics.median(host_cpu) * 1000,
        "post_ms": statistics.median(post) * 1000,
        "sequential_ms": statistics.median(sequential) * 1000,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1,8,32,64", help="comma-separated helper counts")
    parser.add_argument("--posts", type=int, default=5, help="posts per size (median reported)")
    parser.add_argument("--delay-ms", type=float, default=200.0, help="each tool call's sleep in the helpers")
    parser.add_argument("--sequential-runs", type=int, default=1, help="sequential passes per size (median)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)

    rows = []
    with tempfile.TemporaryDirectory(prefix="lakeboard-fanout-") as tmp:
        for n in sizes:
            print(f"N={n}: starting {n} helpers...", file=sys.stderr, flush=True)
            rows.append(
                asyncio.run(measure(n, args.posts, args.delay_ms, args.sequential_runs, Path(tmp) / f"logs-{n}"))
            )

    limit = target_ms(args.delay_ms)
    print(
        f"\nFan-out to N helpers, each taking {args.delay_ms:g} ms per call (load avg {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores)"
    )
    header = (
        f"{'N':>4} {'start s':>8} {'broadcast ms':>13} {'(max)':>7} {'respond round':>14} "
        f"{'host CPU ms':>12} {'post ms':>9} {'sequential ms':>14} {'speedup':>8}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        speedup = r["sequential_ms"] / r["post_ms"] if r["post_ms"] else float("nan")
        print(
            f"{r['n']:>4} {r['start_s']:>8.1f} {r['broadcast_ms']:>13.0f} {r['broadcast_max_ms']:>7.0f} "
            f"{r['respond_round_ms']:>14.0f} {r['host_cpu_ms']:>12.0f} {r['post_ms']:>9.0f} {r['sequential_ms']:>14.0f} {speedup:>7.1f}x"
        )
    print(
        "broadcast = can_help round to all helpers at once (wall, median); respond round = all volunteers at once;\n"
        "host CPU = the host process's CPU time for both rounds (the rest of the overhead is the helpers' own CPU);\n"
        "post = a default posting (each volunteer responds as soon as it decided); sequential = one helper after another"
    )

    largest = max(rows, key=lambda r: r["n"])
    ok = largest["broadcast_ms"] <= limit
    verdict = "PASS" if ok else "FAIL"
    print(
        f"{verdict}: broadcast at N={largest['n']} is {largest['broadcast_ms']:.0f} ms (target <= {limit:.0f} ms = 1.25 x {args.delay_ms:g} + 50)"
    )
    if args.json:
        args.json.write_text(
            json.dumps({"delay_ms": args.delay_ms, "target_ms": limit, "rows": rows, "pass": ok}, indent=2)
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
