"""`lakeboard eval`: run a workload against a lake with the servers kept up across tasks."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from lakeboard.host.eval.answers_runner import run_answer_eval
from lakeboard.host.baselines.modes import MODES
from lakeboard.host.eval.discovery_scores import lake_copies, score_discovery
from lakeboard.host.eval.means import rounded_mean
from lakeboard.host.lakes import Lake, LakeError, lake_files, refresh_index, resolve_lake
from lakeboard.schemas.workload import Workload, WorkloadTask


def load_workload(path: Path) -> list[WorkloadTask]:
    try:
        return Workload.validate_json(path.read_bytes())
    except OSError as exc:
        raise LakeError(f"cannot read workload {str(path)!r}: {exc}") from exc
    except ValueError as exc:
        raise LakeError(f"{str(path)!r} is not a workload (a JSON list of tasks with id and query): {exc}") from exc


async def run_eval(args) -> int:
    tasks = load_workload(args.workload)
    if args.config:
        lake = Lake(args.config.resolve(), Path(args.lake).resolve())
        refresh_index(lake.config_dir, lake.root)  # as resolve_lake does: never score against a stale index
    else:
        lake = resolve_lake(args.lake, configs=args.configs, reindex=args.reindex)
    if lake.root is None:
        raise LakeError("cannot tell which folder the lake is: pass --lake LAKE")
    modes = list(MODES) if "all" in args.mode else list(dict.fromkeys(args.mode))
    if not args.discovery_only:
        return await run_answer_eval(args, tasks, lake, modes)
    return await run_discovery_eval(tasks, lake, out=args.out, timeout_s=args.timeout, modes=modes)


async def run_discovery_eval(tasks: list[WorkloadTask], lake: Lake, *, out: Path | None, timeout_s: float,
                             modes: list[str] = ("blackboard",)) -> int:
    """Each task's discovery in each mode, scored against its data sources; a table per mode at the end."""
    from lakeboard.host.baselines.offline_modes import ModeDiscovery, file_inventory, partitions_of
    from lakeboard.host.blackboard import Blackboard
    from lakeboard.host.pool import ClientPool
    from lakeboard.host.trace import Trace
    from lakeboard.schemas.clusters import ClusterConfig

    paths = lake_files(lake.root)
    copies = lake_copies(lake, paths)
    out_fh = open(out, "w", encoding="utf-8") if out else None
    scores: dict[str, list] = {mode: [] for mode in modes}
    trace = Trace(lake.config_dir / "traces" / f"eval-{int(time.time())}.jsonl")
    try:
        async with ClientPool(lake.servers(helpers_only=True), trace=trace, log_dir=lake.config_dir / "logs",
                              connect_timeout_s=timeout_s) as pool:
            board = Blackboard(pool, trace, can_help_timeout_s=timeout_s, respond_timeout_s=timeout_s,
                               lake_index=lake.search_index, mirror=lake.mirror())
            config = ClusterConfig.model_validate_json((lake.config_dir / "clusters.json").read_text())
            partitions = partitions_of(config, pool.helpers)
            entries = await file_inventory(board, [p.helper for p in partitions]) if "rag" in modes else []
            discovery = ModeDiscovery(board, partitions, entries, paths)
            for task in tasks:
                for mode in modes:
                    files, details = await discovery.files(mode, task.query)
                    line = {"id": task.id, "mode": mode, "files": files, **details}
                    shown = f"{task.id:28s} {mode:12s}" if len(modes) > 1 else f"{task.id:28s}"
                    if task.data_sources is not None:
                        s = score_discovery(files, task.data_sources, paths, copies)
                        scores[mode].append(s)
                        line |= {"recall": round(s.recall, 4), "precision": round(s.precision, 4), "f1": round(s.f1, 4)}
                        shown += f" R={s.recall:.2f} P={s.precision:.2f} F1={s.f1:.2f}"
                    print(f"{shown}  {', '.join(files[:3])}{' ...' if len(files) > 3 else ''}")
                    if out_fh:
                        out_fh.write(json.dumps(line) + "\n")
                        out_fh.flush()
    finally:
        trace.close()
        if out_fh:
            out_fh.close()
    if any(scores.values()):
        print()
        print(mode_table(scores))
    sys.stdout.flush()
    return 0


def mode_table(scores: dict[str, list]) -> str:
    """Recall, precision and F1 per mode, means over the scored tasks (the paper's Table 2, discovery)."""
    lines = [f"{'mode':14s} {'tasks':>5s} {'recall':>7s} {'precision':>9s} {'F1':>7s}"]
    for mode, rows in scores.items():
        if rows:
            lines.append(f"{mode:14s} {len(rows):5d} {rounded_mean([s.recall for s in rows]):7.3f} "
                         f"{rounded_mean([s.precision for s in rows]):9.3f} {rounded_mean([s.f1 for s in rows]):7.3f}")
    return "\n".join(lines)
