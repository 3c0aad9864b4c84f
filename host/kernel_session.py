"""The kernel server as the host sees it: typed calls through the client pool.

    kernel = KernelClient.find(pool)                  # the pool member with an `execute` tool
    result = await kernel.execute("1 + 1")            # ExecutionResult
    notebook_json = await kernel.notebook()           # the session so far (.ipynb text)

Everything goes over MCP; the host never imports the kernel server's code.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from lakeboard.host.pool import ClientPool, PoolError
from lakeboard.host.trace import Trace
from lakeboard.schemas.execution import ExecutionResult, KernelActionResult, SandboxPolicy

NOTEBOOK_URI = "kernel://notebook.ipynb"
SANDBOX_URI = "kernel://sandbox"
_CALL_MARGIN_S = 30.0  # the pool's timeout must outlast the cell's own, plus a kernel restart


class KernelUnavailable(RuntimeError):
    """No kernel server in the pool, or it cannot run code now (the message says why)."""


class KernelClient:
    """Typed access to one kernel server of a pool."""

    def __init__(self, pool: ClientPool, server: str, *, trace: Trace | None = None, timeout_s: float = 120.0) -> None:
        self.pool = pool
        self.server = server
        self.trace = trace
        self.timeout_s = timeout_s

    @classmethod
    def find(cls, pool: ClientPool, *, trace: Trace | None = None, timeout_s: float = 120.0) -> KernelClient:
        """The pool's kernel server: the member that lists an `execute` tool."""
        for name in pool.names:
            if "execute" in pool.tools(name):
                return cls(pool, name, trace=trace, timeout_s=timeout_s)
        failed = [why_not_started(pool, name) for name, s in pool.status().items() if s.state != "ready"]
        if failed:
            raise KernelUnavailable("No kernel server is running, so code cannot be run. " + " ".join(failed))
        names = ", ".join(pool.names) or "none"
        raise KernelUnavailable(
            "No kernel server is running, so code cannot be run: the lake's servers files have no "
            f"`python -m lakeboard.servers.kernel` entry (servers: {names}); run `lakeboard index` again to write one."
        )

    @classmethod
    async def connect(
        cls, pool: ClientPool, name: str, *, trace: Trace | None = None, timeout_s: float = 120.0,
        connect_timeout_s: float | None = None,
    ) -> KernelClient:
        """The pool member `name`, once it has started and lists an `execute` tool. Raises KernelUnavailable."""
        try:
            await pool.ready_client(name, connect_timeout_s)
        except PoolError:
            raise KernelUnavailable("No kernel server is running, so code cannot be run. "
                                    + why_not_started(pool, name)) from None
        if "execute" not in pool.tools(name):
            raise KernelUnavailable(f"The server {name!r} has no `execute` tool, so it is not a kernel server.")
        return cls(pool, name, trace=trace, timeout_s=timeout_s)

    async def execute(self, code: str, timeout_s: float | None = None, *, purpose: str = "run_code") -> ExecutionResult:
        """Run one cell. Raises KernelUnavailable when the server cannot be reached."""
        cell_timeout = timeout_s or self.timeout_s
        started = time.monotonic()
        try:
            result = await self.pool.call(
                self.server, "execute", {"code": code, "timeout_s": cell_timeout}, timeout_s=cell_timeout + _CALL_MARGIN_S
            )
        except PoolError as exc:
            self._emit("kernel_error", time.monotonic() - started, purpose=purpose, error=str(exc), error_kind=exc.kind)
            raise KernelUnavailable(f"The kernel server could not run the code: {exc}") from exc
        if result.structured is None:
            raise KernelUnavailable(f"The kernel server {self.server!r} returned no structured result: {result.text[:300]!r}")
        execution = ExecutionResult.model_validate(result.structured)
        self._emit(
            "kernel_run",
            execution.duration_s,
            purpose=purpose,
            code=code,
            ok=execution.ok,
            error=f"{execution.error.name}: {execution.error.value}" if execution.error else None,
            stdout_chars=len(execution.stdout),
            timed_out=execution.timed_out,
            restarted=execution.restarted,
            sandboxed=execution.sandboxed,
        )
        return execution

    async def restart(self) -> KernelActionResult:
        try:
            result = await self.pool.call(self.server, "restart", {}, timeout_s=self.timeout_s + _CALL_MARGIN_S)
        except PoolError as exc:
            raise KernelUnavailable(f"The kernel server could not restart: {exc}") from exc
        return KernelActionResult.model_validate(result.json())

    async def notebook(self) -> str:
        """The kernel session so far as notebook JSON (nbformat 4)."""
        return await self._read(NOTEBOOK_URI)

    async def policy(self) -> SandboxPolicy:
        """What the kernel's code may do: where the lake is mounted, the workdir, the limits."""
        text = await self._read(SANDBOX_URI)
        try:
            return SandboxPolicy.model_validate_json(text)
        except ValueError as exc:
            raise KernelUnavailable(f"The kernel server's {SANDBOX_URI} is not a sandbox policy: {exc}") from None

    async def _read(self, uri: str) -> str:
        try:
            client = self.pool.client(self.server)
            contents = await client.read_resource(uri)
        except Exception as exc:  # a PoolError, or fastmcp's own errors for resources
            raise KernelUnavailable(f"Could not read {uri} from the kernel server: {exc}") from exc
        texts = [getattr(c, "text", None) for c in contents]
        return "".join(t for t in texts if t)

    def _emit(self, kind: str, elapsed_s: float | None, **data: Any) -> None:
        if self.trace is not None:
            self.trace.emit(kind, server=self.server, elapsed_s=elapsed_s, **data)


