"""File-agent servers: time to first answer after start, idle memory, no torch.

Indexes a lake (default: lakes/demo), starts every file-agent server of its servers.json
over stdio, and for each reports the time from spawn to its first `can_help` answer and
its RSS once idle. Targets: first answer <= 2 s, idle RSS <= 150 MB, torch never imported.
Usage: python benchmarks/bench_file_agent.py [--lake DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import psutil
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _children_before() -> set[int]:
    return {p.pid for p in psutil.Process().children(recursive=True)}


async def measure(name: str, entry: dict) -> dict:
    before = _children_before()
    t0 = time.perf_counter()
    async with Client(StdioTransport(entry["command"], entry["args"], env=entry.get("env"))) as client:
        await client.call_tool("can_help", {"request": "population by district"})
        first = time.perf_counter() - t0
        new = [p for p in psutil.Process().children(recursive=True) if p.pid not in before]
        await asyncio.sleep(1.0)  # idle
        rss = sum(p.memory_info().rss for p in new if p.is_running()) / 2**20
        torch = any("torch" in (m.path or "") for p in new for m in p.memory_maps()) if new else False
    return {"server": name, "first_answer_s": first, "idle_rss_mb": rss, "torch_loaded": torch}


async def main_async(lake: Path) -> int:
    from lakeboard.servers.indexing import index_lake

    with tempfile.TemporaryDirectory() as tmp:
        res = index_lake(lake, out=Path(tmp))
        servers = json.loads((res.config_dir / "servers.json").read_text())["mcpServers"]
        agents = {n: e for n, e in servers.items() if "lakeboard.servers.file_agent" in e["args"]}
        rows = [await measure(n, e) for n, e in agents.items()]  # one at a time: clean timings
    print(f"{'server':40s} {'first answer':>13s} {'idle RSS':>10s} {'torch':>6s}")
    for r in rows:
        print(f"{r['server']:40s} {r['first_answer_s']:11.2f} s {r['idle_rss_mb']:7.0f} MB {str(r['torch_loaded']):>6s}")
    med_first = statistics.median(r["first_answer_s"] for r in rows)
    max_rss = max(r["idle_rss_mb"] for r in rows)
    ok = med_first <= 2.0 and max_rss <= 150 and not any(r["torch_loaded"] for r in rows)
    print(f"median first answer {med_first:.2f} s (target <= 2 s); max idle RSS {max_rss:.0f} MB (target <= 150 MB); "
          f"torch loaded: {any(r['torch_loaded'] for r in rows)} -> {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lake", type=Path, default=REPO / "lakes" / "demo")
    return asyncio.run(main_async(ap.parse_args().lake))


if __name__ == "__main__":
    sys.exit(main())
