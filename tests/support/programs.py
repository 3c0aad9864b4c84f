"""Generated programs run by one Python, each as `python -c` would run it: in a fresh namespace, in a
folder of its own. One interpreter start for many programs: each start imports pandas again."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

# Reads the programs (a JSON list) on stdin; runs program i in folder i after a line that marks its output;
# runs them all, then exits 1 if any raised (its traceback on stderr).
_RUNNER = """
import json, os, sys, traceback
failed = False
for i, code in enumerate(json.loads(sys.stdin.read())):
    os.mkdir(str(i))
    os.chdir(str(i))
    print(f"=== program {i} ===", flush=True)
    try:
        exec(compile(code, "<string>", "exec"), {"__name__": "__main__"})
    except BaseException:
        failed = True
        print(f"=== program {i} failed ===", file=sys.stderr)
        traceback.print_exc()
    sys.stdout.flush()
    os.chdir("..")
sys.exit(1 if failed else 0)
"""
_MARK = re.compile(r"^=== program (\d+) ===\n", re.M)


@dataclass(frozen=True)
class ProgramRun:
    stdout: str  # what the program printed
    left: list[str]  # the names of the files it left in its folder


def run_each(codes: list[str], folder: Path) -> list[ProgramRun]:
    """Runs each of `codes` in `folder/<i>` (made here); fails when any of them raised."""
    ran = subprocess.run([sys.executable, "-c", _RUNNER], input=json.dumps(codes), cwd=folder, capture_output=True,
                         text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr[-3000:]
    before, *printed = _MARK.split(ran.stdout)  # [before, "0", output of 0, "1", output of 1, ...]
    assert before == "" and printed[::2] == [str(i) for i in range(len(codes))], ran.stdout[-3000:]
    return [ProgramRun(out, sorted(f.name for f in (folder / str(i)).iterdir())) for i, out in enumerate(printed[1::2])]
