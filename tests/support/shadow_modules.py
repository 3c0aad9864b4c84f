"""Test support: modules planted in a kernel's workdir under the names of real ones (pandas.py,
a `numpy/` package ...), each leaving a marker file if it is ever imported, and a cell that
imports the real ones anew and reports where each came from."""

from __future__ import annotations

import random

# Light packages the kernel can import, and modules of the standard library: each gets a
# shadow in the workdir that would leave a marker file if it ever ran.
PACKAGES = ("pandas", "numpy", "yaml", "dateutil", "six", "packaging", "idna", "openpyxl", "python_calamine", "jinja2", "attr",
            "click", "csv", "statistics", "fractions", "decimal", "json", "textwrap", "difflib")


def shadows(seed: int) -> list[str]:
    chosen = random.Random(seed).sample(PACKAGES[1:], 7)
    return ["pandas", *chosen]


def plant_code(names: list[str]) -> str:
    """A cell writing `NAME.py` (and a package folder for every other one) into the workdir,
    each making the file `PWNED-NAME` when imported."""
    return (
        "import os\n"
        f"for i, name in enumerate({names!r}):\n"
        "    payload = f\"open('PWNED-{name}', 'w').close()\\nraise SystemExit('shadowed')\\n\"\n"
        "    if i % 2:\n"
        "        os.makedirs(name, exist_ok=True)\n"
        "        open(os.path.join(name, '__init__.py'), 'w').write(payload)\n"
        "    else:\n"
        "        open(name + '.py', 'w').write(payload)\n"
    )


def import_code(names: list[str]) -> str:
    """A cell importing each module anew: where it came from, and whether any shadow ran."""
    return (
        "import importlib, os, sys\n"
        "importlib.invalidate_caches()\n"
        "here = os.path.realpath(os.getcwd())\n"
        "loaded = {}\n"
        f"for name in {names!r}:\n"
        "    sys.modules.pop(name, None)\n"
        "    try:\n"
        "        module = importlib.import_module(name)\n"
        "        loaded[name] = os.path.realpath(getattr(module, '__file__', '') or '')\n"
        "    except ImportError:\n"
        "        loaded[name] = None\n"
        "from_workdir = sorted(n for n, f in loaded.items() if f and f.startswith(here + os.sep))\n"
        "markers = sorted(f for f in os.listdir('.') if f.startswith('PWNED'))\n"
        "on_path = [p for p in sys.path if p in ('', '.') or os.path.realpath(p) == here]\n"
        "(from_workdir, markers, on_path, loaded['pandas'] is not None)"
    )
