"""The bubblewrap sandbox the kernel runs in, and the command line that starts it.

Inside the sandbox the kernel sees: /usr (read-only), a handful of /etc files, the Python
installation (read-only), the lake (read-only, at its real absolute path), the scratch
workdir (writable, its cwd), the directory holding the kernel's ZMQ ipc sockets, a small
in-memory /tmp, and its own /proc and /dev. It gets new user, pid, network, ipc, uts and
cgroup namespaces (so no network at all, only a private loopback), no capabilities, a
non-root uid, a minimal environment, and cannot create further user namespaces. Nothing
else of the host exists in it: no /home, no /root, no /etc/shadow, no /sys.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from lakeboard.servers.kernel.config import KernelConfig

LAUNCHER = Path(__file__).with_name("launcher.py")
LAUNCHER_IN_SANDBOX = "/opt/lakeboard/kernel_launcher.py"
SANDBOX_UID = 1000
# A cell printing this many times the output limit is stopped (it could only be truncated).
OUTPUT_FLOOD_FACTOR = 50
# The server's backstop, for rich outputs and several streams the kernel's own cap misses.
SERVER_FLOOD_FACTOR = 3 * OUTPUT_FLOOD_FACTOR
SANDBOX_HOME = "/tmp/home"
HOSTNAME = "lakeboard-sandbox"

# /etc entries a Python data stack needs (dynamic linker, time zone, mime types, fonts).
ETC_ALLOWED = (
    "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone", "mime.types",
    "nsswitch.conf", "fonts", "alternatives", "os-release", "debian_version", "host.conf",
)
# Top-level names that are symlinks into /usr on merged-/usr systems (or real dirs elsewhere).
USR_ALIASES = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")

UNSAFE_WARNING = (
    "UNSAFE: this kernel runs WITHOUT a sandbox (--unsafe-no-sandbox): the code can read, change and "
    "send anything the server's user can, including the lake, secrets and the network."
)


def bwrap_problem() -> str | None:
    """Why bubblewrap cannot sandbox the kernel here, or None if it can."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap ('bwrap') is not installed; on Debian/Ubuntu: apt-get install bubblewrap"
    argv = [bwrap, *_namespace_args(), *_system_binds(), "true"]
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=20, env={"PATH": "/usr/bin:/bin"}, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap could not run: {exc}"
    if done.returncode != 0:
        detail = done.stderr.strip() or f"exit status {done.returncode}"
        return (
            f"bubblewrap cannot create the sandbox's namespaces here ({detail}); unprivileged user "
            "namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1, or "
            "kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu)"
        )
    return None


def _namespace_args() -> list[str]:
    return [
        "--unshare-all", "--unshare-user", "--disable-userns",
        "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
        "--cap-drop", "ALL", "--die-with-parent", "--new-session", "--hostname", HOSTNAME,
    ]


def _system_binds() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for name in USR_ALIASES:
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    args += ["--proc", "/proc", "--dev", "/dev"]
    return args


def python_roots() -> list[Path]:
    """Directories holding the interpreter and its packages (bound read-only)."""
    candidates = {
        Path(sys.base_prefix), Path(sys.prefix), Path(sys.exec_prefix), Path(sys.base_exec_prefix),
        Path(os.path.realpath(sys.executable)).parent.parent,
    }
    for key in ("purelib", "platlib"):
        candidates.add(Path(sysconfig.get_paths()[key]))
    resolved = {Path(os.path.realpath(p)) for p in candidates if p.exists()}
    # Keep only outermost directories; /usr is bound already.
    roots = sorted(resolved, key=lambda p: len(p.parts))
    kept: list[Path] = []
    for root in roots:
        if root == Path("/") or any(root == k or k in root.parents for k in [Path("/usr"), *kept]):
            continue
        kept.append(root)
    return kept


def kernel_environment(config: KernelConfig) -> dict[str, str]:
    """The whole environment the kernel gets: nothing is inherited from the server."""
    threads = str(max(1, min(os.cpu_count() or 1, 4)))
    python_bin = str(Path(sys.executable).parent)
    home = SANDBOX_HOME if not config.unsafe_no_sandbox else str(config.workdir)
    return {
        "PATH": f"{python_bin}:/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "USER": "sandbox",
        "LOGNAME": "sandbox",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TMPDIR": "/tmp",
        "IPYTHONDIR": f"{home}/.ipython",
        "MPLCONFIGDIR": f"{home}/.matplotlib",
        "PYTHONDONTWRITEBYTECODE": "1",
        # Nothing the kernel's code writes may become importable: neither its cwd (the
        # workdir) nor a user site-packages under its HOME (the workdir when unsandboxed).
        "PYTHONSAFEPATH": "1",
        "PYTHONNOUSERSITE": "1",
        # Each glibc malloc arena reserves 64 MB of address space: with one per thread, a
        # few threads would use up the RLIMIT_AS budget without allocating anything.
        "MALLOC_ARENA_MAX": "2",
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        "OMP_NUM_THREADS": threads,
        "OPENBLAS_NUM_THREADS": threads,
        "MKL_NUM_THREADS": threads,
        "HF_HUB_OFFLINE": "1",
        "LAKEBOARD_LAKE": str(config.lake),
        "LAKEBOARD_WORKDIR": str(config.workdir),
    }


