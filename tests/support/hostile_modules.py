"""Test support: Python modules a hostile lake (or working folder) could hold, each leaving a marker when imported.

A child that imports from its working folder or from the lake runs one of them; the marker
file named after the module then appears in the markers folder (outside the lake).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

# What Lakeboard's processes import first or always: the standard library's usual suspects,
# the startup hooks, Lakeboard's own packages and its main dependencies.
CORE = (
    "json", "argparse", "site", "sitecustomize", "usercustomize", "typing", "enum", "re", "socket", "asyncio",
    "logging", "pathlib", "sqlite3", "runpy", "shlex", "signal", "selectors", "subprocess", "tempfile", "uuid",
    "dataclasses", "contextlib", "functools", "collections", "importlib", "gc", "fcntl", "errno",
    "servers", "common", "host", "schemas", "tests",
    "fastmcp", "mcp", "mcp_types", "pydantic", "anyio", "setproctitle", "psutil", "pandas", "numpy", "openpyxl",
    "httpx", "orjson", "pyarrow",
)


def plant_modules(folder: Path, markers: Path, *, seed: int, extra: int = 30) -> list[str]:
    """Write hostile modules into `folder`: CORE and `extra` random standard-library names, each
    at random a module file or a package. Returns their names."""
    rng = random.Random(seed)
    others = sorted(set(sys.stdlib_module_names) - set(CORE))
    names = [*CORE, *rng.sample(others, min(extra, len(others)))]
    for name in names:
        code = f"open({str(markers / name)!r}, 'w').close()\n"
        if rng.random() < 0.5:
            (folder / name).mkdir(exist_ok=True)
            (folder / name / "__init__.py").write_text(code)
        else:
            (folder / f"{name}.py").write_text(code)
    return names


def imported(markers: Path) -> list[str]:
    """The hostile modules some process imported."""
    return sorted(p.name for p in markers.iterdir()) if markers.is_dir() else []
