"""A file's loader on demand (`lakeboard loader LAKE PATH`), for a user who already knows the file.

The loader is made on the server side (`lakeboard.servers.file_agent.file_loader`, run as its own
process: the host never imports server code) from the file's cached profile, and comes back as
a typed `Loader`, which the host prints as the program or as JSON.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import PurePosixPath

from lakeboard.common.child_processes import SAFE_FOLDER, inheritable_environment, python_module_command
from lakeboard.host.lakes import Lake, LakeError
from lakeboard.schemas.messages import Loader

FILE_LOADER_MODULE = "lakeboard.servers.file_agent.file_loader"
_RELATIVE = "give the file's path relative to the lake folder, as `lakeboard discover` and list_files show it"


def lake_relative(text: str) -> str:
    """`text` as a lake-relative POSIX path; a path that could leave the lake (absolute, or through ..) is refused."""
    path = PurePosixPath(text)
    if path.is_absolute():
        raise LakeError(f"{text!r} is an absolute path: {_RELATIVE}")
    if ".." in path.parts:
        raise LakeError(f"{text!r} leads out of the lake through '..': {_RELATIVE}")
    if not path.parts:
        raise LakeError(f"the path is empty: {_RELATIVE}")
    return path.as_posix()


def file_loader(lake: Lake, path: str) -> Loader:
    """The loader of the lake's file `path` (lake-relative), with its check; LakeError naming the closest
    files when the lake has no such file."""
    clusters = lake.config_dir / "clusters.json"
    if not clusters.is_file():
        raise LakeError(f"{lake.config_dir} has no clusters.json, so it lists no files: "
                        "give a lake folder, or a config folder written by `lakeboard index`")
    command = python_module_command(FILE_LOADER_MODULE, "--config", str(clusters), "--", path)
    proc = subprocess.run(command, capture_output=True, cwd=SAFE_FOLDER, env=inheritable_environment(os.environ))
    if proc.returncode != 0:
        said = proc.stderr.decode("utf-8", "replace").strip()
        raise LakeError(said or f"the loader of {path!r} could not be read (exit {proc.returncode})")
    return Loader.model_validate_json(proc.stdout)  # UTF-8 JSON, whatever the locale