def launcher_args(config: KernelConfig) -> list[str]:
    return [
        "--memory-mb", str(config.memory_mb), "--cpu-seconds", str(config.cpu_seconds),
        "--max-procs", str(0 if config.unsafe_no_sandbox else config.max_procs),
        "--file-size-mb", str(config.file_size_mb),
        "--output-flood-chars", str(OUTPUT_FLOOD_FACTOR * config.max_output_chars),
    ]


KERNEL_OPTIONS = [
    "--HistoryManager.enabled=False",  # no sqlite history file, no extra thread
    "--IPKernelApp.ignore_cwd=True",  # IPython would put the cwd (the workdir) on sys.path
    "--InteractiveShell.colors=NoColor",
    "--IPKernelApp.quiet=True",
]


@dataclass
class SandboxLayout:
    """Host paths the sandbox is built from."""

    config: KernelConfig
    ipc_dir: Path  # ZMQ ipc sockets live here: both sides see it at the same path
    connection_file: Path
    etc_dir: Path  # synthetic /etc/passwd and /etc/group

    def write_identity_files(self) -> None:
        self.etc_dir.mkdir(parents=True, exist_ok=True)
        (self.etc_dir / "passwd").write_text(
            f"sandbox:x:{SANDBOX_UID}:{SANDBOX_UID}:sandbox:{SANDBOX_HOME}:/bin/sh\n"
            "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
        )
        (self.etc_dir / "group").write_text(f"sandbox:x:{SANDBOX_UID}:\nnogroup:x:65534:\n")
        (self.etc_dir / "hosts").write_text(f"127.0.0.1 localhost {HOSTNAME}\n::1 localhost\n")

    def bwrap_argv(self) -> list[str]:
        bwrap = shutil.which("bwrap") or "bwrap"
        config = self.config
        args = [bwrap, *_namespace_args(), "--clearenv"]
        for key, value in kernel_environment(config).items():
            args += ["--setenv", key, value]
        args += _system_binds()
        for name in ETC_ALLOWED:
            path = Path("/etc") / name
            if path.exists():
                args += ["--ro-bind", str(path), str(path)]
        for name in ("passwd", "group", "hosts"):
            args += ["--ro-bind", str(self.etc_dir / name), f"/etc/{name}"]
        # Private /tmp (in memory, capped); the binds below may live under the host's /tmp.
        args += ["--size", str(config.tmp_mb * 1024 * 1024), "--tmpfs", "/tmp", "--dir", SANDBOX_HOME]
        for root in python_roots():
            args += ["--ro-bind", str(root), str(root)]
        # Workdir before the lake, so the lake stays read-only even if nested in the workdir.
        args += ["--bind", str(config.workdir), str(config.workdir)]
        args += ["--ro-bind", str(config.lake), str(config.lake)]
        args += ["--bind", str(self.ipc_dir), str(self.ipc_dir)]
        # The kernel must not be able to rewrite its own connection file before a restart.
        args += ["--ro-bind", str(self.connection_file), str(self.connection_file)]
        args += ["--ro-bind", str(LAUNCHER), LAUNCHER_IN_SANDBOX]
        # In-memory filesystems are capped (they would otherwise eat the host's RAM); the
        # sandbox's own root and /dev (both tmpfs built by bwrap) become read-only.
        shm = min(64, config.tmp_mb) * 1024 * 1024
        args += ["--size", str(shm), "--tmpfs", "/dev/shm", "--remount-ro", "/dev", "--remount-ro", "/"]
        args += ["--chdir", str(config.workdir)]
        return args

    def kernel_argv(self, procs_files: list[Path]) -> list[str]:
        """The kernelspec argv ('{connection_file}' is filled in by jupyter_client)."""
        python = sys.executable
        if self.config.unsafe_no_sandbox:
            argv = [python, str(LAUNCHER)]
        else:
            argv = [*self.bwrap_argv(), python, LAUNCHER_IN_SANDBOX]
        argv += [*launcher_args(self.config), "--", "-f", "{connection_file}", *KERNEL_OPTIONS]
        if procs_files:
            # Join the cgroups before bwrap forks, so every sandboxed process counts. The
            # shell gets the number of files, the files, then the command to become.
            join = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n-1)); done; exec "$@"'
            argv = ["/bin/sh", "-c", join, "sh", str(len(procs_files)), *map(str, procs_files), *argv]
        return argv
