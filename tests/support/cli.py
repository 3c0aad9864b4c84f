"""The `lakeboard` command run by tests: as a process of its own, or by its `main()` in the test process."""

from __future__ import annotations

import contextlib
import io
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

MODEL_VARS = ("LAKEBOARD_LLM_MODEL", "LAKEBOARD_LLM_BASE_URL", "LAKEBOARD_LLM_API_KEY", "LAKEBOARD_LLM_CONFIG",
              "OPENAI_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY")


def cli_env(tmp_path: Path) -> dict[str, str]:
    """This environment without any model settings (and no user config file); lake configs go to the test's
    own home folder, tmp_path/home/configs."""
    env = {k: v for k, v in os.environ.items() if k not in MODEL_VARS}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    env["LAKEBOARD_HOME"] = str(tmp_path / "home")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env["FASTMCP_LOG_LEVEL"] = "WARNING"
    return env


def lakeboard(*args: str, cwd: Path, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lakeboard.host.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def lakeboard_main(capfd, *args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`lakeboard ARGS` run by the command's own `main()` in this process, with `env` as its whole environment
    and `cwd` as its folder: what it and the processes it starts (an indexer) print, and its exit code, without
    the second a new interpreter costs. The environment, folder, umask and logging of this process are restored
    after. `capfd` None (a module fixture has none): only what main() itself prints to stdout is returned (its
    stderr, and what the processes it starts print, stay in pytest's capture of the test)."""
    from lakeboard.host.cli import main

    if capfd is not None:
        capfd.readouterr()
    printed = io.StringIO()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    environment, folder = dict(os.environ), os.getcwd()
    umask = os.umask(0o077)
    os.umask(umask)
    root.handlers = []  # so main() sends its log records to its stderr, as the command does
    try:
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        with contextlib.nullcontext() if capfd is not None else contextlib.redirect_stdout(printed):
            code = main(list(args))
    finally:
        os.chdir(folder)
        os.environ.clear()
        os.environ.update(environment)
        os.umask(umask)
        root.handlers, root.level = handlers, level
    out, err = capfd.readouterr() if capfd is not None else (printed.getvalue(), "")
    return subprocess.CompletedProcess(["lakeboard", *args], code, out, err)


def copy_config(config_dir: Path, to: Path) -> Path:
    """The index in `config_dir` copied to `to` as if it had been written there (its files name `to`), for a
    test that changes it or needs it in a given place: a copy costs nothing, indexing the lake again seconds."""
    shutil.copytree(config_dir, to, symlinks=True)
    for written in (to / "sets").glob("*/*.json"):  # clusters.json, servers.json: where the index lives
        written.write_text(written.read_text().replace(str(config_dir), str(to)))
    return to
