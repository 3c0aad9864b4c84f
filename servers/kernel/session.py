"""One kernel session: lifecycle (jupyter_client's KernelManager) and cells (its client).

All kernel traffic goes through an AsyncKernelClient on the server's event loop, over ZMQ
`ipc` sockets (Unix sockets in a directory the sandbox shares with the server: TCP cannot
cross the sandbox's empty network namespace). Reads wait on the sockets themselves, so a
trivial cell costs one round trip, no polling sleeps; the loop only wakes every
`LIVENESS_S` when the kernel is silent, to notice a dead kernel or a restart request.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import logging
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from queue import Empty
from typing import Any

from lakeboard.schemas.execution import (
    ExecutionError,
    ExecutionResult,
    KernelActionResult,
    SandboxPolicy,
    VariableInfo,
    VariablesResult,
)
from lakeboard.servers.kernel.cell_ending import CellEnding, Interruption, between_cells_notes, cell_error
from lakeboard.servers.kernel.cgroup import SandboxCgroup
from lakeboard.servers.kernel.config import KernelConfig
from lakeboard.servers.kernel.limits import Enforcement, plan, unenforced_sentence, watchdog_problem
from lakeboard.servers.kernel.notebook import NotebookRecorder
from lakeboard.servers.kernel.outputs import CellOutputs
from lakeboard.servers.kernel.processes import StreamTail, orphaned, stop_strays
from lakeboard.servers.kernel.sandbox import SERVER_FLOOD_FACTOR, UNSAFE_WARNING, SandboxLayout, kernel_environment
from lakeboard.servers.kernel.watchdog import Breach, Watchdog

_OWNER_LOCK = "owner.lock"  # a live kernel server holds it in its state directory
_UNLOCKED_GRACE_S = 60.0  # an unlocked state directory younger than this may be being made
log = logging.getLogger(__name__)

KERNEL_NAME = "lakeboard-sandbox"
STATE_PREFIX = "lbk-"  # + server pid: state of servers that died unannounced is removed
LIVENESS_S = 0.25  # how often a silent wait checks that the kernel is alive
VARIABLES_TIMEOUT_S = 15.0
VARIABLES_EXPR = "__import__('lakeboard_kernel_launcher').describe_variables()"
ZOMBIES_EXPR = "__import__('lakeboard_kernel_launcher').reap_zombies()"


class KernelStartError(RuntimeError):
    """The kernel could not be started (the message says why)."""


class KernelSession:
    def __init__(self, config: KernelConfig) -> None:
        self.config = config
        self.sandboxed = not config.unsafe_no_sandbox
        self.notebook = NotebookRecorder()
        self._exec_lock = asyncio.Lock()
        self._life_lock = asyncio.Lock()
        self._start_task: asyncio.Task[float] | None = None
        self._km: Any = None  # AsyncKernelManager
        self._kc: Any = None  # AsyncKernelClient
        self._generation = 0  # bumped on every (re)start
        self._cell_running = False
        self._restart_requested = False
        self._pending_interrupts: set[str] = set()
        self._state_dir: Path | None = None
        self._state_lock: int | None = None  # held while the state directory is in use
        self._stderr: StreamTail | None = None
        self._cgroup: SandboxCgroup | None = None
        self._enforcement: Enforcement | None = None
        self._unenforced: str | None = None  # the limits nothing enforces (--unsafe-no-limits)
        self._watchdog: Watchdog | None = None
        self.last_startup_s: float | None = None

    # -- policy and warnings -----------------------------------------------------------------
    @property
    def enforcement(self) -> Enforcement:
        """How each limit holds over the sandbox's process tree (known once the kernel started)."""
        return self._enforcement or plan(None, True, self.sandboxed)

    @property
    def warning(self) -> str | None:
        notes = [] if self.sandboxed else [UNSAFE_WARNING]
        if self._unenforced is not None:
            notes.append(f"UNSAFE (--unsafe-no-limits): {self._unenforced}")
        return " ".join(notes) or None

    def policy(self) -> SandboxPolicy:
        c, how = self.config, self.enforcement
        return SandboxPolicy(
            sandboxed=self.sandboxed, mechanism="bubblewrap" if self.sandboxed else "none",
            lake=str(c.lake), workdir=str(c.workdir), network=not self.sandboxed,
            memory_mb=c.memory_mb, memory_limit=how.memory, cpu_seconds=c.cpu_seconds, cpu_limit=how.cpu,
            max_procs=c.max_procs, process_limit=how.processes, workdir_mb=c.workdir_mb,
            workdir_files=c.workdir_files, workdir_limit=how.workdir,
            file_size_mb=c.file_size_mb, tmp_mb=c.tmp_mb, timeout_s=c.timeout_s,
            max_output_chars=c.max_output_chars, warning=self.warning,
        )

    def _warn(self, *notes: str | None) -> str | None:
        parts = [n for n in (*notes, self.warning) if n]
        return " ".join(parts) or None

    # -- lifecycle ---------------------------------------------------------------------------
    def start_in_background(self) -> None:
        """Start the kernel without blocking the MCP handshake; `execute` waits for it."""
        if self._start_task is None:
            self._start_task = asyncio.get_running_loop().create_task(self._first_start())

    async def ready(self) -> None:
        self.start_in_background()
        assert self._start_task is not None
        try:
            await asyncio.shield(self._start_task)
        except KernelStartError:
            raise
        except Exception as exc:  # pragma: no cover - unexpected start-up failure
            raise KernelStartError(f"The kernel could not be started: {exc}") from exc

    async def _first_start(self) -> float:
        async with self._life_lock:
            self._prepare()
            if self._watchdog is not None:
                await asyncio.to_thread(self._watchdog.measure_baseline)
            return await self._launch()

    def _prepare(self) -> None:
        from jupyter_client.kernelspec import KernelSpecManager
        from jupyter_client.manager import AsyncKernelManager

        c = self.config
        c.workdir.mkdir(parents=True, exist_ok=True)
        # Short path: ZMQ ipc socket paths must fit in a Unix socket address (~107 bytes).
        base = tempfile.gettempdir() if len(tempfile.gettempdir()) < 40 else "/tmp"
        _remove_stale_state(Path(base))
        state = Path(tempfile.mkdtemp(prefix=f"{STATE_PREFIX}{os.getpid()}-", dir=base))
        self._state_dir = state
        self._state_lock = _hold_lock(state / _OWNER_LOCK)
        ipc = state / "ipc"
        ipc.mkdir(mode=0o700)
        connection_file = ipc / "kernel.json"
        layout = SandboxLayout(config=c, ipc_dir=ipc, connection_file=connection_file, etc_dir=state / "etc")
        layout.write_identity_files()
        self._set_up_limits(writable=[c.workdir] if not self.sandboxed else [c.workdir, ipc], keep=(connection_file,))
        spec_dir = state / "kernels" / KERNEL_NAME
        spec_dir.mkdir(parents=True)
        spec = {
            "argv": layout.kernel_argv(self._cgroup.procs_files if self._cgroup else []),
            "display_name": "Lakeboard sandbox (Python)",
            "language": "python",
            # bwrap does not forward signals: ask the kernel to interrupt itself instead.
            "interrupt_mode": "message",
            "env": {},
        }
        (spec_dir / "kernel.json").write_text(json.dumps(spec, indent=1))
        self._km = AsyncKernelManager(
            kernel_name=KERNEL_NAME,
            kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(state / "kernels")]),
            transport="ipc",
            ip=str(ipc / "k"),
            connection_file=str(connection_file),
        )
        how = self.enforcement
        log.info(
            "kernel sandbox: %s; limits over its process tree: memory %s, processes %s, CPU time %s, "
            "workdir size %s; state in %s",
            "bubblewrap" if self.sandboxed else "NONE (--unsafe-no-sandbox)",
            how.memory, how.processes, how.cpu, how.workdir, state,
        )

    def _set_up_limits(self, writable: list[Path], keep: tuple[Path, ...]) -> None:
        """A cgroup where one can be created, the watchdog for the rest."""
        c = self.config
        if c.cgroups:
            self._cgroup = SandboxCgroup.create(c.memory_mb, c.max_procs, c.cgroup_parent)
        problem = watchdog_problem()
        self._enforcement = plan(self._cgroup, problem is None, self.sandboxed)
        self._unenforced = unenforced_sentence(self._enforcement, problem)
        if self._unenforced is not None and not c.unsafe_no_limits:  # __main__ refused already
            raise KernelStartError(f"{self._unenforced} Pass --unsafe-no-limits to run without them.")
        if problem is None:
            self._watchdog = Watchdog(c, self._enforcement, self._cgroup, self.sandboxed, writable, keep)
            self._watchdog.start()

    def _launch_env(self) -> dict[str, str]:
        # Even bwrap gets a minimal environment: its own /proc/1/environ is readable inside.
        if self.sandboxed:
            return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
        return kernel_environment(self.config)

    async def _launch(self, restart: bool = False) -> float:
        """Start (or kill and restart) the kernel process, then wait until it answers."""
        started = time.perf_counter()
        self._stop_client()
        if self._watchdog is not None:
            await asyncio.to_thread(self._watchdog.settle)  # a check under way may be cleaning up the workdir
            self._watchdog.watch(None)
        if restart:
            # Unsandboxed, killing the kernel would leave its children behind.
            await asyncio.to_thread(stop_strays, self._kernel_pid(), self.sandboxed)
            await self._km.restart_kernel(now=True)
        else:
            await self._km.start_kernel(
                env=self._launch_env(), cwd=str(self.config.workdir),
                # Not a file: ipykernel echoes captured output there, which would grow without
                # bound. stderr is drained, keeping its tail for start-up error messages.
                stdin=None, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            )
        process = self._process()
        if process is not None and process.stderr is not None:
            self._stderr = StreamTail(process.stderr)
        if self._watchdog is not None:
            self._watchdog.watch(self._kernel_pid())
        self._generation += 1
        kc = self._km.client()
        kc.start_channels(shell=True, iopub=True, stdin=False, hb=False, control=True)
        self._kc = kc
        try:
            await self._wait_ready(kc)
        except KernelStartError:
            self._stop_client()
            raise
        self.last_startup_s = time.perf_counter() - started
        log.info("kernel ready in %.2f s", self.last_startup_s)
        return self.last_startup_s

    async def _wait_ready(self, kc: Any) -> None:
        """Until the kernel answers kernel_info on shell and IOPub is subscribed.

        Requests that reach the kernel while it is still starting can be dropped, so they
        are repeated on a short backoff (any of them may be the one answered).
        """
        deadline = time.monotonic() + self.config.startup_timeout_s
        sent: set[str] = set()
        interval = 0.05
        while True:
            if not await self._km.is_alive():
                if self._stderr is not None:  # let the drain catch the last words
                    await asyncio.to_thread(self._stderr.wait_closed, 0.5)
                raise KernelStartError(f"The kernel exited while starting ({self._exit_reason()}).{self._log_tail()}")
            now = time.monotonic()
            if now > deadline:
                raise KernelStartError(
                    f"The kernel did not answer within {self.config.startup_timeout_s:.0f} s of starting."
                    f"{self._log_tail()}"
                )
            sent.add(kc.kernel_info())
            resend_at = now + interval
            interval = min(interval * 2, 0.5)
            reply = None
            while reply is None and (remaining := resend_at - time.monotonic()) > 0:
                try:
                    msg = await kc.shell_channel.get_msg(timeout=remaining)
                except Empty:
                    break
                if msg["parent_header"].get("msg_id") in sent:
                    reply = msg
            if reply is None:
                continue
            try:  # IOPub's welcome (or the request's status messages) proves it is subscribed
                await kc.iopub_channel.get_msg(timeout=1.0)
            except Empty:
                continue
            self.notebook.set_language_info(reply["content"].get("language_info", {}))
            await self._drain_iopub(kc)
            # Late replies to the repeated requests must not be mistaken for anything else.
            while True:
                try:
                    await kc.shell_channel.get_msg(timeout=0)
                except Empty:
                    break
            log.debug("kernel answered after %d kernel_info request(s)", len(sent))
            return

    async def _drain_iopub(self, kc: Any) -> None:
        while True:
            try:
                await kc.iopub_channel.get_msg(timeout=0)
            except Empty:
                return

    def _stop_client(self) -> None:
        self._pending_interrupts.clear()
        if self._kc is not None:
            try:
                self._kc.stop_channels()
            except Exception:  # pragma: no cover - closing a dead client
                log.debug("stop_channels failed", exc_info=True)
            self._kc = None

    def _process(self) -> Any:
        """The launched process (bwrap when sandboxed, else the kernel), or None."""
        return getattr(getattr(self._km, "provisioner", None), "process", None)

    def _exit_reason(self) -> str:
        code = getattr(self._process(), "returncode", None)
        if code is None:
            return "it is not running"
        # bwrap reports a signal as 128+N; a direct child (unsafe mode) as -N.
        signum = -code if code < 0 else code - 128 if code > 128 else None
        if signum:
            name = signal.Signals(signum).name if signum in signal.Signals._value2member_map_ else str(signum)
            if signum == signal.SIGXCPU:
                return f"killed by {name}: it used up its CPU-time budget of {self.config.cpu_seconds} s"
            if signum == signal.SIGKILL:
                return f"killed by {name}"
            return f"killed by signal {name}"
        return f"exit status {code}"

    def _log_tail(self) -> str:
        text = self._stderr.text().strip() if self._stderr is not None else ""
        return f" Kernel stderr: {text}" if text else ""

    async def restart(self, reason: str = "restart requested") -> KernelActionResult:
        """Kill and restart the kernel, even if a cell is running (that cell then reports it)."""
        generation = self._generation
        if self._cell_running:
            self._restart_requested = True
        async with self._exec_lock:
            await self.ready()
            if self._generation == generation:  # a running cell did not restart it for us
                await self._restart_locked(reason)
        return KernelActionResult(
            action="restart", message="The kernel was restarted; all variables are gone.",
            startup_s=self.last_startup_s, sandboxed=self.sandboxed, warning=self.warning,
        )

    async def _restart_locked(self, reason: str, note: bool = True) -> None:
        async with self._life_lock:
            await self._launch(restart=True)
        if note:
            self.notebook.add_note(restart_note(reason))

    async def interrupt(self) -> KernelActionResult:
        await self.ready()
        if not self._cell_running:
            message = "No cell was running; nothing to interrupt."
        else:
            self._send_interrupt()
            message = "Interrupt sent to the running cell."
        return KernelActionResult(action="interrupt", message=message, sandboxed=self.sandboxed, warning=self.warning)

    async def shutdown(self) -> None:
        if self._start_task is not None and not self._start_task.done():
            self._start_task.cancel()
        self._stop_client()
        if self._km is not None and self._km.has_kernel:
            try:
                await self._km.shutdown_kernel(now=True)
            except Exception:  # pragma: no cover - best effort at exit
                log.debug("shutdown_kernel failed", exc_info=True)
        if self._watchdog is not None:
            self._watchdog.close()
        if self._cgroup is not None:
            self._cgroup.remove()
        if self._state_dir is not None:
            shutil.rmtree(self._state_dir, ignore_errors=True)
        if self._state_lock is not None:
            os.close(self._state_lock)
            self._state_lock = None

    # -- cells -------------------------------------------------------------------------------
    async def execute(self, code: str, timeout_s: float | None = None) -> ExecutionResult:
        timeout = timeout_s if timeout_s is not None else self.config.timeout_s
        await self.ready()
        async with self._exec_lock:
            if self._watchdog is not None:
                await asyncio.to_thread(self._watchdog.check_now)
            notes = between_cells_notes(self._take_breaches())
            restarted = False
            if not await self._km.is_alive():
                stopped_for = await self._stop_reason()
                reason = stopped_for or self._exit_reason()
                await self._restart_locked(f"it had stopped: {reason}")
                restarted = True
                if stopped_for is not None:  # a limit passed between cells: said once, as the restart's cause
                    notes.append(f"The kernel was restarted before this cell because {reason}; its variables are gone.")
                else:
                    notes.append(f"The kernel had stopped ({reason}) and was restarted before this cell: "
                                 "earlier variables are lost.")
            self._cell_running = True
            self._restart_requested = False
            try:
                result = await self._run_cell(code, timeout)
            finally:
                self._cell_running = False
            result.restarted |= restarted
            result.warning = self._warn(*notes, result.warning)
            return result

    async def _run_cell(self, code: str, timeout: float) -> ExecutionResult:
        kc = self._kc
        hits_before = self._cgroup.limit_hits() if self._cgroup else 0
        outputs = CellOutputs(self.config.max_output_chars)
        breaches: list[Breach] = []
        if self._watchdog is not None:
            self._watchdog.begin_cell()
        started = time.perf_counter()
        msg_id = kc.execute(code, silent=False, store_history=True, allow_stdin=False, stop_on_error=False)
        ending = await self._await_cell(kc, msg_id, outputs, timeout, breaches)
        if ending.finished:
            await self._collect_reply(kc, msg_id, outputs)
        else:
            await self._restart_locked(ending.restart_reason(), note=False)
        if self._watchdog is not None:
            await asyncio.to_thread(self._watchdog.end_cell)
        breaches += self._take_breaches()
        error, notes = cell_error(ending, outputs.error, timeout, outputs.received_chars, breaches)
        stopped = sum(b.stopped for b in breaches)
        left_behind, reap_notes = await self._reap_strays(kc, ending, error, hits_before, zombies=stopped > 0)
        notes += reap_notes
        truncation = outputs.truncation_note()
        if truncation:
            notes.append(truncation)

        if error is not None and outputs.error is not error:
            outputs.add("error", {"ename": error.name, "evalue": error.value, "traceback": error.traceback})
        restarted = not ending.finished
        result = ExecutionResult(
            stdout=outputs.streams["stdout"].text(),
            stderr=outputs.streams["stderr"].text(),
            result=outputs.result,
            display=outputs.display,
            error=error,
            execution_count=outputs.execution_count,
            duration_s=round(time.perf_counter() - started, 6),
            timed_out=ending.timed_out,
            truncated=outputs.any_truncated,
            restarted=restarted,
            stopped_processes=stopped + left_behind,
            sandboxed=self.sandboxed,
            warning=" ".join(notes) or None,
        )
        self.notebook.add_cell(
            code, outputs.execution_count, outputs.notebook_outputs(),
            metadata={"duration_s": result.duration_s, "timed_out": ending.timed_out, "restarted": restarted},
        )
        if restarted:
            self.notebook.add_note(restart_note(ending.restart_reason()))
        return result

    async def _await_cell(
        self, kc: Any, msg_id: str, outputs: CellOutputs, timeout: float, breaches: list[Breach]
    ) -> CellEnding:
        """Collect the cell's outputs until the kernel goes idle, dies, or must be restarted.

        Past its timeout, once it has printed far more than can be shown, or when the
        sandbox passes one of its limits (`breaches` collects them), the cell is interrupted;
        `deadline` then becomes the end of the interrupt's grace period.
        """
        deadline = time.monotonic() + timeout
        interrupted_for: Interruption | None = None
        flood_chars = SERVER_FLOOD_FACTOR * self.config.max_output_chars
        while True:
            if self._restart_requested:
                return CellEnding(finished=False, interrupted_for=interrupted_for, restart_requested=True)
            new = self._take_breaches()
            breaches += new
            if interrupted_for is None and any(not b.sandbox_stopped for b in new):
                interrupted_for = "limit"
                deadline = self._interrupt_with_grace()
            now = time.monotonic()
            if now >= deadline:
                if interrupted_for is not None:
                    return CellEnding(finished=False, interrupted_for=interrupted_for)  # interrupt ignored
                interrupted_for = "timeout"
                deadline = self._interrupt_with_grace()
            try:
                msg = await kc.iopub_channel.get_msg(timeout=max(0.0, min(deadline - now, LIVENESS_S)))
            except Empty:
                if not await self._km.is_alive():
                    return CellEnding(finished=False, interrupted_for=interrupted_for, died=await self._death_reason())
                continue
            if msg["parent_header"].get("msg_id") != msg_id:
                continue  # left over from an earlier, abandoned cell
            msg_type, content = msg["msg_type"], msg["content"]
            if msg_type == "status":
                if content.get("execution_state") == "idle":
                    return CellEnding(finished=True, interrupted_for=interrupted_for)
                continue
            outputs.add(msg_type, content)
            if interrupted_for is None and outputs.received_chars > flood_chars:
                interrupted_for = "flood"
                deadline = self._interrupt_with_grace()

    def _take_breaches(self) -> list[Breach]:
        return self._watchdog.take() if self._watchdog is not None else []

    async def _death_reason(self) -> str:
        """Why the kernel's process is gone: a limit that stopped the sandbox, or its exit."""
        return await self._stop_reason() or self._exit_reason()

    async def _stop_reason(self) -> str | None:
        """The limit that stopped the sandbox, if one did (the watchdog's check may be under way)."""
        return await asyncio.to_thread(self._watchdog.stop_reason) if self._watchdog is not None else None

    def _interrupt_with_grace(self) -> float:
        """Interrupt the running cell; return when it must have stopped."""
        self._send_interrupt()
        return time.monotonic() + self.config.interrupt_grace_s

    async def _collect_reply(self, kc: Any, msg_id: str, outputs: CellOutputs) -> None:
        """Once the kernel is idle: let interrupts land, then take the execution count and
        any error the kernel failed to publish (e.g. while formatting it) from its reply."""
        if self._pending_interrupts:
            await self._settle_interrupts(kc)
        reply = await self._shell_reply(kc, msg_id, timeout=2.0)
        content = reply["content"] if reply is not None else {}
        if outputs.execution_count is None:
            outputs.execution_count = content.get("execution_count")
        if outputs.error is None and content.get("status") == "error":
            outputs.add("error", {"ename": content.get("ename", "Error"), "evalue": content.get("evalue", ""),
                                  "traceback": content.get("traceback", [])})

    async def _reap_strays(
        self, kc: Any, ending: CellEnding, error: ExecutionError | None, hits_before: int, zombies: bool
    ) -> tuple[int, list[str]]:
        """Stop the processes a finished cell left running; return how many, and notes.

        `zombies`: processes were stopped during the cell, so the kernel has dead children
        to collect even if none is left running now.
        """
        notes: list[str] = []
        stopped = 0
        if ending.finished:
            stopped = await asyncio.to_thread(stop_strays, self._kernel_pid(), self.sandboxed)
            if stopped or zombies:
                try:  # the kernel collects its dead children, freeing their process slots
                    await self._silent(kc, ZOMBIES_EXPR, timeout=5.0)
                except (TimeoutError, RuntimeError) as exc:
                    log.warning("could not reap the kernel's dead children: %s", exc)
            if stopped:
                notes.append(f"Stopped {stopped} process(es) the cell left running.")
        limit_hit = self._cgroup is not None and self._cgroup.limit_hits() > hits_before
        if limit_hit or _looks_like_process_limit(error):
            notes.append(f"The cell reached the sandbox's process limit ({self.config.max_procs}).")
        return stopped, notes

    def _send_interrupt(self) -> None:
        """Ask the kernel to SIGINT itself (bwrap does not forward signals from outside)."""
        kc = self._kc
        if kc is None:
            return
        msg = kc.session.msg("interrupt_request", content={})
        kc.control_channel.send(msg)
        self._pending_interrupts.add(msg["header"]["msg_id"])

    async def _settle_interrupts(self, kc: Any, timeout: float = 1.0) -> None:
        """Wait until every interrupt sent has been delivered (the kernel replies after
        signalling itself), so a late SIGINT cannot land in the next cell."""
        deadline = time.monotonic() + timeout
        while self._pending_interrupts and (remaining := deadline - time.monotonic()) > 0:
            try:
                msg = await kc.control_channel.get_msg(timeout=remaining)
            except Empty:
                break
            self._pending_interrupts.discard(msg["parent_header"].get("msg_id"))
        self._pending_interrupts.clear()

    async def _shell_reply(self, kc: Any, msg_id: str, timeout: float) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                msg = await kc.shell_channel.get_msg(timeout=remaining)
            except Empty:
                return None
            if msg["parent_header"].get("msg_id") == msg_id:
                return msg

    def _kernel_pid(self) -> int | None:
        """The host pid of the launched process (bwrap when sandboxed, else the kernel)."""
        return getattr(self._process(), "pid", None)

    async def _silent(self, kc: Any, expression: str, timeout: float) -> str:
        """Evaluate one expression in the kernel without touching history, outputs or
        the execution count (a silent execute's user_expressions); returns its str value."""
        msg_id = kc.execute("", silent=True, store_history=False, user_expressions={"v": expression})
        reply = await self._shell_reply(kc, msg_id, timeout=timeout)
        if reply is None:
            raise TimeoutError(f"the kernel did not answer within {timeout:g} s")
        value = reply["content"].get("user_expressions", {}).get("v", {})
        if value.get("status") != "ok":
            raise RuntimeError(f"{value.get('ename')}: {value.get('evalue')}")
        import ast

        return str(ast.literal_eval(value["data"]["text/plain"]))

    # -- introspection -----------------------------------------------------------------------
    async def variables(self) -> VariablesResult:
        await self.ready()
        async with self._exec_lock:
            if not await self._km.is_alive():
                return VariablesResult(variables=[], sandboxed=self.sandboxed,
                                       warning=self._warn("The kernel is not running; run a cell to restart it."))
            try:
                text = await self._silent(self._kc, VARIABLES_EXPR, timeout=VARIABLES_TIMEOUT_S)
            except TimeoutError:
                self._send_interrupt()
                await self._settle_interrupts(self._kc)
                raise TimeoutError(f"Listing variables took longer than {VARIABLES_TIMEOUT_S:g} s.") from None
            except RuntimeError as exc:
                raise RuntimeError(f"Listing variables failed: {exc}") from exc
        rows = json.loads(text)
        return VariablesResult(variables=[VariableInfo(**row) for row in rows], sandboxed=self.sandboxed,
                               warning=self.warning)


