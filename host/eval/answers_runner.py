"""`lakeboard eval WORKLOAD --lake LAKE`: run `ask` on every task and score the answers.

Each task's answer is scored by its KramaBench answer type (see answer_scores.py) and its
discovery by the recall, precision and F1 of the data sources the answer names against
the task's ground truth. The servers stay up across tasks. Without a model every answer
scores 0 (the offline agent loads the data but cannot compute), and discovery is still
measured.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from typing import TYPE_CHECKING, Any

from lakeboard.host.eval.answer_scores import score_answer
from lakeboard.host.eval.discovery_scores import lake_copies, score_discovery
from lakeboard.host.eval.means import rounded_mean
from lakeboard.host.lakes import Lake, LakeError
from lakeboard.schemas.workload import WorkloadTask

if TYPE_CHECKING:
    from lakeboard.host.agents.session import AskSession


async def run_answer_eval(args, tasks: list[WorkloadTask], lake: Lake, modes: list[str] = ("blackboard",)) -> int:
    from lakeboard.host.agents.session import AskSession, llm_settings
    from lakeboard.host.kernel_session import KernelUnavailable
    from lakeboard.host.llm import LLMConfigError
    from lakeboard.host.trace import Trace

    try:
        settings = llm_settings(args)
    except LLMConfigError as exc:
        raise LakeError(str(exc)) from exc
    if settings is None:
        print("No model is configured: answers are not computed (each scores 0); discovery is still scored "
              "from the data each verified loading program reads.", file=sys.stderr)
    out_fh = open(args.out, "w", encoding="utf-8") if args.out else None
    trace = Trace(lake.config_dir / "traces" / f"eval-answers-{int(time.time())}.jsonl")
    rows: list[dict[str, Any]] = []
    try:
        async with AskSession(
            lake, settings, trace=trace, max_steps=args.max_steps, helper_timeout_s=args.timeout,
            cell_timeout_s=args.cell_timeout, lend_model=not args.offline_helpers,
        ) as session:
            copies = lake_copies(lake, session.lake_paths)
            for mode in modes:
                for task in tasks:
                    row = await _run_task(session, task, mode, copies)
                    rows.append(row)
                    _print_row(row, label=len(modes) > 1)
                    if out_fh:
                        out_fh.write(json.dumps(row, default=str) + "\n")
                        out_fh.flush()
    except KernelUnavailable as exc:
        raise LakeError(str(exc)) from exc
    finally:
        trace.close()
        if out_fh:
            out_fh.close()
    for mode in modes:
        if len(modes) > 1:
            print(f"\n== {mode}")
        _print_summary([r for r in rows if r["mode"] == mode])
    sys.stdout.flush()
    return 0


async def _run_task(session: AskSession, task: WorkloadTask, mode: str,
                    copies: dict[str, list[str]]) -> dict[str, Any]:
    started = time.monotonic()
    row: dict[str, Any] = {"id": task.id, "mode": mode, "answer_type": task.answer_type, "expected": task.answer}
    try:
        result = await session.ask(task.query, task_id=task.id, mode=mode)
    except Exception as exc:  # one task's failure must not end the evaluation
        row |= {"status": "failed", "error": f"{type(exc).__name__}: {exc}", "elapsed_s": round(time.monotonic() - started, 2)}
        return row
    row |= {
        "status": result.status,
        "answer": result.answer,
        "data_sources": result.data_sources,
        "actions": len(result.steps),
        "error": result.error,
        "elapsed_s": round(result.elapsed_s, 2),
        "tokens": (result.usage.get("total") or {}).get("total_tokens", 0),
    }
    if task.answer is not None:
        score = score_answer(result.answer if result.status == "answered" else None, task.answer, task.answer_type,
                             accepted=task.accepted_answers)
        row |= {"metric": score.metric, "score": score.score, "correct": score.correct}
    if task.data_sources is not None:
        d = score_discovery(result.data_sources, task.data_sources, session.lake_paths, copies)
        row |= {"recall": round(d.recall, 4), "precision": round(d.precision, 4), "f1": round(d.f1, 4)}
    return row


def _print_row(row: dict[str, Any], *, label: bool = False) -> None:
    answer = json.dumps(row.get("answer"), default=str)
    if len(answer) > 40:
        answer = answer[:37] + "..."
    mark = {True: "ok ", False: "no "}.get(row.get("correct"), "-  ")
    discovery = f"R={row['recall']:.2f} P={row['precision']:.2f} F1={row['f1']:.2f}" if "f1" in row else ""
    name = f"{row['id']} [{row['mode']}]" if label else row["id"]
    print(f"{name:28s} {mark}{row.get('status', ''):10s} {answer:40s} {discovery}  {row.get('elapsed_s', 0):.1f}s")


def _print_summary(rows: list[dict[str, Any]]) -> None:
    scored = [r for r in rows if "score" in r]
    found = [r for r in rows if "f1" in r]
    print()
    if scored:
        correct = sum(1 for r in scored if r.get("correct"))
        print(f"answers: {correct}/{len(scored)} correct; score {rounded_mean([r['score'] for r in scored])} "
              "(KramaBench's total: the mean of each task's headline metric)")
        scores_per_type: dict[str, list[float]] = {}
        for r in scored:
            scores_per_type.setdefault(r.get("answer_type") or "?", []).append(r["score"])
        for kind, scores in sorted(scores_per_type.items()):
            print(f"  {kind:20s} mean {rounded_mean(scores)} over {len(scores)}")
    if found:
        print(f"discovery over {len(found)} tasks: recall={rounded_mean([r['recall'] for r in found])} "
              f"precision={rounded_mean([r['precision'] for r in found])} F1={rounded_mean([r['f1'] for r in found])}")
    times = [r.get("elapsed_s", 0.0) for r in rows]
    if times:
        print(f"time per task: median {statistics.median(times):.1f}s; tokens {sum(r.get('tokens', 0) or 0 for r in rows)}")
