"""The config files of an index are replaced as one set: a kill at any step shows no mix of two sets.

The indexer runs as a real process that SIGKILLs itself right after its k-th rename (every file
of the set lands with a rename), for every k until a run completes.
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

KILLED_AFTER_RENAME = """
import os, signal, sys
kill_at, calls = int(sys.argv[1]), 0
real_replace, real_rename = os.replace, os.rename

def counted(real):
    def rename(*args, **kwargs):
        global calls
        real(*args, **kwargs)
        calls += 1
        if calls == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
    return rename

os.replace, os.rename = counted(real_replace), counted(real_rename)
from lakeboard.servers.indexing.__main__ import main
sys.exit(main(sys.argv[2:]))
"""


def _files(folder: Path, names: list[str], text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for n in names:
        (folder / n).write_text(text)


def _index(lake: Path, out: Path, kill_at: int = 0) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", KILLED_AFTER_RENAME, str(kill_at), str(lake), "--out", str(out), "--workers", "0",
         "--quiet"],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )


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
    """The layout of an indexer that wrote clusters.json, servers.json and vocabulary.json one by one."""
    for name in ("clusters.json", "servers.json", "vocabulary.json"):
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
def test_a_kill_at_any_step_leaves_one_whole_config_set(tmp_path: Path, start: str) -> None:
    lake, template = tmp_path / "lake", tmp_path / "template"
    _files(lake / "alpha", ["a1.csv", "a2.csv", "a3.csv"], "a,b\n1,2\n")
    _files(lake / "beta", ["b1.json", "b2.json", "b3.json"], '[{"k": 1}]')
    before, after = ["alpha", "beta"], ["alpha", "beta", "gamma"]
    if start == "no config yet":
        template.mkdir()
        before = None
    else:
        assert _index(lake, template).returncode == 0
        if start == "files written one by one":
            _loose_files(template / "lake")
    (template / "lake" / "servers.d").mkdir(parents=True, exist_ok=True)
    (template / "lake" / "servers.d" / "mine.json").write_text('{"mcpServers": {}}')
    _files(lake / "gamma", ["g1.txt", "g2.txt", "g3.txt"], "x y\n1 2\n")

    seen = []
    for kill_at in range(1, 40):
        out = tmp_path / f"run{kill_at}"
        _copy_config(template, out)
        done = _index(lake, out, kill_at)
        config_dir = out / "lake"
        clusters, servers = _visible(config_dir)
        assert clusters == servers, f"killed after rename {kill_at}: clusters {clusters}, servers {servers}"
        assert clusters in (before, after)
        if clusters is not None:
            assert partition_mismatches(config_dir, load_servers(config_dir)) == []
        assert (config_dir / "servers.d" / "mine.json").is_file()
        seen.append(clusters)
        if done.returncode == 0:
            break
        assert done.returncode == -signal.SIGKILL, done.stderr
    else:
        pytest.fail("the indexer never completed")
    assert seen[-1] == after and len(seen) > 2
    assert [p.name for p in (config_dir / "sets").iterdir() if p.is_dir()] == [(config_dir / "current").readlink().name]
