"""The config files of an index are replaced as one set: a kill at any step shows no mix of two sets.

The indexer runs as a real process that SIGKILLs itself right after its k-th rename (every file
of the set lands with a rename), for every k until a run completes. Each run is a fork of one
process that imported the indexer and indexed a scratch lake once (its lazy imports and the
embedding model are loaded), so that a run costs its own indexing, not Python's start nor a first
run's loading. The one driver serves every test of this module.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from lakeboard.host.lakes import partition_mismatches
from lakeboard.host.servers_config import load_servers

REPO = Path(__file__).resolve().parents[3]

# Reads one JSON line [kill_at, *indexer args] per run from stdin, forks a process that runs the indexer
# and SIGKILLs itself right after its kill_at-th rename (0: never), and answers with its exit code as
# subprocess reports it (-9 when killed). The forks write to stderr only: stdout carries the answers.
# First it indexes a one-file scratch lake (argv[1]) itself, so that every fork starts warm.
KILLED_AFTER_RENAME = """
import contextlib, json, os, signal, sys
import threadpoolctl
from pathlib import Path
from lakeboard.servers.indexing.__main__ import main

scratch = Path(sys.argv[1])
(scratch / "lake" / "warm").mkdir(parents=True)
(scratch / "lake" / "warm" / "w.csv").write_text("a,b\\n1,2\\n")
with contextlib.redirect_stdout(sys.stderr):
    if main([str(scratch / "lake"), "--out", str(scratch / "out"), "--workers", "0", "--quiet"]) != 0:
        sys.exit("the warm-up index failed")
# One BLAS thread, as the fork server gives each forked helper: a fork holds none of its parent's BLAS
# threads, and the ones it starts again spin on two cores (each run's embedding took several times longer).
threadpoolctl.threadpool_limits(limits=1, user_api="blas")

def run(kill_at, argv):
    calls = 0
    def counted(real):
        def rename(*args, **kwargs):
            nonlocal calls
            real(*args, **kwargs)
            calls += 1
            if calls == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
        return rename
    os.replace, os.rename = counted(os.replace), counted(os.rename)
    os.dup2(2, 1)
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)

for line in sys.stdin:
    kill_at, *argv = json.loads(line)
    pid = os.fork()
    if pid == 0:
        run(kill_at, argv)
    _, status = os.waitpid(pid, 0)
    print(os.waitstatus_to_exitcode(status), flush=True)
