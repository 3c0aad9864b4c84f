"""How Lakeboard starts Python processes: -P, no token of the host's, no current folder on PYTHONPATH."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

from lakeboard.common.child_processes import (
    WITHHELD_NAMES,
    inheritable_environment,
    module_run,
    python_module_command,
    safe_python_args,
    safe_python_environment,
)
from tests.support.hostile_modules import imported, plant_modules


def test_a_module_command_never_imports_from_the_current_folder(tmp_path: Path) -> None:
    folder, markers = tmp_path / "here", tmp_path / "markers"
    folder.mkdir()
    markers.mkdir()
    plant_modules(folder, markers, seed=1)
    command = python_module_command("json.tool", "--help")
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=60,
                          env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert done.returncode == 0, done.stderr
    assert imported(markers) == []


def test_this_pythons_module_entries_get_the_flag_others_the_variable(tmp_path: Path) -> None:
    me = sys.executable
    assert safe_python_args(me, ["-m", "lakeboard.servers.kernel", "--lake", "/l"]) == ["-P", "-m", "lakeboard.servers.kernel", "--lake",
                                                                               "/l"]
    assert safe_python_args(me, ["-X", "importtime", "-m", "x"]) == ["-X", "importtime", "-P", "-m", "x"]
    for already in (["-P", "-m", "x"], ["-I", "-m", "x"]):
        assert safe_python_args(me, already) == already
    # A script, `-c`, another program: nothing to add (a script's own folder is its import root).
    for args in (["server.py"], ["-c", "print(1)"], ["-m"], []):
        assert safe_python_args(me, args) == args
    assert safe_python_args("node", ["-m", "x"]) == ["-m", "x"]
    # Another Python may predate -P: it gets PYTHONSAFEPATH, which older ones ignore.
    other = tmp_path / "python3.10"
    other.write_text("#!/bin/sh\n")  # not a link to this interpreter: another one
    other.chmod(0o755)
    assert safe_python_args(str(other), ["-m", "x"]) == ["-m", "x"]
    assert safe_python_environment(str(other), ["-m", "x"], {"A": "1"}) == {"A": "1", "PYTHONSAFEPATH": "1"}
    assert safe_python_environment(str(other), ["server.py"], {"A": "1"}) == {"A": "1"}
    assert safe_python_environment(me, ["-m", "x"], {"A": "1"}) == {"A": "1"}  # it gets -P instead
    run = module_run(me, ["-B", "-m", "lakeboard.servers.file_agent", "--cluster", "a"])
    assert run is not None and run.module == "lakeboard.servers.file_agent" and run.args == ("--cluster", "a")


def test_children_inherit_no_token_and_no_current_folder_on_their_path() -> None:
    rng = random.Random(7)
    for _ in range(50):
        choices = ["", ".", "rel/dir", "./x", "/abs/one", "/abs/two", "~/x"]
        parts = [rng.choice(choices) for _ in range(rng.randint(1, 5))]
        env = {"PYTHONPATH": os.pathsep.join(parts), "LAKEBOARD_LLM_API_KEY": "k", "HOME": "/h"}
        env.update({name: os.urandom(8).hex() for name in WITHHELD_NAMES})
        out = inheritable_environment(env)
        assert not WITHHELD_NAMES & set(out) and out["LAKEBOARD_LLM_API_KEY"] == "k" and out["HOME"] == "/h"
        kept = [p for p in parts if p.startswith("/")]
        assert out.get("PYTHONPATH") == (os.pathsep.join(kept) if kept else None)
