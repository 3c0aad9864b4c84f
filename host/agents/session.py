"""One lake's servers, up and ready to answer questions: what `ask` and `eval` share.

    async with AskSession(lake, settings, trace=Trace(path)) as session:
        result = await session.ask("How many ...?")          # RunResult
        await session.save_notebook(Path("session.ipynb"))

With a model (`settings`), the main agent answers; without one, the offline agent finds the
data and returns a verified loading program. If the model fails mid-run, the offline agent
still runs, so the user gets the program that loads the relevant data.

How helpers get the model: the pool lends the host's model to every server through MCP
sampling (one SamplingHandler per server, so usage is counted per helper); file agents and
the search agent then follow their model protocols, the file agents told the model's name so
each loads the analysis it wrote at index time. `lend_model=False` keeps them offline
(no sampling offered, and `LAKEBOARD_FILE_AGENT_MODEL=off` so that a file agent does not
reach for a model of its own from the environment). With no model on the host, servers are
left as configured: one with a model of its own (servers.json `env`) still uses it.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from lakeboard.common.atomic_files import write_text_atomic
from lakeboard.host.agents.main_agent import MainAgent
from lakeboard.host.agents.offline_agent import answer_offline
from lakeboard.host.baselines.mode_setup import ModeSetup
from lakeboard.host.baselines.modes import Mode
from lakeboard.host.blackboard import Blackboard
from lakeboard.host.kernel_session import KernelClient
from lakeboard.host.kernel_workdirs import KERNEL_WORKDIRS, KernelWorkdirs, own_workdirs
from lakeboard.host.lakes import Lake, lake_files
from lakeboard.host.llm import ChatProvider, LLMSettings
from lakeboard.host.pool import ClientPool
from lakeboard.host.sampling_handler import SamplingHandler
from lakeboard.host.servers_config import ServersConfig, StdioServerEntry
from lakeboard.host.trace import Trace
from lakeboard.schemas.agent import RunResult

logger = logging.getLogger(__name__)

FILE_AGENT_MODULE = "lakeboard.servers.file_agent"
FILE_AGENT_MODEL_ENV = "LAKEBOARD_FILE_AGENT_MODEL"
FILE_AGENT_MODEL_NAME_ENV = "LAKEBOARD_FILE_AGENT_MODEL_NAME"


def llm_settings(args: Any) -> LLMSettings | None:
    """The model from --model/--base-url/--api-key/--llm-config flags, the environment or the
    config file (None: no model). Only these flags are read: `--timeout` means something else."""
    flags = {
        "model": getattr(args, "model", None),
        "base_url": getattr(args, "base_url", None),
        "api_key": getattr(args, "api_key", None),
        "config": getattr(args, "llm_config", None),
    }
    return LLMSettings.resolve(flags)


def offline_helpers(config: ServersConfig) -> ServersConfig:
    """A copy of `config` whose file-agent servers use no model of their own."""
    return _with_file_agent_env(config, {FILE_AGENT_MODEL_ENV: "off"})


def lent_model(config: ServersConfig, model: str) -> ServersConfig:
    """A copy of `config` whose file-agent servers know which model the host lends them, so each
    loads the analysis that model wrote at index time as it starts."""
    return _with_file_agent_env(config, {FILE_AGENT_MODEL_NAME_ENV: model})


def _with_file_agent_env(config: ServersConfig, env: dict[str, str]) -> ServersConfig:
    servers = {}
    for name, entry in config.servers.items():
        if isinstance(entry, StdioServerEntry) and FILE_AGENT_MODULE in entry.args:
            entry = entry.model_copy(update={"env": {**entry.env, **env}})
        servers[name] = entry
    return ServersConfig(servers=servers, sources=dict(config.sources))


class AskSession:
    """A started pool (helpers and kernel), the blackboard, and the model if there is one."""

    def __init__(
        self,
        lake: Lake,
        settings: LLMSettings | None,
        *,
        trace: Trace | None = None,
        max_steps: int = 10,
        helper_timeout_s: float = 60.0,
        cell_timeout_s: float = 120.0,
        lend_model: bool = True,
        servers: ServersConfig | None = None,
    ) -> None:
        if lake.root is None:
            raise ValueError("the lake folder is not known; pass the lake folder, not only its config")
        self.lake = lake
        self.settings = settings
        self.trace = trace
        self.max_steps = max_steps
        self.helper_timeout_s = helper_timeout_s
        self.cell_timeout_s = cell_timeout_s
        self.lend_model = lend_model
        self._servers = servers
        self.pool: ClientPool | None = None
        self.provider: ChatProvider | None = None
        self.blackboard: Blackboard | None = None
        self.kernel: KernelClient | None = None
        self._lake_paths: list[str] | None = None
        self._native_tools = True  # until the endpoint shows it does without them
        self.modes: ModeSetup | None = None
        self._own_folders: list[Path] = []

    async def __aenter__(self) -> AskSession:
        config = self._servers if self._servers is not None else self.lake.servers()
        # Its kernel works in a folder of its own: concurrent asks never share files.
        self._workdirs = KernelWorkdirs(self.lake.config_dir / KERNEL_WORKDIRS)
        config, self._own_folders = own_workdirs(config, self._workdirs)
        if not self.lend_model:
            config = offline_helpers(config)
        sampling = None
        if self.settings is not None:
            self.provider = ChatProvider(self.settings)
            if self.lend_model:
                config = lent_model(config, self.settings.model)
                sampling = {name: SamplingHandler(self.provider, label=f"sampling:{name}", trace=self.trace, server=name)
                            for name in config.servers}
        self.pool = ClientPool(config, trace=self.trace, log_dir=self.lake.config_dir / "logs", sampling_handler=sampling,
                               connect_timeout_s=self.helper_timeout_s)
        try:
            await self.pool.start()
            self.kernel = KernelClient.find(self.pool, trace=self.trace, timeout_s=self.cell_timeout_s)
        except BaseException:
            await self.pool.close()
            self._remove_own_folders()
            if self.provider is not None:
                await self.provider.aclose()
            raise
        self.blackboard = Blackboard(
            self.pool, self.trace, can_help_timeout_s=self.helper_timeout_s, respond_timeout_s=self.helper_timeout_s,
            lake_index=self.lake.search_index, mirror=self.lake.mirror(),
        )
        self.modes = ModeSetup(self.blackboard, self.lake.config_dir)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.provider is not None:
            await self.provider.aclose()
        if self.pool is not None:
            await self.pool.close()
        self._remove_own_folders()

    def _remove_own_folders(self) -> None:
        for folder in self._own_folders:
            self._workdirs.remove(folder)
        self._own_folders = []

    @property
    def lake_paths(self) -> list[str]:
        if self._lake_paths is None:
            assert self.lake.root is not None
            self._lake_paths = lake_files(self.lake.root)
        return self._lake_paths

    async def ask(self, question: str, *, task_id: str = "main-task", max_steps: int | None = None,
                  mode: Mode = "blackboard") -> RunResult:
        """Answer one question (with the model) or find and load its data (without).

        `mode` is the blackboard or one of the paper's baselines (master-slave, rag, all-files),
        each with its own prompt; without a model the blackboard finds the data whatever the mode.
        """
        assert self.blackboard is not None and self.kernel is not None and self.modes is not None
        assert self.lake.root is not None
        if self.trace is not None:
            self.trace.emit("ask", question=question, task_id=task_id, mode=mode,
                            model=self.settings.model if self.settings else None)
        if self.provider is None:
            result = await answer_offline(question, self.blackboard, self.kernel, self.lake.root, trace=self.trace)
            if mode != "blackboard":
                result.notes.append(f"Without a model the {mode} baseline cannot answer; the blackboard found the "
                                    "data. `lakeboard eval --discovery-only --mode` compares the modes' discovery.")
            return result
        # Usage of the whole ask: the main agent, the helpers' sampling, the fallback's too.
        usage_mark = self.provider.ledger.mark()
        agent = MainAgent(
            self.provider,
            self.blackboard,
            self.kernel,
            self.lake.root,
            lake_paths=self.lake_paths,
            trace=self.trace,
            max_steps=max_steps or self.max_steps,
            cell_timeout_s=self.cell_timeout_s,
            native_tools=self._native_tools,
            mode=await self.modes.agent_mode(mode, question),
        )
        result = await agent.run(question, task_id=task_id)
        self._native_tools = agent.native_tools
        if result.status == "model_error":
            fallback = await answer_offline(question, self.blackboard, self.kernel, self.lake.root, trace=self.trace)
            result.notes.append("The model failed, so Lakeboard fell back to finding and loading the data without it.")
            if fallback.program:
                result.program, result.summary, result.execution = fallback.program, fallback.summary, fallback.execution
                result.data_sources = fallback.data_sources
            result.notes.extend(n for n in fallback.notes if not n.startswith("No model is configured"))
        result.usage = self.provider.ledger.spent_since(usage_mark)
        return result

    async def save_notebook(self, path: Path) -> Path:
        """Write the kernel session so far as a notebook (atomically); returns the path."""
        assert self.kernel is not None
        text = await self.kernel.notebook()
        write_text_atomic(Path(path), text)
        return path


def usage_line(usage: dict[str, Any]) -> str:
    """Token usage as one line for people: total, then per label."""
    total = usage.get("total") or {}
    if not total.get("calls") and not total.get("retries"):
        return "Tokens: none (no model calls)"
    line = (f"Tokens: {total['prompt_tokens']} prompt + {total['completion_tokens']} completion = "
            f"{total['total_tokens']} in {total['calls']} calls")
    if total.get("retries"):
        line += f" ({total['retries']} retries)"
    labels = usage.get("per_label") or {}
    if len(labels) > 1 or set(labels) - {"main"}:
        line += "; " + ", ".join(f"{k}: {v['total_tokens']} in {v['calls']} calls" for k, v in labels.items())
    return line
