"""The file agents' offline phase at index time: every partition analysed with the model, in parallel.

`lakeboard index` with a model runs each file agent's steps 1 and 2 (choose the files to look
at, analyse them) here, at most `max_concurrency` partitions at a time, and stores each
analysis in the config folder (servers/file_agent/analysis_store.py), where the file agent
servers load it when they start. A partition whose files, prompts and model are unchanged
keeps its stored analysis; one the model fails on is reported and left to the servers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import anyio

from lakeboard.common.llm_settings import LLMSettings
from lakeboard.schemas.clusters import ClusterConfig
from lakeboard.servers.file_agent.analysis_store import AnalysisStore
from lakeboard.servers.llm.errors import ModelUnavailable
from lakeboard.servers.llm.own_model import ServerModel


@dataclass
class AnalysesResult:
    analysed: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # cluster -> why


def analyse_partitions(
    config_dir: Path,
    config: ClusterConfig,
    settings: LLMSettings,
    *,
    progress: Callable[[int, int, str], None] | None = None,
) -> AnalysesResult:
    """Analyse every partition of `config` with the model of `settings`, storing each in `config_dir` (blocking)."""
    return asyncio.run(_analyse_all(config_dir, config, settings, progress))


async def _analyse_all(config_dir: Path, config: ClusterConfig, settings: LLMSettings,
                       progress: Callable[[int, int, str], None] | None) -> AnalysesResult:
    from lakeboard.servers.file_agent.model_access import OwnModel

    model = OwnModel(ServerModel(settings))
    store = AnalysisStore(config_dir)
    result = AnalysesResult()
    limit = asyncio.Semaphore(settings.max_concurrency)
    names = [c.name for c in config.clusters]
    done = 0

    async def one(name: str) -> None:
        nonlocal done
        async with limit:
            engine = await anyio.to_thread.run_sync(_engine_for, config, name, store)
            if engine.load(settings.model):
                result.reused.append(name)
            else:
                try:
                    await engine.analyse(model)
                    result.analysed.append(name)
                except (ModelUnavailable, ValueError) as exc:  # MalformedReply is a ValueError
                    result.failed[name] = str(exc)
        done += 1
        if progress is not None:
            progress(done, len(names), name)

    await asyncio.gather(*(one(name) for name in names))
    return result


def _engine_for(config: ClusterConfig, name: str, store: AnalysisStore):
    from lakeboard.servers.file_agent.agent import FileAgent
    from lakeboard.servers.file_agent.model_engine import ModelEngine

    return ModelEngine(FileAgent(config, name), store=store)
