"""The gateway's work, as plain async methods: `server.py` only declares them over MCP.

    gateway = Gateway(resolve_lake("configs/demo"))
    await gateway.start()
    answer = await gateway.request_help("daily PM2.5 readings in 2024")   # HelpAnswer
    result = await gateway.run_code("session-1", "1 + 1")                  # ExecutionResult
    await gateway.close()
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from mcp import MCPError

from lakeboard.common.file_versions import read_once
from lakeboard.common.file_lists import file_lines, markdown_inline as _inline
from lakeboard.host.agents.observations import render_posting
from lakeboard.host.blackboard import Blackboard
from lakeboard.host.discover_files import RANKED_NEXT, TEMPLATE_NOTE, discovery_of
from lakeboard.host.gateway.kernels import KernelLimits, KernelSessions
from lakeboard.host.kernel_workdirs import KERNEL_WORKDIRS
from lakeboard.host.gateway.models import Declined, Failure, HelpBoard, Partition, Partitions
from lakeboard.host.gateway.mounting import Mounts
from lakeboard.host.lakes import Lake, LakeError, file_agent_partition, refresh_index
from lakeboard.host.pool import ClientPool, PoolError
from lakeboard.host.servers_config import HttpServerEntry, ServerEntry
from lakeboard.host.trace import Trace
from lakeboard.schemas.board import Posting
from lakeboard.schemas.clusters import ClusterConfig
from lakeboard.schemas.discovery_result import DiscoveryResult
from lakeboard.schemas.execution import ExecutionResult
from lakeboard.schemas.messages import BlackboardRequest

log = logging.getLogger(__name__)
# the next look at the lake waits at least this many times as long as the last one took
CHECK_SHARE = 20


class NotAvailable(LookupError):
    """A partition, file or sample the gateway cannot give; the message says why and where to look."""


@dataclass
class HelpAnswer:
    board: HelpBoard
    text: str  # the Markdown summary a model reads


class Gateway:
    """A lake's helpers on one blackboard, kernels by client session, and what the lake holds.

    kernel: a kernel server to use instead of the config's own (e.g. one on a Linux machine, by URL).
    helper_timeout_s: each helper's limit for can_help, and again for respond; a request_help takes at
        most about twice this, and a helper that timed out is skipped until it answers again (pool.slow).
    kernel_limits: how many kernels run at once, and how long one may sit unused.
    index_check_s: the least time between two checks of the lake for changes before a request_help
        (0: before every one), and at least CHECK_SHARE times as long as the last check took, so that
        looking at a large lake takes a small share of the gateway's time (a 50k-file lake takes about
        a second); a changed lake is re-indexed and the helpers that read the index restarted.
    """

    def __init__(
        self,
        lake: Lake,
        *,
        kernel: ServerEntry | None = None,
        helper_timeout_s: float = 20.0,
        cell_timeout_s: float = 120.0,
        connect_timeout_s: float = 60.0,
        trace: Trace | None = None,
        kernel_limits: KernelLimits | None = None,
        index_check_s: float = 5.0,
    ) -> None:
        self.lake = lake
        self.helper_timeout_s = helper_timeout_s
        self.trace = trace
        log_dir = _writable(lake.config_dir / "logs")
        self.pool = ClientPool({}, trace=trace, log_dir=log_dir, connect_timeout_s=connect_timeout_s)
        self.mounts = Mounts(lake.config_dir, self.pool, kernel=kernel)
        self.kernels = KernelSessions(lambda: self.mounts.kernel, lake=lake.root, log_dir=log_dir, trace=trace,
                                      cell_timeout_s=cell_timeout_s, connect_timeout_s=connect_timeout_s,
                                      limits=kernel_limits, workdirs=lake.config_dir / KERNEL_WORKDIRS,
                                      forks_from=self.pool)
        self._warming: asyncio.Task | None = None
        self.index_check_s = index_check_s
        self._index_checked_at: float | None = None  # time.monotonic() of the last check
        self._index_check_took_s = 0.0  # how long the last look at an unchanged lake took
        self._index_checking = asyncio.Lock()

    async def start(self) -> None:
        """Mount the helpers and start connecting them in the background, so the first request is quick."""
        for problem in await self.mounts.refresh():
            log.warning("%s", problem)
        self._warming = asyncio.ensure_future(self.pool.start())

    async def close(self) -> None:
        if self._warming is not None:
            self._warming.cancel()
        await self.kernels.close()
        await self.pool.close()

    # -- the blackboard ------------------------------------------------------------------
    async def request_help(self, request: str, reason: str = "") -> HelpAnswer:
        """Post on the blackboard: every mounted helper sees the request at once and decides for itself."""
        changed = await self.refresh_index()
        notes = ([changed] if changed else []) + await self.mounts.refresh()
        board = Blackboard(self.pool, self.trace, can_help_timeout_s=self.helper_timeout_s,
                           respond_timeout_s=self.helper_timeout_s, lake_index=self.lake.search_index,
                           mirror=self.lake.mirror())
        posting = await board.post(BlackboardRequest(request=request, reason=reason))
        found = discovery_of(posting)
        help_board = _help_board(posting, found, notes)
        return HelpAnswer(help_board, _summary(help_board, posting, found))

    async def refresh_index(self) -> str | None:
        """Re-index the lake if it changed since it was indexed (at most every index_check_s); the line said, or None.

        The helpers' entries name the config folder's stable links, so a new index does not change
        them; but a file agent reads its partition, and the search agent the profiles, when it
        starts. So the file agents whose partition changed and every other helper of the index
        are restarted. The check runs in a thread: the walk must not stall other sessions' calls.
        """
        if self.lake.root is None:
            return None
        async with self._index_checking:  # a request waiting here sees the index the running check makes
            wait_s = max(self.index_check_s, CHECK_SHARE * self._index_check_took_s) if self.index_check_s else 0.0
            if self._index_checked_at is not None and time.monotonic() - self._index_checked_at < wait_s:
                return None
            before = _partition_files(self._clusters())
            started = time.monotonic()
            try:
                line = await asyncio.to_thread(refresh_index, self.lake.config_dir, self.lake.root)
            except LakeError as exc:
                return (f"the lake changed since it was indexed, but re-indexing failed ({exc}); "
                        "answers come from the previous index")
            finally:
                self._index_checked_at = time.monotonic()
            if line is None:
                self._index_check_took_s = self._index_checked_at - started
                return None
            await self.mounts.refresh()  # the new servers.json: a new or removed partition is mounted or dropped
            after = _partition_files(self._clusters())
            clusters_path = self.lake.config_dir / "clusters.json"
            stale = []
            for name in self.mounts.index_helpers():
                partition = file_agent_partition(self.mounts.helpers.get(name), clusters_path, name)
                if partition is None or before.get(partition) != after.get(partition):
                    stale.append(name)
            await self.mounts.restart(stale)
            log.info("%s; restarted %s", line, ", ".join(stale) or "no helper")
            return line

    # -- the kernel ----------------------------------------------------------------------
    async def run_code(self, session: str, code: str, timeout_s: float | None = None) -> ExecutionResult:
        """Run a cell in the session's own kernel. Raises KernelUnavailable with what to do."""
        await self.mounts.refresh()
        return await self.kernels.run(session, code, timeout_s)

    async def end_session(self, session: str) -> None:
        await self.kernels.end(session)

    # -- what the lake holds ---------------------------------------------------------------
    async def partitions(self) -> Partitions:
        notes = await self.mounts.refresh()
        config = self._clusters()
        clusters_path = self.lake.config_dir / "clusters.json"
        served = {}
        for name, entry in self.mounts.helpers.items():
            partition = file_agent_partition(entry, clusters_path, name)
            if partition is not None:
                served[partition] = name
        partitions = [
            Partition(name=c.name, description=c.description, files=len(c.files), server=served.get(c.name))
            for c in (config.clusters if config else [])
        ]
        others = [name for name in self.mounts.helpers if name not in served.values()]
        return Partitions(
            lake=config.name if config else self.lake.config_dir.name,
            folder=str(self.lake.root) if self.lake.root else None,
            partitions=partitions,
            other_helpers=others,
            notes=notes,
        )

    async def overview(self) -> str:
        """The lake in Markdown: its folder, its partitions and what each holds, the other helpers, the kernel."""
        text = describe(await self.partitions())
        kernel = self.mounts.kernel
        where = "none" if kernel is None else (f"at {kernel.url}" if isinstance(kernel, HttpServerEntry) else "local")
        return f"{text}\nKernel for run_code: {where}.\n"

    def partition_page(self, name: str) -> str:
        """One partition in Markdown: what it holds, why its files belong together, its files."""
        config = self._clusters()
        spec = next((c for c in (config.clusters if config else []) if c.name == name), None)
        if spec is None:
            known = ", ".join(c.name for c in config.clusters) if config else "none"
            raise NotAvailable(f"The lake has no partition {name!r}; its partitions are: {known}.")
        lines = [f"# Partition {_inline(spec.name)}", "", _inline(spec.description, 2000)]
        if spec.reason:
            lines += ["", f"Why these files belong together: {_inline(spec.reason, 1000)}"]
        lines += ["", f"Files ({len(spec.files)}):"] + [f"- `{_inline(f)}`" for f in spec.files[:500]]
        if len(spec.files) > 500:
            lines.append(f"- ... and {len(spec.files) - 500} more")
        return "\n".join(lines) + "\n"

    async def sample(self, path: str) -> str:
        """A file's first rows or leading text, read from the file agent that holds it."""
        config = self._clusters()
        spec = next((c for c in (config.clusters if config else []) if path in c.files), None)
        if spec is None:
            raise NotAvailable(f"{path!r} is not a file of this lake; read lakeboard://lake for its partitions "
                              "and lakeboard://partitions/NAME for their files.")
        await self.mounts.refresh()
        clusters_path = self.lake.config_dir / "clusters.json"
        server = next((n for n, e in self.mounts.helpers.items() if file_agent_partition(e, clusters_path, n) == spec.name),
                      None)
        if server is None:
            raise NotAvailable(f"No file agent serving partition {spec.name!r} is mounted; "
                              "run `lakeboard index` again to write the servers files.")
        try:
            client = await self.pool.ready_client(server, self.helper_timeout_s)
            contents = await client.read_resource(f"lakeboard://{spec.name}/sample/{quote(path, safe='/')}")
        except (PoolError, MCPError) as exc:
            raise NotAvailable(f"The file agent {server!r} could not give a sample of {path!r}: {exc}") from None
        return "".join(getattr(c, "text", "") or "" for c in contents)

    def _clusters(self) -> ClusterConfig | None:
        """The lake's clusters.json, parsed again only when the file changes: the lake check before
        a request reads it, and at 50k files parsing it takes about a second."""
        try:
            return read_once(self.lake.config_dir / "clusters.json", _parse_clusters)
        except (OSError, ValueError):
            return None  # a servers.json alone is a valid config: no partitions to describe