def _remove_stale_state(base: Path) -> None:
    """Delete state directories of kernel servers that are gone (killed, or SIGTERM).

    The pid in a directory's name is not enough: a server in another PID namespace (a sandbox,
    a container sharing /tmp) has pids this one cannot see. A live server holds the lock in its
    directory, and a directory whose lock can be taken has no server.
    """
    for path in orphaned(base, STATE_PREFIX):
        if path.is_dir() and path.stat().st_uid == os.getuid() and _abandoned(path):
            shutil.rmtree(path, ignore_errors=True)


def _hold_lock(path: Path) -> int:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


def _abandoned(state: Path) -> bool:
    """Whether no server holds this state directory (one being made, not yet locked, is kept a while)."""
    try:
        fd = os.open(state / _OWNER_LOCK, os.O_RDWR)
    except FileNotFoundError:
        try:
            return time.time() - state.stat().st_mtime > _UNLOCKED_GRACE_S
        except OSError:
            return False
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:  # held: its server is alive
        return False
    finally:
        os.close(fd)


def restart_note(reason: str) -> str:
    return f"*Kernel restarted ({reason}); variables defined above were lost.*"


def _looks_like_process_limit(error: ExecutionError | None) -> bool:
    if error is None:
        return False
    return error.name == "BlockingIOError" or "Resource temporarily unavailable" in error.value
