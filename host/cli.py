"""`lakeboard`: index a lake, discover its data, evaluate on a workload, ask questions."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from pathlib import Path

from host.lakes import LakeError, resolve_lake, run_indexer


def _cmd_index(args: argparse.Namespace, extra: list[str]) -> int:
    try:
        run_indexer(args.lake, args.out, name=args.name, extra=extra)
    except LakeError as exc:
        print(f"lakeboard index: {exc}", file=sys.stderr)
        return 2
    return 0


async def _discover(args: argparse.Namespace) -> int:
    from host.blackboard import Blackboard
    from host.discovery import discover
    from host.pool import ClientPool
    from host.trace import Trace

    lake = resolve_lake(args.lake, configs=args.configs, reindex=args.reindex, quiet=args.json)
    trace = Trace(args.trace) if args.trace else Trace(lake.config_dir / "traces" / "discover.jsonl")
    async with ClientPool(lake.servers(helpers_only=True), trace=trace, log_dir=lake.config_dir / "logs") as pool:
        board = Blackboard(pool, trace, can_help_timeout_s=args.timeout, respond_timeout_s=args.timeout)
        result = await discover(board, args.request)
    trace.close()
    if args.json:
        print(json.dumps({"request": result.request, "responses": result.responses, "files": result.files}, indent=2))
        return 0
    _print_discovery(result)
    return 0 if result.files else 1


def _print_discovery(result) -> None:
    print(f"Request: {result.request}")
    print(f"Broadcast took {result.broadcast_s:.2f}s; volunteers: {', '.join(result.volunteers) or 'none'}")
    for helper, err in result.errors.items():
        print(f"  ! {helper}: {err}")
    if not result.files:
        print("\nNo file of this lake covers the request well enough.")
        return
    print("\nFiles, most relevant first:")
    for m in result.matches:
        role = "" if m.role == "data" else f" [{m.role}]"
        print(f"  {m.score:.2f}  {m.path}{role}   (matches: {', '.join(m.matched_terms[:6])})")
    chosen = set(result.files)
    for resp in result.responses:
        if set(resp.get("files", [])) & chosen and resp.get("code"):
            print(f"\n--- from {resp['agent_name']}: {resp.get('reason', '')}")
            print(resp["code"])
            for step in resp.get("necessary_steps", [])[:8]:
                print(f"  * {step}")


def _cmd_discover(args: argparse.Namespace, _extra: list[str]) -> int:
    try:
        return asyncio.run(_discover(args))
    except LakeError as exc:
        print(f"lakeboard discover: {exc}", file=sys.stderr)
        return 2


def _cmd_eval(args: argparse.Namespace, _extra: list[str]) -> int:
    from host.eval.runner import run_eval

    try:
        return asyncio.run(run_eval(args))
    except LakeError as exc:
        print(f"lakeboard eval: {exc}", file=sys.stderr)
        return 2


def _cmd_servers(args: argparse.Namespace, _extra: list[str]) -> int:
    lake = resolve_lake(args.lake, configs=args.configs)
    print(json.dumps(lake.servers().to_mcp_config(), indent=2))
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="lakeboard", description=__doc__)
    ap.add_argument("-v", "--verbose", action="store_true", help="log what the host does")
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("index", help="profile a lake, partition it, write configs/NAME/{clusters,servers}.json",
                       description="Other flags (--strategy, --clusters, --docs, --workers, --quiet) go to the indexer.")
    p.add_argument("lake", type=Path)
    p.add_argument("--name")
    p.add_argument("--out", type=Path, default=Path("configs"))
    p.set_defaults(func=_cmd_index, passthrough=True)

    def lake_args(q: argparse.ArgumentParser) -> None:
        q.add_argument("--configs", type=Path, default=Path("configs"), help="where lake configs live (default ./configs)")
        q.add_argument("--reindex", action="store_true", help="index the lake again before answering")

    p = sub.add_parser("discover", help="find the files a request needs, with code that loads them")
    p.add_argument("lake", help="a lake folder (indexed on first use) or a config folder")
    p.add_argument("request")
    p.add_argument("--json", action="store_true")
    p.add_argument("--timeout", type=float, default=30.0, help="per-helper timeout in seconds")
    p.add_argument("--trace", type=Path, help="JSONL trace (default: CONFIG/traces/discover.jsonl)")
    lake_args(p)
    p.set_defaults(func=_cmd_discover)

    p = sub.add_parser("eval", help="run a KramaBench-style workload and score it")
    p.add_argument("workload", type=Path)
    p.add_argument("--lake", required=True)
    p.add_argument("--config", type=Path, help="config folder (default: index the lake into ./configs)")
    p.add_argument("--discovery-only", action="store_true")
    p.add_argument("--out", type=Path, help="results JSONL (one line per task)")
    p.add_argument("--timeout", type=float, default=60.0)
    lake_args(p)
    p.set_defaults(func=_cmd_eval)

    p = sub.add_parser("servers", help="print a lake's merged mcpServers configuration")
    p.add_argument("lake")
    lake_args(p)
    p.set_defaults(func=_cmd_servers)
    return ap


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and not getattr(args, "passthrough", False):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr)
    return args.func(args, extra)


if __name__ == "__main__":
    sys.exit(main())
