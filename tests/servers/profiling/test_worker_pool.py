"""Worker processes bound each file's time and memory; a crash costs one file, not the lake.

Workers are forked only from a process that runs no other thread; pytest's may (numpy's
OpenBLAS), so the pool's tests here ask for spawned workers, and the forked ones are tried
in a fresh interpreter.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.profiling import profile_lake
from lakeboard.servers.profiling.worker_pool import WorkerPool


def _slow_page(path: Path) -> None:
    """A page whose one big table takes pandas seconds to parse: a real slow file."""
    rows = "".join(f"<tr><td>r{i}</td><td>{i}</td><td>{i * 2}</td></tr>" for i in range(75000))
    path.write_text("<html><body><table><tr><th>a</th><th>b</th><th>c</th></tr>" + rows + "</table></body></html>")


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Read, never written, by every test here: made once."""
    root = tmp_path_factory.mktemp("lake")
    _slow_page(root / "slow.html")
    (root / "ok.csv").write_text("a,b\n1,2\n")
    (root / "ok2.csv").write_text("a,b\n3,4\n")
    return root


def test_a_file_over_the_time_bound_is_stopped_and_the_rest_go_on(lake: Path, tmp_path: Path) -> None:
    profiles = profile_lake(lake, tmp_path / "cache", workers=1, timeout_s=0.75)
    by_path = {p.path: p for p in profiles}
    assert by_path["slow.html"].status == "unreadable" and "longer than 0.75 s" in by_path["slow.html"].reason
    assert "return None" in by_path["slow.html"].loader
    assert by_path["ok.csv"].status == "ok" and by_path["ok2.csv"].status == "ok"


def test_a_crashed_worker_costs_one_file(lake: Path) -> None:
    pool = WorkerPool(lake, 1, timeout_s=120, fork=False)

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
    pool = WorkerPool(lake, 1, timeout_s=120, memory_limit=20 << 20, fork=False)  # below what pandas alone needs
    (outcome,) = list(pool.run(["slow.html"]))
    assert outcome.status == "too_large" and "MB of memory" in outcome.failure



def test_every_spawned_worker_is_gone_once_the_files_are_profiled(lake: Path) -> None:
    import psutil

    before = {c.pid for c in psutil.Process().children(recursive=True)}
    pool = WorkerPool(lake, 2, timeout_s=0.75, fork=False)
    outcomes = {o.relpath: o for o in pool.run(["slow.html", "ok.csv", "ok2.csv"])}
    assert outcomes["slow.html"].status == "unreadable" and outcomes["ok.csv"].profile_json
    assert {c.pid for c in psutil.Process().children(recursive=True)} <= before



def test_workers_kept_between_runs_profile_the_next_batch_and_close_at_the_end(lake: Path) -> None:
    """A caller profiling batch after batch (a Dask worker) pays the worker's start once."""
    import psutil

    before = {c.pid for c in psutil.Process().children()}
    pool = WorkerPool(lake, 1, timeout_s=120, fork=False)
    first = list(pool.run(["ok.csv"], keep_workers=True))
    kept = {c.pid for c in psutil.Process().children()} - before  # the worker (its loader checker is its child)
    second = list(pool.run(["ok2.csv"], keep_workers=True))
    assert first[0].profile_json and second[0].profile_json and len(kept) == 1
    assert {c.pid for c in psutil.Process().children()} - before == kept, "the same worker"
    pool.close()
    assert {c.pid for c in psutil.Process().children()} <= before


# argv: LAKE CASE...; runs each case's pool in turn in this one process (an interpreter start each
# would cost more than most cases) and prints one JSON report per case, one a line. The cases leave
# nothing that changes the next: the ballast is freed before the next case, and "thread", whose
# thread rules out forking while it runs, comes last.
_FORKED_POOL = textwrap.dedent(
    """
    import json, os, signal, sys, threading
    from lakeboard.servers.profiling.worker_pool import WorkerPool, _can_fork

    def run_case(lake, case):
        report = {"can_fork": _can_fork()}
        if case == "thread":  # a thread of this process would not exist in a forked child
            stop = threading.Event()
            t = threading.Thread(target=stop.wait)
            t.start()
            report["can_fork_with_thread"] = _can_fork()
        limit = {"memory": 20 << 20, "ballast": 450 << 20}.get(case, 1536 << 20)
        ballast = b"x" * (600 << 20) if case == "ballast" else b""  # resident, and shared with forked workers
        timeout = {"timeout": 0.75, "ballast": 1.0}.get(case, 120)
        pool = WorkerPool(lake, 2, timeout_s=timeout, memory_limit=limit)

        def kill_when_busy(*_):  # a timer signal, not a thread: a thread would rule out forking
            for w in pool._workers:
                if w.ready and w.tasks and w.tasks[0] == "slow.html":
                    os.kill(w.proc.pid, signal.SIGKILL)
                    return
            signal.setitimer(signal.ITIMER_REAL, 0.1)

        if case == "crash":
            signal.signal(signal.SIGALRM, kill_when_busy)
            signal.setitimer(signal.ITIMER_REAL, 0.3)
        kinds, outcomes = set(), {}
        # The thread case is about how workers start: it is spared reading the slow page through.
        files = ["ok.csv", "ok2.csv"] if case == "thread" else ["slow.html", "ok.csv", "ok2.csv"]
        for o in pool.run(files):
            kinds |= {type(w.proc).__name__ for w in pool._workers}
            outcomes[o.relpath] = [o.status, o.failure, o.profile_json is not None]
        if case == "crash":  # no timer left to fire in the next case
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
        if case == "thread":
            stop.set()
            t.join()
        del ballast
        try:
            os.waitpid(-1, os.WNOHANG)
            report["children_left"] = True
        except ChildProcessError:
            report["children_left"] = False
        return {**report, "kinds": sorted(kinds), "outcomes": outcomes}

    lake, *cases = sys.argv[1:]
    for case in cases:
        print(json.dumps({"case": case, **run_case(lake, case)}), flush=True)
    """
)
_FORKED_CASES = ("timeout", "crash", "memory", "ballast", "thread")


