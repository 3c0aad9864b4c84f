"""What `lakeboard index` and `lakeboard discover` print about a lake whose file names hold
terminal escape sequences, line breaks and bidirectional overrides: every such character is
shown escaped, so nothing from the lake acts on the user's terminal."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.support.cli import lakeboard_main

pytestmark = pytest.mark.timeout(300)

ESCAPES = ("\x1b[2J", "\x1b]0;title\x07", "\x1b[31m", "\x9b2J", "\r", "\n", "\r\n", "\x08", "\x07", "\x7f",
           "\u202e", "\u2066", "\u2028", "\u200f")
# Every control character but \n, DEL, C1 controls, and the separators and formats that move text around.
UNSAFE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def hostile_stems(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    stems = []
    for i in range(count):
        parts = [f"rain{i}"]
        for _ in range(rng.randint(1, 3)):
            parts += [rng.choice(ESCAPES), rng.choice(["station", "x", "mm", ""])]
        stems.append("".join(parts))
    return stems


def cli_env(cwd: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k == "LAKEBOARD_HOME" or not k.startswith(("LAKEBOARD_", "OPENAI_"))}
    env.update(FASTMCP_LOG_LEVEL="WARNING", XDG_CONFIG_HOME=str(cwd / "xdg"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])))
    return env


def lakeboard(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "lakeboard.host.cli", *args], cwd=cwd, env=cli_env(cwd),
                          capture_output=True, timeout=240)


def assert_safe(done: subprocess.CompletedProcess[bytes]) -> str:
    out = done.stdout.decode() + done.stderr.decode()
    bad = UNSAFE.search(out)
    assert bad is None, f"{bad.group()!r} reached the terminal: ...{out[max(0, bad.start() - 80):bad.end() + 80]!r}"
    return out


def test_index_and_discover_escape_what_the_lake_names(tmp_path: Path, capfdbinary) -> None:
    lake = tmp_path / "lake"
    (lake / "rain").mkdir(parents=True)
    stems = hostile_stems(8, seed=10)
    for i, stem in enumerate(stems[:6]):
        (lake / "rain" / f"{stem}.csv").write_text(f"station,rainfall_mm\nS{i},{i}.5\nT{i},{i}.25\n")
    for stem in stems[6:]:  # not usable as data: index lists each with its reason
        (lake / "rain" / f"{stem}.parquet").write_bytes(b"\x00\x1b[2J not parquet " + stem.encode())

    # `index` prints nothing of the lake itself: the indexer it starts, a process of its own, prints every name. So
    # the command runs by its main() in this process (the bytes both write to the terminal's descriptors are
    # captured, undecoded); `discover`, which prints the names itself, runs below as the command's own process.
    # --workers 0: the indexer profiles in its own process, which prints the same lines without starting workers.
    indexed = lakeboard_main(capfdbinary, "index", str(lake), "--out", str(tmp_path / "configs"), "--name", "rainlake",
                             "--workers", "0", cwd=tmp_path, env=cli_env(tmp_path))
    out = assert_safe(indexed)
    assert indexed.returncode == 0, out
    assert "not usable as data" in out and "\\x1b" in out  # the names are shown, escaped

    found = lakeboard("discover", str(tmp_path / "configs" / "rainlake"), "rainfall in mm at each station",
                      cwd=tmp_path)
    out = assert_safe(found)
    assert found.returncode == 0, out
    # the six tables are alike: any of them is an answer (their names are shown escaped)
    assert "Files, most relevant first:" in out and any(f"rain{i}" in out for i in range(6))
