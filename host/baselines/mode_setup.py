"""What the main agent is given in each mode over one lake's running servers.

The lake's partitions (from clusters.json, those whose file agents are running) and its files
(the file agents' `list_files`) are gathered once, on the first question whose mode needs them.
"""

from __future__ import annotations

from pathlib import Path

from lakeboard.host.baselines.listings import files_context, helpers_context
from lakeboard.host.baselines.modes import AgentMode, Mode, check_mode
from lakeboard.host.baselines.offline_modes import RAG_FILES, Partition, file_inventory, partitions_of
from lakeboard.host.baselines.retrieval import FileRetriever
from lakeboard.host.blackboard import Blackboard
from lakeboard.schemas.clusters import ClusterConfig
from lakeboard.schemas.profiles import FileEntry


class ModeSetup:
    """`AgentMode`s for one lake: `config_dir` holds its clusters.json, `blackboard` reaches its servers."""

    def __init__(self, blackboard: Blackboard, config_dir: Path) -> None:
        self.blackboard = blackboard
        self.config_dir = config_dir
        self._partitions: list[Partition] | None = None
        self._entries: list[FileEntry] | None = None
        self._retriever: FileRetriever | None = None

    async def agent_mode(self, mode: Mode, question: str) -> AgentMode:
        """What the main agent is given in `mode`: its prompt, the helpers or files shown up front."""
        if mode == "blackboard":
            return AgentMode()
        mode = check_mode(mode)
        helpers = self.blackboard.pool.helpers
        if self._partitions is None:
            config = ClusterConfig.model_validate_json((self.config_dir / "clusters.json").read_text())
            self._partitions = partitions_of(config, helpers)
        file_agents = {p.helper for p in self._partitions}
        search = tuple(h for h in helpers if h not in file_agents)
        if mode == "master-slave":
            about = [(p.helper, p.description or p.name) for p in self._partitions]
            about += [(name, "the search agent: general and domain knowledge") for name in search]
            return AgentMode(mode, helpers_context(about), tuple(name for name, _ in about))
        if self._entries is None:
            self._entries = await file_inventory(self.blackboard, sorted(file_agents))
        if mode == "rag":
            if self._retriever is None:
                self._retriever = FileRetriever(self._entries)
            by_path = {e.path: e for e in self._entries}
            top = [by_path[p] for p in self._retriever.top(question, RAG_FILES)]
            context = files_context(top, f"The {len(top)} files of the lake closest to the question:")
            return AgentMode(mode, context, search)
        return AgentMode(mode, files_context(self._entries, "Every file of the lake:"))