def _parse_clusters(path: Path) -> ClusterConfig:
    return ClusterConfig.model_validate_json(path.read_text("utf-8"))


def _partition_files(config: ClusterConfig | None) -> dict[str, list[str]]:
    return {c.name: c.files for c in (config.clusters if config else [])}


def _writable(folder: Path) -> Path | None:
    """`folder`, when the helpers' logs can be written there; else None, and their stderr joins the gateway's.

    Logs are best effort: a full or read-only config folder must not keep the helpers from starting.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        reason = f"{exc.strerror}: {exc.filename}" if exc.strerror and exc.filename else exc.strerror or exc
        log.warning("The helpers' logs cannot be written to %s (%s); their messages go to the gateway's "
                    "stderr instead.", folder, reason)
        return None
    return folder


def describe(p: Partitions) -> str:
    """The lake's partitions in Markdown, for a person."""
    lines = [f"# Lake {_inline(p.lake)}", ""]
    if p.folder:
        lines.append(f"Folder: `{_inline(p.folder)}` (read-only in the kernel, at this same path).")
    total = sum(x.files for x in p.partitions)
    lines += [f"{len(p.partitions)} partitions, {total} files. Each is served by a file agent that decides "
              "by itself whether it can help a request posted with request_help.", ""]
    for x in p.partitions:
        server = f" (served by `{_inline(x.server)}`)" if x.server else " (no file agent mounted)"
        lines.append(f"- **{_inline(x.name)}**, {x.files} files{server}: {_inline(x.description)}")
    if p.other_helpers:
        lines += ["", "Other helpers: " + ", ".join(f"`{_inline(h)}`" for h in p.other_helpers)]
    lines += [f"\nNote: {_inline(n, 600)}" for n in p.notes]
    return "\n".join(lines) + "\n"


