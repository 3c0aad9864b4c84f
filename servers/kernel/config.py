"""Kernel server settings: the lake, the scratch directory and the sandbox's limits."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from lakeboard.common.http_security import HttpSettings, add_http_arguments, http_settings


class KernelConfig(BaseModel):
    lake: Path = Field(description="lake folder, mounted read-only at the same absolute path")
    workdir: Path = Field(description="the kernel's writable scratch directory and cwd (over HTTP: its sessions' parent)")
    memory_mb: int = Field(
        2048, ge=256, description="memory the sandbox's processes may hold together (and each one's address space)"
    )
    cpu_seconds: int = Field(
        3600, ge=1, description="CPU time the sandbox's processes may use together before the kernel restarts"
    )
    max_procs: int = Field(256, ge=16, description="processes and threads the sandbox may hold")
    workdir_mb: int = Field(1024, ge=1, description="disk space the workdir may take")
    workdir_files: int = Field(10_000, ge=10, description="files, folders and links the workdir may hold")
    file_size_mb: int = Field(4096, ge=1, description="largest file the kernel may write")
    tmp_mb: int = Field(512, ge=16, description="size of the sandbox's in-memory /tmp")
    timeout_s: float = Field(120.0, gt=0, description="default wall-clock timeout of one cell")
    interrupt_grace_s: float = Field(3.0, gt=0, description="wait after an interrupt before restarting")
    max_output_chars: int = Field(20_000, ge=200, description="per stream and per text output")
    startup_timeout_s: float = Field(30.0, gt=0)
    unsafe_no_sandbox: bool = False
    cgroups: bool = Field(True, description="bound the sandbox with a cgroup where one can be created")
    cgroup_parent: Path | None = Field(None, description="create the sandbox's cgroup under this one")
    unsafe_no_limits: bool = Field(False, description="start even if some limit cannot be enforced")
    max_kernels: int = Field(4, ge=1, description="over HTTP: kernels (one per client session) alive at once")
    idle_timeout_s: float = Field(
        1800.0, gt=0, description="over HTTP: a session's kernel unused this long is stopped (its variables are lost)"
    )

    @field_validator("lake", "workdir")
    @classmethod
    def _absolute(cls, value: Path) -> Path:
        return Path(os.path.abspath(value.expanduser()))

    @model_validator(mode="after")
    def _check_paths(self) -> KernelConfig:
        if not self.lake.is_dir():
            raise ValueError(f"the lake {self.lake} is not a directory")
        if self.lake.resolve() == Path("/"):
            raise ValueError("the lake cannot be '/': that would expose the whole machine to the kernel")
        if self.workdir.resolve() == self.lake.resolve() or self.lake.resolve() in self.workdir.resolve().parents:
            raise ValueError(f"the workdir {self.workdir} must not be inside the lake (the lake stays read-only)")
        return self


class ServerOptions(BaseModel):
    transport: Literal["stdio", "http"] = "stdio"
    http: HttpSettings = HttpSettings(port=8765)


def parse_args(argv: list[str] | None = None) -> tuple[KernelConfig, ServerOptions]:
    parser = argparse.ArgumentParser(
        prog="python -m lakeboard.servers.kernel",
        description="Sandboxed Jupyter kernel as an MCP server (bubblewrap: read-only lake, no network).",
    )
    parser.add_argument("--lake", required=True, type=Path, help="lake folder (read-only inside the kernel)")
    parser.add_argument(
        "--workdir", type=Path, default=None,
        help="writable scratch directory, the kernel's cwd (default: a new temporary directory); over HTTP "
             "each client session works in a new folder inside it, removed when the session ends",
    )
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    add_http_arguments(parser, port=8765)
    defaults = KernelConfig.model_fields
    parser.add_argument("--memory-mb", type=int, default=defaults["memory_mb"].default,
                        help="memory the sandbox's processes may hold together")
    parser.add_argument("--cpu-seconds", type=int, default=defaults["cpu_seconds"].default,
                        help="CPU time the sandbox's processes may use together; past it the kernel restarts")
    parser.add_argument("--max-procs", type=int, default=defaults["max_procs"].default,
                        help="processes and threads the sandbox may hold")
    parser.add_argument("--workdir-mb", type=int, default=defaults["workdir_mb"].default,
                        help="disk space the workdir may take; past it the kernel restarts and the newest files go")
    parser.add_argument("--workdir-files", type=int, default=defaults["workdir_files"].default,
                        help="files, folders and links the workdir may hold; past it the kernel restarts")
    parser.add_argument("--file-size-mb", type=int, default=defaults["file_size_mb"].default)
    parser.add_argument("--tmp-mb", type=int, default=defaults["tmp_mb"].default)
    parser.add_argument("--timeout-s", type=float, default=defaults["timeout_s"].default,
                        help="default wall-clock timeout of one cell")
    parser.add_argument("--interrupt-grace-s", type=float, default=defaults["interrupt_grace_s"].default,
                        help="after a cell's timeout, how long an interrupt may take before the kernel is restarted")
    parser.add_argument("--max-output-chars", type=int, default=defaults["max_output_chars"].default)
    parser.add_argument("--max-kernels", type=int, default=defaults["max_kernels"].default,
                        help="over HTTP, where each client session gets its own kernel: how many may be alive at once")
    parser.add_argument("--idle-timeout-s", type=float, default=defaults["idle_timeout_s"].default,
                        help="over HTTP: stop a session's kernel after this many seconds without a call")
    parser.add_argument(
        "--unsafe-no-sandbox", action="store_true",
        help="run the kernel without bubblewrap (full access to this machine); every result says so",
    )
    parser.add_argument(
        "--cgroup-parent", type=Path, default=None,
        help="cgroup directory to create the sandbox's cgroup under, e.g. a cgroup v2 subtree delegated to "
             "this server (default: the server's own cgroups)",
    )
    parser.add_argument(
        "--no-cgroup", action="store_true",
        help="create no cgroup: the server's watchdog enforces the memory and process limits",
    )
    parser.add_argument(
        "--unsafe-no-limits", action="store_true",
        help="start even where some limit cannot be enforced for the sandbox's whole process tree; "
             "every result says which",
    )
    args = parser.parse_args(argv)
    workdir = args.workdir
    if workdir is None:
        import tempfile

        workdir = Path(tempfile.mkdtemp(prefix="lakeboard-work-"))
    try:
        config = KernelConfig(
            lake=args.lake, workdir=workdir, memory_mb=args.memory_mb, cpu_seconds=args.cpu_seconds,
            max_procs=args.max_procs, workdir_mb=args.workdir_mb, workdir_files=args.workdir_files,
            file_size_mb=args.file_size_mb, max_kernels=args.max_kernels, idle_timeout_s=args.idle_timeout_s,
            tmp_mb=args.tmp_mb, timeout_s=args.timeout_s, interrupt_grace_s=args.interrupt_grace_s,
            max_output_chars=args.max_output_chars,
            unsafe_no_sandbox=args.unsafe_no_sandbox, cgroups=not args.no_cgroup, cgroup_parent=args.cgroup_parent,
            unsafe_no_limits=args.unsafe_no_limits,
        )
    except ValidationError as exc:
        for sentence in config_errors(exc):
            print(f"lakeboard kernel server: {sentence}", file=sys.stderr)
        raise SystemExit(2) from None
    config.workdir.mkdir(parents=True, exist_ok=True)  # only once valid: never inside the lake
    return config, ServerOptions(transport=args.transport, http=http_settings(args))


def config_errors(exc: ValidationError) -> list[str]:
    """One sentence per bad setting, naming its flag (pydantic's own report is a dump)."""
    sentences = []
    for error in exc.errors():
        ctx = error.get("ctx") or {}
        if not error["loc"]:  # a check across settings: its message is the sentence
            message = str(ctx.get("error", error["msg"]))
            sentences.append(message[:1].upper() + message[1:].rstrip(".") + ".")
            continue
        flag = "--" + str(error["loc"][0]).replace("_", "-")
        got = error.get("input")
        if error["type"] == "greater_than_equal":
            sentences.append(f"{flag} must be at least {ctx['ge']} (got {got}).")
        elif error["type"] == "greater_than":
            sentences.append(f"{flag} must be more than {ctx['gt']} (got {got}).")
        else:
            sentences.append(f"{flag} is not valid: {error['msg'][:1].lower()}{error['msg'][1:]} (got {got!r}).")
    return sentences
