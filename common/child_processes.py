"""How Lakeboard starts Python processes: nothing imported from the current folder or a lake, no secret passed on.

`python -m MODULE` puts the current folder first on `sys.path`, so a child started from
inside a lake would import the lake's `json.py` before any code of ours runs. `-P`
(PYTHONSAFEPATH, Python 3.11) leaves it out. `-I` would too, but it also drops PYTHONPATH
and the user's site-packages, where Lakeboard itself may be installed.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

SAFE_PATH_FLAG = "-P"
SAFE_PATH_ENV = "PYTHONSAFEPATH"
# Where a child of ours starts when nothing asks for another folder: owned by root, so no
# other account can plant a module, a `.env` or a tool's config file there; never a lake.
SAFE_FOLDER = os.path.abspath(os.sep)
# The host's secrets that no child needs: the token its HTTP servers ask of callers, and a
# remote kernel's. (The model's key stays: helpers that call the model need it.)
WITHHELD_NAMES = frozenset({"LAKEBOARD_AUTH_TOKEN", "LAKEBOARD_KERNEL_TOKEN"})
# Interpreter options that take a value as the next argument (`python -X importtime -m ...`).
_OPTIONS_WITH_VALUE = frozenset({"-X", "-W", "--check-hash-based-pycs"})


def python_module_command(module: str, *args: str) -> list[str]:
    """This interpreter running `module`, never importing from the current folder."""
    return [sys.executable, SAFE_PATH_FLAG, "-m", module, *args]


@dataclass(frozen=True)
class ModuleRun:
    """A command line `PYTHON [FLAGS] -m MODULE [ARGS]` taken apart."""

    flags: tuple[str, ...]
    module: str
    args: tuple[str, ...]

    @property
    def safe(self) -> bool:
        """Whether the interpreter is told to leave the current folder off `sys.path`."""
        return SAFE_PATH_FLAG in self.flags or "-I" in self.flags


def module_run(command: str, args: Sequence[str]) -> ModuleRun | None:
    """`args` as `[FLAGS] -m MODULE [ARGS]` when `command` is a Python interpreter; else None."""
    if not (os.path.basename(command).startswith("python") or is_this_python(command)):
        return None
    flags: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-m":
            if i + 1 >= len(args) or not args[i + 1]:
                return None
            return ModuleRun(tuple(flags), args[i + 1], tuple(args[i + 2:]))
        if not arg.startswith("-") or arg in ("-", "-c"):
            return None  # a script, stdin or a program: not a module
        flags.append(arg)
        if arg in _OPTIONS_WITH_VALUE and i + 1 < len(args):
            flags.append(args[i + 1])
            i += 1
        i += 1
    return None


def is_this_python(command: str) -> bool:
    """Whether `command`, looked up as a child would be, runs this interpreter with this one's packages.

    Spellings of one interpreter (`python`, `python3`, its absolute path) are links to one file. A
    virtualenv's python links to its base interpreter too, yet runs with the virtualenv's packages,
    which Python finds by the pyvenv.cfg beside the path it was started by: that is compared as well.
    """
    found = shutil.which(command)
    if found is None or not sys.executable:
        return False
    found, this = os.path.abspath(found), os.path.abspath(sys.executable)
    venv = _virtualenv_of(found)
    if venv != _virtualenv_of(this):
        return False
    if venv is not None and os.path.dirname(found) == os.path.dirname(this):
        return True  # one virtualenv's own folder: its pythons may be copies (`--copies`), not links
    try:
        return os.path.samefile(found, this)
    except OSError:
        return False


def _virtualenv_of(executable: str) -> str | None:
    """The virtualenv an interpreter started by this path runs in: where Python itself looks for pyvenv.cfg."""
    folder = os.path.dirname(executable)
    for candidate in (folder, os.path.dirname(folder)):
        if os.path.isfile(os.path.join(candidate, "pyvenv.cfg")):
            return os.path.realpath(candidate)
    return None


def safe_python_args(command: str, args: Sequence[str]) -> list[str]:
    """`args`, with `-P` added before `-m` when this interpreter runs a module without it.

    For servers files written before the flag (or by hand): the host adds it as it starts them.
    Another interpreter may predate `-P`; `safe_python_environment` covers it instead.
    """
    run = module_run(command, args)
    if run is None or run.safe or not is_this_python(command):
        return list(args)
    return with_safe_path(run)


def with_safe_path(run: ModuleRun) -> list[str]:
    """The arguments of `run` with `-P` (for an interpreter known to be 3.11 or later)."""
    flags = run.flags if run.safe else (*run.flags, SAFE_PATH_FLAG)
    return [*flags, "-m", run.module, *run.args]


def safe_python_environment(command: str, args: Sequence[str], env: Mapping[str, str]) -> dict[str, str]:
    """`env`, with PYTHONSAFEPATH set when another Python runs a module without `-P` (older ones ignore it).

    Not for this interpreter, which gets the flag: the variable would reach the server's own
    children too, and a `python script.py` among them would lose its script's folder.
    """
    run = module_run(command, args)
    if run is None or run.safe or is_this_python(command):
        return dict(env)
    return {**env, SAFE_PATH_ENV: "1"}


def inheritable_environment(env: Mapping[str, str]) -> dict[str, str]:
    """What of `env` a child may inherit: no withheld secret, and only absolute PYTHONPATH folders.

    An empty or relative PYTHONPATH part means the current folder (`PYTHONPATH=$PYTHONPATH:/x`
    with PYTHONPATH unset is `:/x`), which `-P` does not remove.
    """
    out = {name: value for name, value in env.items() if name not in WITHHELD_NAMES}
    if "PYTHONPATH" in out:
        folders = [p for p in out["PYTHONPATH"].split(os.pathsep) if os.path.isabs(p)]
        if folders:
            out["PYTHONPATH"] = os.pathsep.join(folders)
        else:
            del out["PYTHONPATH"]
    return out