class ForkedPools:
    """The reports of one run of the driver above, each asked for by its case's test."""

    def __init__(self, lake: Path) -> None:
        self.done = subprocess.run([sys.executable, "-c", _FORKED_POOL, str(lake), *_FORKED_CASES],
                                   capture_output=True, text=True, timeout=300)
        lines = [json.loads(line) for line in self.done.stdout.splitlines() if line.startswith("{")]
        self.reports = {r.pop("case"): r for r in lines}

    def __getitem__(self, case: str) -> dict:
        assert self.done.returncode == 0 and case in self.reports, (
            f"the driver exited with {self.done.returncode}, after the cases {sorted(self.reports)}: "
            f"{self.done.stderr[-3000:]}")
        return self.reports[case]


@pytest.fixture(scope="module")
def forked_pools(lake: Path) -> ForkedPools:
    return ForkedPools(lake)


def test_a_single_threaded_process_forks_its_workers_and_reaps_them(forked_pools: ForkedPools) -> None:
    report = forked_pools["timeout"]
    assert report["can_fork"] and report["kinds"] == ["_Forked"] and not report["children_left"]
    status, failure, _ = report["outcomes"]["slow.html"]
    assert status == "unreadable" and "longer than 0.75 s" in failure
    assert report["outcomes"]["ok.csv"][2] and report["outcomes"]["ok2.csv"][2]


def test_a_forked_worker_that_crashes_costs_one_file(forked_pools: ForkedPools) -> None:
    report = forked_pools["crash"]
    assert report["kinds"] == ["_Forked"]
    _, failure, _ = report["outcomes"]["slow.html"]
    assert "exit code -9" in failure
    assert report["outcomes"]["ok.csv"][2] and report["outcomes"]["ok2.csv"][2]


def test_a_forked_worker_is_held_to_the_memory_it_adds_not_what_it_shares(forked_pools: ForkedPools) -> None:
    report = forked_pools["memory"]  # 20 MB over the forking process: pandas needs more
    assert report["kinds"] == ["_Forked"]
    status, failure, _ = report["outcomes"]["slow.html"]
    assert status == "too_large" and "MB of memory" in failure


def test_memory_a_forked_worker_shares_with_its_parent_is_not_held_against_a_file(forked_pools: ForkedPools) -> None:
    report = forked_pools["ballast"]  # the parent holds 600 MB; the bound is 450 MB, the file needs ~300
    status, failure, _ = report["outcomes"]["slow.html"]
    assert status == "unreadable" and "longer than 1 s" in failure  # stopped by time, not memory
    assert report["outcomes"]["ok.csv"][2] and report["outcomes"]["ok2.csv"][2]


def test_a_process_running_another_thread_spawns_fresh_interpreters(forked_pools: ForkedPools) -> None:
    report = forked_pools["thread"]
    assert report["can_fork"] and not report["can_fork_with_thread"]
    assert report["kinds"] == ["Popen"]
    assert sorted(report["outcomes"]) == ["ok.csv", "ok2.csv"]
    assert all(ok for _, _, ok in report["outcomes"].values())


_STDIN_PIPE = textwrap.dedent(
    """
    import json, os, sys
    from lakeboard.servers.profiling.worker import serve_forked

    lake = sys.argv[1]
    request_r, request_w = os.pipe()
    answer_r, answer_w = os.pipe()
    os.dup2(request_r, 0)  # as when the owner has no stdin and the pipe gets descriptor 0
    os.close(request_r)
    if os.fork() == 0:
        serve_forked(lake, 0, answer_w)
    os.close(0)
    os.close(answer_w)
    os.write(request_w, json.dumps("ok.csv").encode() + b"\\n")
    os.close(request_w)
    with os.fdopen(answer_r, "rb") as answers:
        print(json.dumps([line.decode().strip()[:40] for line in answers]))
    """
)


def test_a_forked_worker_keeps_a_request_pipe_that_got_a_standard_descriptor(lake: Path) -> None:
    out = subprocess.run([sys.executable, "-c", _STDIN_PIPE, str(lake)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    ready, profile = json.loads(out.stdout)
    assert ready == "ready" and '"path":"ok.csv"' in profile