def why_not_started(pool: ClientPool, name: str) -> str:
    """One server's failure to start, in its own last words when its log holds them, and where that log is."""
    status = pool.status(name)[name]
    log = pool.log_dir / f"{name}.log" if pool.log_dir is not None else None
    words = _last_words(log) if log is not None else None
    where = f" (its log: {log})" if log is not None and log.is_file() else ""
    return f"{name} did not start: {words or status.last_error or status.state}{where}."


def _last_words(log: Path) -> str | None:
    """What a server said last before it stopped: its own message (servers start theirs with
    'lakeboard ') among the log's last lines, else the last line."""
    try:
        with open(log, "rb") as f:
            f.seek(max(0, f.seek(0, 2) - 4096))
            tail = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    lines = [line.strip() for line in tail.splitlines() if line.strip()][-3:]
    if not lines:
        return None
    own = [i for i, line in enumerate(lines) if line.startswith("lakeboard ")]
    words = " ".join(lines[own[0]:]) if own else lines[-1]
    return _clip(words.rstrip("."), 600)


def render_execution(result: ExecutionResult, *, limit: int = 4000) -> str:
    """A cell's outputs as text for a model: stdout, stderr, result, error; bounded in size."""
    parts: list[str] = []
    if result.stdout:
        parts.append(_clip(result.stdout.rstrip("\n"), limit))
    if result.stderr:
        parts.append("[stderr]\n" + _clip(result.stderr.rstrip("\n"), limit // 2))
    for item in result.display:
        text = item.data.get("text/plain")
        if text:
            parts.append(_clip(str(text), limit // 2))
        elif any(k.startswith("image/") for k in item.data):
            parts.append("[an image was displayed]")
    if result.result is not None:
        parts.append(f"Out[{result.execution_count}]: {_clip(result.result, limit // 2)}")
    if result.error is not None:
        tb = "\n".join(result.error.traceback[-12:])
        parts.append(f"ERROR {result.error.name}: {result.error.value}" + (f"\n{_clip(tb, limit)}" if tb else ""))
    if result.timed_out:
        parts.append("[the cell hit its timeout and was interrupted]")
    if result.restarted:
        parts.append("[the kernel was restarted: every variable is lost]")
    if result.truncated:
        parts.append("[some output was cut at the kernel's size limit]")
    return "\n".join(parts) if parts else "(no output)"


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = text[: limit * 2 // 3]
    tail = text[-limit // 3 :]
    return f"{head}\n... [{len(text) - len(head) - len(tail)} characters cut] ...\n{tail}"
