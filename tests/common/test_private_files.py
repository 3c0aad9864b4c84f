"""Everything Lakeboard writes in a config folder is owner-only (issue 24, item 12).

The commands run as a user runs them, under the usual 022 mask: `index`, `discover` and an
offline `ask` (the kernel, its workdir, a run's notebook and trace). Then no file or folder
of the config folder may be readable, writable or searchable by the group or others.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.e2e.conftest import _allow_unsandboxed_kernel, _sandbox_problem
from tests.support.cli import MODEL_VARS

pytestmark = pytest.mark.timeout(300)

def lakeboard(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in MODEL_VARS}
    env.update({"XDG_CONFIG_HOME": str(cwd / "xdg"), "FASTMCP_LOG_LEVEL": "WARNING"})
    return subprocess.run([sys.executable, "-P", "-m", "lakeboard.host.cli", *args], cwd=cwd, env=env, umask=0o022,
                          capture_output=True, text=True, timeout=240)


def shared_entries(folder: Path) -> list[str]:
    """Every file or folder under `folder` (itself included) that the group or others may use."""
    found = []
    for path in [folder, *folder.rglob("*")]:
        mode = path.lstat().st_mode
        if not stat.S_ISLNK(mode) and mode & 0o077:
            found.append(f"{path.relative_to(folder.parent)} {stat.filemode(mode)}")
    return found


def test_a_config_folder_holds_nothing_others_can_read(tmp_path: Path) -> None:
    lake, configs = tmp_path / "lake", tmp_path / "configs"
    (lake / "weather").mkdir(parents=True)
    for station in ("north", "south"):
        rows = "".join(f"2024-01-{d:02d},{d % 5}.{d % 3}\n" for d in range(1, 29))
        (lake / "weather" / f"rainfall_{station}.csv").write_text("date,rainfall_mm\n" + rows)

    # --workers 0: profiling workers write nothing (they answer through a pipe), so none need starting.
    done = lakeboard("index", str(lake), "--out", str(configs), "--name", "private", "--workers", "0", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    config = configs / "private"
    if _sandbox_problem() is not None:
        if os.environ.get("LAKEBOARD_REQUIRE_SANDBOX") == "1":
            pytest.fail(f"LAKEBOARD_REQUIRE_SANDBOX=1 but the sandbox cannot run: {_sandbox_problem()}")
        _allow_unsandboxed_kernel(config)

    # `discover` and `ask` only read the index and each writes files of its own: they run side by side.
    with ThreadPoolExecutor(2) as pool:
        discovering = pool.submit(lakeboard, "discover", str(config), "daily rainfall per station", "--json", cwd=tmp_path)
        asking = pool.submit(lakeboard, "ask", str(config), "how much rain fell at the north station?", cwd=tmp_path)
        found, asked = discovering.result(), asking.result()
    assert found.returncode == 0, found.stderr[-3000:]
    assert json.loads(found.stdout)["files"]
    assert asked.returncode == 0, asked.stdout[-3000:] + asked.stderr[-3000:]

    written = {p.name for p in config.rglob("*")}
    assert {"profiles.sqlite", "servers.json", "clusters.json", "discover.jsonl", "trace.jsonl",
            "session.ipynb", "result.json"} <= written, sorted(written)
    assert shared_entries(config) == []


CACHE_WHILE_OPEN = """
import json, stat, sys
from pathlib import Path
from lakeboard.common.private_files import keep_new_files_private
from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.profiling.cache import ProfileCache

keep_new_files_private()
folder = Path(sys.argv[1])
with ProfileCache(folder / "profiles") as cache:
    cache.put(FileProfile(path="a.csv", format="csv", kind="table", size_bytes=1, mtime_ns=1))
    print(json.dumps({p.name: stat.filemode(p.stat().st_mode) for p in folder.rglob("*")}))
"""


def test_the_profile_caches_write_ahead_log_is_owner_only_too(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-P", "-c", CACHE_WHILE_OPEN, str(tmp_path)], umask=0o022,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    modes = json.loads(done.stdout)
    assert {"profiles.sqlite", "profiles.sqlite-wal", "profiles.sqlite-shm"} <= set(modes)
    assert {name: mode for name, mode in modes.items() if mode not in ("-rw-------", "drwx------")} == {}
