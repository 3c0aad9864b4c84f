"""Each mode's data discovery with no model, so the paper's Table 2 can be reproduced offline.

- blackboard: the broadcast, every file agent deciding on its own (host/discover_files.py);
- master-slave: the host, standing in for the main agent, names the partitions whose
  descriptions are closest to the question (BM25 over each partition's name and description:
  the best one, and others scoring at least half as well, three at most); those file agents
  respond without being asked whether they can help;
- rag: the five files whose profiles are closest to the question (retrieval.py);
- all-files: every file of the lake.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lakeboard.host.baselines.modes import Mode, check_mode
from lakeboard.host.baselines.retrieval import BM25, FileRetriever
from lakeboard.host.blackboard import Blackboard
from lakeboard.host.discover_files import discover, discovery_of
from lakeboard.schemas.clusters import ClusterConfig
from lakeboard.schemas.messages import BlackboardRequest
from lakeboard.schemas.profiles import FileEntry

RAG_FILES = 5
MOST_PARTITIONS = 3
PARTITION_SHARE = 0.5


@dataclass(frozen=True)
class Partition:
    helper: str  # its file agent's server name
    name: str
    description: str


def partitions_of(config: ClusterConfig, servers: Sequence[str]) -> list[Partition]:
    """The partitions of `config` whose file agents are among `servers` (servers.json names them NAME-CLUSTER)."""
    present = set(servers)
    found = [Partition(f"{config.name}-{c.name}", c.name, c.description) for c in config.clusters]
    return [p for p in found if p.helper in present]


def choose_partitions(question: str, partitions: Sequence[Partition]) -> list[str]:
    """The helpers of the partitions whose name and description are closest to the question."""
    if not partitions:
        return []
    scores = BM25([f"{p.name.replace('-', ' ')}. {p.description}" for p in partitions]).scores(question)
    order = sorted(range(len(partitions)), key=lambda i: -scores[i])
    best = scores[order[0]]
    chosen = [i for i in order if i == order[0] or (best > 0 and scores[i] >= PARTITION_SHARE * best)]
    return [partitions[i].helper for i in chosen[:MOST_PARTITIONS]]


class ModeDiscovery:
    """The files each mode finds for a question, over one lake's running servers."""

    def __init__(self, board: Blackboard, partitions: Sequence[Partition], entries: Sequence[FileEntry],
                 lake_paths: Sequence[str]) -> None:
        self.board = board
        self.partitions = list(partitions)
        self.entries = list(entries)
        self.lake_paths = list(lake_paths)
        self._retriever: FileRetriever | None = None

    @property
    def retriever(self) -> FileRetriever:
        if self._retriever is None:  # MiniLM loads once, on first use
            self._retriever = FileRetriever(self.entries)
        return self._retriever

    async def files(self, mode: Mode, question: str) -> tuple[list[str], dict]:
        """The files `mode` finds, and what it did (for the results file)."""
        mode = check_mode(mode)
        if mode == "blackboard":
            found = await discover(self.board, question)
            return found.files, {"volunteers": found.volunteers, "broadcast_s": found.broadcast_s,
                                 "errors": found.errors}
        if mode == "master-slave":
            helpers = choose_partitions(question, self.partitions)
            posting = await self.board.assign(BlackboardRequest(request=question), helpers)
            return discovery_of(posting).files, {"helpers": helpers}
        if mode == "rag":
            return self.retriever.top(question, RAG_FILES), {"retrieval": self.retriever.method}
        return list(self.lake_paths), {}  # all-files


async def file_inventory(board: Blackboard, helpers: Sequence[str]) -> list[FileEntry]:
    """Every file the file agents list (their `list_files` tool), for the retriever."""
    entries: list[FileEntry] = []
    for helper in helpers:
        if "list_files" not in board.pool.tools(helper):
            continue
        result = await board.pool.call(helper, "list_files", {}, timeout_s=board.respond_timeout_s)
        data = result.json()
        items = data.get("result", data) if isinstance(data, dict) else data
        entries.extend(FileEntry.model_validate(item) for item in items or [])
    return entries
