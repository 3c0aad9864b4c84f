"""A working folder of its own for each kernel the host starts, so no two share files.

The lake's servers file gives the kernel server one `--workdir`; every client session (and
every `ask`) would share it. The host instead gives each kernel server it starts a new
owner-only folder under `BASE` (added last to its command line: the last `--workdir`
wins), and removes it when that kernel stops. Folders left by a host that was killed are
removed by the next one (their name starts with the host's pid).
"""

from __future__ import annotations

import logging
import os
import secrets
import shutil
import stat
import tempfile
from pathlib import Path

import psutil

from lakeboard.host.lakes import KERNEL_MODULE, runs_module
from lakeboard.host.servers_config import ServerEntry, ServersConfig, StdioServerEntry

log = logging.getLogger(__name__)

KERNEL_WORKDIRS = "kernel-workdirs"  # in a lake's config folder


def own_workdirs(config: ServersConfig, workdirs: KernelWorkdirs) -> tuple[ServersConfig, list[Path]]:
    """`config` with each kernel server it starts working in a new folder of its own, and those folders."""
    servers, folders = {}, []
    for name, entry in config.servers.items():
        if starts_kernel_server(entry):
            assert isinstance(entry, StdioServerEntry)
            folders.append(workdirs.make("ask"))
            entry = private_workdir(entry, folders[-1])
        servers[name] = entry
    return config.model_copy(update={"servers": servers}), folders


def starts_kernel_server(entry: ServerEntry) -> bool:
    """Whether `entry` starts a kernel server itself (one reached by URL keeps a folder per
    session on its own side)."""
    return isinstance(entry, StdioServerEntry) and runs_module(entry, KERNEL_MODULE)


def private_workdir(entry: StdioServerEntry, folder: Path) -> StdioServerEntry:
    """`entry`, a kernel server's, working in `folder`."""
    return entry.model_copy(update={"args": [*entry.args, "--workdir", str(folder)]})


class KernelWorkdirs:
    """Folders for the kernels one host process starts, under `base`; under a new temporary
    folder when there is no base or it cannot be used."""

    def __init__(self, base: Path | None) -> None:
        self.base = _own_folder(base) if base is not None else None
        if self.base is None:
            self.base = Path(tempfile.mkdtemp(prefix="lakeboard-kernels-"))  # new and owner-only: nothing stale
        else:
            self._remove_stale()

    def make(self, label: str) -> Path:
        folder = self.base / f"{os.getpid()}-{label}-{secrets.token_hex(4)}"
        folder.mkdir(mode=0o700)
        return folder

    def remove(self, folder: Path) -> None:
        """Remove a kernel's folder once its kernel has stopped, whatever permissions its code left."""
        _remove_tree(folder)

    def _remove_stale(self) -> None:
        try:
            names = os.listdir(self.base)
        except OSError:
            return
        for name in names:
            owner = name.split("-", 1)[0]
            folder = self.base / name
            if not owner.isdigit() or psutil.pid_exists(int(owner)) or folder.is_symlink() or not folder.is_dir():
                continue
            if folder.stat().st_uid == os.getuid():
                _remove_tree(folder)


def _own_folder(folder: Path) -> Path | None:
    """`folder`, made owner-only if missing, when it is a real folder of this user's; else None."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(folder)
    except OSError as exc:
        log.warning("cannot use %s for the kernels' folders (%s): a temporary folder is used instead", folder, exc)
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        log.warning("%s is not a folder of yours: the kernels' folders go to a temporary folder instead", folder)
        return None
    return folder


def _remove_tree(folder: Path) -> None:
    """Remove `folder`, giving back the permissions the kernel's code may have taken from its
    folders (its processes are gone by now: nothing swaps a folder for a link meanwhile)."""
    _give_back(str(folder))
    for root, folders, _ in os.walk(folder):  # top down: each folder is opened after its fix
        for name in folders:
            _give_back(os.path.join(root, name))
    shutil.rmtree(folder, ignore_errors=True)
    if os.path.lexists(folder):
        log.warning("could not remove the kernel folder %s entirely", folder)


def _give_back(path: str) -> None:
    try:
        info = os.lstat(path)
        if stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_IRWXU != stat.S_IRWXU:
            os.chmod(path, stat.S_IMODE(info.st_mode) | stat.S_IRWXU)
    except OSError:
        pass
