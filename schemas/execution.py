"""Kernel server contracts: what running a cell returns, and what the sandbox allows.

The kernel server's `execute` tool returns an `ExecutionResult` as MCP structured content
(images also come back as MCP image content); the host reads it back with
`ExecutionResult.model_validate(result.structured_content)`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

# The images a display carries as base64 text, and that come back as MCP image content: the
# formats common MCP clients and vision models show (an SVG stays text).
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


class ExecutionError(BaseModel):
    """An exception the cell raised (or a limit the sandbox enforced on it)."""

    name: str = Field(description="exception class, e.g. 'KeyError' or 'TimeoutError'")
    value: str = Field(description="the exception's message")
    traceback: list[str] = Field(default_factory=list, description="traceback lines, colour codes removed")


class DisplayData(BaseModel):
    """One rich output (display() call, or the non-text part of a cell's result)."""

    data: dict[str, Any] = Field(
        description="mime type -> content; binary types (image/png, image/jpeg, ...) are base64 text"
    )
    metadata: dict[str, Any] = Field(default_factory=dict)


class ExecutionResult(BaseModel):
    """Everything one executed cell produced."""

    stdout: str = ""
    stderr: str = ""
    result: str | None = Field(None, description="text/plain repr of the cell's last expression, if any")
    display: list[DisplayData] = Field(default_factory=list)
    error: ExecutionError | None = None
    execution_count: int | None = Field(None, description="the cell's In[n]; None if it never ran")
    duration_s: float = 0.0
    timed_out: bool = Field(False, description="the cell hit its wall-clock timeout and was interrupted")
    truncated: bool = Field(False, description="some output was cut at the server's size limit")
    restarted: bool = Field(False, description="the kernel was restarted during this call: variables are lost")
    stopped_processes: int = Field(
        0, description="processes the server stopped for this cell: ones it left running, or ones past the "
                       "sandbox's limits"
    )
    sandboxed: bool = Field(description="False only when the server runs with --unsafe-no-sandbox")
    warning: str | None = Field(None, description="what the caller should know beyond the outputs")

    @property
    def ok(self) -> bool:
        return self.error is None


class VariableInfo(BaseModel):
    """One user variable in the kernel's namespace."""

    name: str
    type: str = Field(description="qualified type name, e.g. 'pandas.core.frame.DataFrame'")
    shape: list[int] | None = Field(None, description="for arrays and frames")
    length: int | None = Field(None, description="len() for sized containers")
    dtype: str | None = None
    preview: str = Field("", description="a short, bounded repr")


class VariablesResult(BaseModel):
    variables: list[VariableInfo] = Field(default_factory=list)
    sandboxed: bool
    warning: str | None = None


class KernelActionResult(BaseModel):
    """Outcome of interrupt / restart."""

    action: Literal["interrupt", "restart"]
    message: str
    startup_s: float | None = Field(None, description="kernel start-up time, for restart")
    sandboxed: bool
    warning: str | None = None


class NotebookSaved(BaseModel):
    path: str = Field(description="absolute path of the written .ipynb")
    cells: int
    sandboxed: bool
    warning: str | None = None


# 'cgroup': the kernel's cgroup; 'rlimit': a per-user process limit; 'watchdog': the server
# measures the process tree and stops it when over; 'none': not enforced (--unsafe-no-limits).
LimitMechanism = Literal["cgroup", "rlimit", "watchdog", "none"]


class SandboxPolicy(BaseModel):
    """What the kernel's code may and may not do, as the server enforces it."""

    sandboxed: bool
    mechanism: str = Field(description="'bubblewrap' or 'none'")
    lake: str = Field(description="absolute lake path, mounted read-only at the same path")
    workdir: str = Field(description="the kernel's writable working directory (its cwd)")
    network: bool = Field(description="whether the kernel can reach any network")
    memory_mb: int = Field(description="memory the sandbox's processes may hold together")
    memory_limit: LimitMechanism = Field(description="how memory_mb is enforced over the whole process tree")
    cpu_seconds: int = Field(
        description="CPU time the sandbox's processes may use together; past it the kernel restarts"
    )
    cpu_limit: LimitMechanism = Field(description="how cpu_seconds is enforced over the whole process tree")
    max_procs: int = Field(description="processes and threads the sandbox may hold")
    process_limit: LimitMechanism = Field(description="how max_procs is enforced over the whole process tree")
    workdir_mb: int = Field(description="disk space the workdir may take")
    workdir_files: int | None = Field(None, description="files, folders and links the workdir may hold")
    workdir_limit: LimitMechanism = Field(
        description="how workdir_mb and workdir_files are enforced, also between cells: past them the kernel restarts"
    )
    file_size_mb: int
    tmp_mb: int = Field(description="size of the in-memory /tmp")
    timeout_s: float = Field(description="default wall-clock timeout of one cell")
    max_output_chars: int
    warning: str | None = None