def _help_board(posting: Posting, found: DiscoveryResult, notes: list[str]) -> HelpBoard:
    def confidence(o) -> float:
        return o.response.confidence if o.response is not None else 0.0

    failures = [
        Failure(helper=o.helper, phase=o.error.phase, kind=o.error.kind, message=o.error.message)
        for o in posting.errors if o.error is not None
    ]
    return HelpBoard(
        request=posting.request.request,
        request_id=posting.request.id,
        files=found.files,
        copies={m.path: m.copies for m in found.matches if m.copies},
        ranked_next=[m.path for m in found.ranked_next],
        closest=[m.path for m in found.closest],
        responses=[o.model_copy(update={"response_raw": None})
                   for o in sorted(posting.responses, key=confidence, reverse=True)],
        declined=[Declined(helper=o.helper, reason=o.decision.reason, confidence=o.decision.confidence)
                  for o in posting.outcomes if o.decision is not None and not o.decision.can_help],
        timed_out=[f for f in failures if f.kind == "timeout"],
        failed=[f for f in failures if f.kind not in ("timeout", "skipped")],
        skipped=[f for f in failures if f.kind == "skipped"],
        helpers=len(posting.outcomes) - sum(f.kind == "skipped" for f in failures),
        elapsed_s=round(posting.elapsed_s, 3),
        notes=notes,
    )


def _summary(board: HelpBoard, posting: Posting, found: DiscoveryResult) -> str:
    """What a model reads: the files the blackboard ranks best, then the responses (as the main agent sees them)."""
    parts = []
    chosen = found.matches
    if chosen:
        lines = file_lines([m.path for m in chosen], {m.path: m.group for m in chosen}, limit=15,
                           copies_of={m.path: m.copies for m in chosen})
        parts.append("**Files the blackboard ranks best**:\n" + "\n".join(lines))
    if board.ranked_next:
        templates = {m.path: TEMPLATE_NOTE for m in found.ranked_next if m.role == "template"}
        parts.append("**Ranked next, not chosen**:\n"
                     + "\n".join(file_lines(board.ranked_next, {}, limit=RANKED_NEXT, notes=templates)))
    parts.append(render_posting(posting))
    parts += [f"Note: {_inline(n, 600)}" for n in board.notes]
    return "\n\n".join(parts)


