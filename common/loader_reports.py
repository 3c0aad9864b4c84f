"""One file's loader as a person reads it: its check line, then the program.

`lakeboard loader` prints it, and a file agent's sample resource (read through the gateway
too) carries it after the sample, so both show the same text. The check leads as a comment,
so the whole report is a program that runs as is (`lakeboard loader LAKE PATH > load.py`).
"""

from __future__ import annotations

from pathlib import Path

from lakeboard.common.code_text import comment
from lakeboard.common.loader_programs import loading_code
from lakeboard.schemas.messages import Loader
from lakeboard.schemas.profiles import LoaderCheck

NOT_CHECKED = "not checked: the index did not run this loader on its file"


def check_line(check: LoaderCheck | None) -> str:
    """The loader's check in one line: verified, or unverified and why."""
    return check.sentence() if check is not None else NOT_CHECKED


def loader_report(loader: Loader, lake_root: Path) -> str:
    """The check as a leading comment, then the program that binds the file's data to `data` (which
    then does not repeat an unverified check above the function)."""
    program = loading_code([loader.model_copy(update={"check": None})], lake_root)
    return comment(f"loader check: {check_line(loader.check)}", 2000) + "\n" + program
