"""Worker processes bound each file's time & memory; a crash costs one file, not the lake; a kind of file keeps to one worker."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from schemas.profiles import FileProfile
from servers.profiling import profile_lake
from servers.profiling.worker_pool import WorkerPool, _Queue, _Worker


def _slow_page(path: Path) -> None:
    """A page whose one big table takes pandas seconds to parse: a real slow file."""
    rows = "".join(f"<tr><td>r{i}</td><td>{i}</td><td>{i * 2}</td></tr>" for i in range(75000))
    path.write_text("<html><body><table><tr><th>a</th><th>b</th><th>c</th></tr>" + rows + "</table></body></html>")


@pytest.fixture()
def lake(tmp_path: Path) -> Path:
    root = tmp_path / "lake"
    root.mkdir()
    _slow_page(root / "slow.html")
    (root / "ok.csv").write_text("a,b\n1,2\n")
    (root / "ok2.csv").write_text("a,b\n3,4\n")
    return root


def test_a_file_over_the_time_bound_is_stopped_and_the_rest_go_on(lake: Path, tmp_path: Path) -> None:
    profiles = profile_lake(lake, tmp_path / "cache", workers=1, timeout_s=0.75)
    at_path = {p.path: p for p in profiles}
    assert at_path["slow.html"].status == "unreadable" and "longer than 0.75 s" in at_path["slow.html"].reason
    assert "data = None" in at_path["slow.html"].loader
    assert at_path["ok.csv"].status == "ok" and at_path["ok2.csv"].status == "ok"


def test_a_crashed_worker_costs_one_file(lake: Path) -> None:
    pool = WorkerPool(lake, 1, timeout_s=120)

    def kill_when_busy() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            workers = list(pool._workers)
            if workers and workers[0].ready and workers[0].tasks and workers[0].tasks[0] == "slow.html":
                time.sleep(0.3)
                os.kill(workers[0].proc.pid, signal.SIGKILL)
                return
            time.sleep(0.02)

    killer = threading.Thread(target=kill_when_busy)
    killer.start()
    outcomes = {o.relpath: o for o in pool.run(["slow.html", "ok.csv", "ok2.csv"])}
    killer.join()
    assert outcomes["slow.html"].profile_json is None and "crashed" in outcomes["slow.html"].failure
    assert "exit code -9" in outcomes["slow.html"].failure
    for rel in ("ok.csv", "ok2.csv"):
        assert FileProfile.model_validate_json(outcomes[rel].profile_json).status == "ok"


def test_a_file_over_the_memory_bound_is_stopped(lake: Path) -> None:
    pool = WorkerPool(lake, 1, timeout_s=120, memory_limit=20 << 20)  # below what pandas alone needs
    (outcome,) = list(pool.run(["slow.html"]))
    assert outcome.status == "too_large" and "MB of memory" in outcome.failure


def _kind(rel: str) -> str:
    return rel.rsplit(".", 1)[-1]


def test_the_queue_keeps_each_kind_of_file_with_one_worker_until_its_own_run_out() -> None:
    queue = _Queue(["a.csv", "b.csv", "c.csv", "d.csv", "e.parquet", "f.parquet"], _kind)
    one, two = _Worker(proc=None, fd=-1), _Worker(proc=None, fd=-1)  # type: ignore[arg-type]
    workers = [one, two]
    assert queue.take(one, workers) == "a.csv"
    assert queue.take(two, workers) == "e.parquet"  # a kind nobody has: its reader loads in one worker only
    assert queue.take(one, workers) == "b.csv"
    assert queue.take(two, workers) == "f.parquet"
    assert queue.take(two, workers) == "c.csv"  # its own line is empty: it helps with the longest
    assert list(one.kinds) == ["csv"] and list(two.kinds) == ["parquet", "csv"]
    assert len(queue) == 1 and queue.take(one, workers) == "d.csv" and not queue


def test_files_put_back_go_first_in_their_lines_in_order() -> None:
    queue = _Queue(["a.csv", "b.csv", "c.json"], _kind)
    worker = _Worker(proc=None, fd=-1)  # type: ignore[arg-type]
    taken = [queue.take(worker, [worker]) for _ in range(2)]
    queue.put_back(taken)
    assert [queue.take(worker, [worker]) for _ in range(3)] == ["a.csv", "b.csv", "c.json"]