"""


class Indexer:
    """The driver above, started once per module; `run` indexes in a fresh fork and returns its exit code."""

    def __init__(self, folder: Path) -> None:
        self.log = folder / "indexer.log"
        with self.log.open("w") as errors:
            self.process = subprocess.Popen([sys.executable, "-c", KILLED_AFTER_RENAME, str(folder / "scratch")],
                                            cwd=REPO, text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=errors)

    def run(self, lake: Path, out: Path, kill_at: int = 0) -> int:
        argv = [str(lake), "--out", str(out), "--workers", "0", "--quiet"]
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps([kill_at, *argv]) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        assert answer, f"the indexer driver ended: {self.log.read_text()[-2000:]}"
        return int(answer)

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=60)
        self.process.stdout.close()


@pytest.fixture(scope="module")
def indexer(tmp_path_factory: pytest.TempPathFactory):
    driver = Indexer(tmp_path_factory.mktemp("indexer"))
    try:
        yield driver
    finally:
        driver.close()


def _files(folder: Path, names: list[str], text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for n in names:
        (folder / n).write_text(text)


def _visible(config_dir: Path) -> tuple[list[str] | None, list[str] | None]:
    """(partitions of clusters.json, partitions with a file agent in servers.json), None where absent."""
    clusters = servers = None
    if (config_dir / "clusters.json").is_file():
        clusters = sorted(c["name"] for c in json.loads((config_dir / "clusters.json").read_text())["clusters"])
    if (config_dir / "servers.json").is_file():
        entries = json.loads((config_dir / "servers.json").read_text())["mcpServers"].values()
        servers = sorted(e["args"][e["args"].index("--cluster") + 1] for e in entries if "lakeboard.servers.file_agent" in e["args"])
    return clusters, servers


def _loose_files(config_dir: Path) -> None:
    """The layout of an indexer that wrote clusters.json and servers.json one by one."""
    for name in ("clusters.json", "servers.json"):
        text = (config_dir / name).read_text()
        (config_dir / name).unlink()
        (config_dir / name).write_text(text)
    (config_dir / "current").unlink()
    shutil.rmtree(config_dir / "sets")


def _copy_config(template: Path, out: Path) -> None:
    """A copy of a configs folder whose files name their new place (as an index there writes them)."""
    shutil.copytree(template, out, symlinks=True)
    for path in out.rglob("*.json"):
        if not path.is_symlink():
            path.write_text(path.read_text().replace(str(template), str(out)))


@pytest.mark.parametrize("start", ["no config yet", "an earlier index", "files written one by one"])
def test_a_kill_at_any_step_leaves_one_whole_config_set(tmp_path: Path, start: str, indexer: Indexer) -> None:
    lake, template = tmp_path / "lake", tmp_path / "template"
    _files(lake / "alpha", ["a1.csv", "a2.csv", "a3.csv"], "a,b\n1,2\n")
    _files(lake / "beta", ["b1.json", "b2.json", "b3.json"], '[{"k": 1}]')
    before, after = ["alpha", "beta"], ["alpha", "beta", "gamma"]
    if start == "no config yet":
        template.mkdir()
        before = None
    else:
        assert indexer.run(lake, template) == 0, indexer.log.read_text()[-2000:]
        if start == "files written one by one":
            _loose_files(template / "lake")
    (template / "lake" / "servers.d").mkdir(parents=True, exist_ok=True)
    (template / "lake" / "servers.d" / "mine.json").write_text('{"mcpServers": {}}')
    _files(lake / "gamma", ["g1.txt", "g2.txt", "g3.txt"], "x y\n1 2\n")

    seen = []
    for kill_at in range(1, 40):
        out = tmp_path / f"run{kill_at}"
        _copy_config(template, out)
        returncode = indexer.run(lake, out, kill_at)
        config_dir = out / "lake"
        clusters, servers = _visible(config_dir)
        assert clusters == servers, f"killed after rename {kill_at}: clusters {clusters}, servers {servers}"
        assert clusters in (before, after)
        if clusters is not None:
            assert partition_mismatches(config_dir, load_servers(config_dir)) == []
        assert (config_dir / "servers.d" / "mine.json").is_file()
        seen.append(clusters)
        if returncode == 0:
            break
        assert returncode == -signal.SIGKILL, indexer.log.read_text()[-2000:]
    else:
        pytest.fail("the indexer never completed")
    assert seen[-1] == after and len(seen) > 2
    assert [p.name for p in (config_dir / "sets").iterdir() if p.is_dir()] == [(config_dir / "current").readlink().name]


def test_a_link_to_a_file_the_new_set_no_longer_has_is_removed(tmp_path: Path) -> None:
    from lakeboard.servers.indexing.config_set import publish

    publish(tmp_path, {"clusters.json": "{}\n", "lake_stamps.json": "{}\n"})
    assert (tmp_path / "lake_stamps.json").read_text() == "{}\n"
    publish(tmp_path, {"clusters.json": "{}\n", "lake_stamps.json.gz": b"\x1f\x8b"})
    assert not (tmp_path / "lake_stamps.json").is_symlink() and not (tmp_path / "lake_stamps.json").exists()
    assert (tmp_path / "lake_stamps.json.gz").read_bytes() == b"\x1f\x8b"
    assert (tmp_path / "clusters.json").read_text() == "{}\n"
    (tmp_path / "mine.json").symlink_to("elsewhere.json")  # a link of the user's, not into current/: kept
    publish(tmp_path, {"clusters.json": "{}\n"})
    assert (tmp_path / "mine.json").is_symlink() and not (tmp_path / "lake_stamps.json.gz").exists()
