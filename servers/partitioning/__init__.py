"""Partitioning a lake into clusters of related files, one file agent per cluster.

Strategies are interchangeable objects with one method, `partition(profiles)`, in the
manner of scikit-learn estimators: pick one by name with `strategy_named`.
"""

from __future__ import annotations

from lakeboard.common.llm_settings import LLMSettings
from lakeboard.servers.partitioning.base import PartitionError, PartitionStrategy
from lakeboard.servers.partitioning.directory import DirectoryStrategy


def strategy_named(name: str, *, n_clusters: int | None = None, model: LLMSettings | None = None) -> PartitionStrategy:
    """The strategy called `name`; `model` is the llm strategy's model (else the environment's)."""
    if name == "directory":
        return DirectoryStrategy(n_clusters=n_clusters)
    if name == "embedding":
        from lakeboard.servers.partitioning.embedding import EmbeddingStrategy

        return EmbeddingStrategy(n_clusters=n_clusters)
    if name == "llm":
        from lakeboard.servers.llm.own_model import ServerModel
        from lakeboard.servers.partitioning.llm import LLMStrategy

        return LLMStrategy(n_clusters=n_clusters, model=ServerModel(model) if model is not None else None)
    raise PartitionError(f"unknown partition strategy {name!r}: use directory, embedding or llm")


__all__ = ["DirectoryStrategy", "PartitionError", "PartitionStrategy", "strategy_named"]
