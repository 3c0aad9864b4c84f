"""Embedding partitioning (the paper's Appendix F): embed each file's profile, then KMeans.

The model is all-MiniLM-L6-v2 (common/minilm.py: from its package, offline, without torch).
"""

from __future__ import annotations

import math
import os
from pathlib import PurePosixPath

from lakeboard.common.minilm import MiniLMUnavailable, embed, load_embedder
from lakeboard.schemas.clusters import ClusterSpec
from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.partitioning.base import PartitionError, describe, slug, unique_names


def profile_sentence(profile: FileProfile) -> str:
    cols = ", ".join(c for c in profile.column_names[:40] if not c.startswith("Unnamed"))
    notes = " ".join(n for t in profile.tables for n in t.notes)[:300]
    return f"{profile.path}. {profile.summary} {notes} Columns: {cols}"[:1000]


class EmbeddingStrategy:
    name = "embedding"

    def __init__(self, *, n_clusters: int | None = None, seed: int = 0) -> None:
        self.n_clusters = n_clusters
        self.seed = seed

    def partition(self, profiles: list[FileProfile]) -> list[ClusterSpec]:
        from sklearn.cluster import KMeans

        if not profiles:
            return []
        k = self.n_clusters or max(1, round(math.sqrt(len(profiles) / 2)))
        k = min(k, len(profiles))
        try:
            load_embedder()
        except MiniLMUnavailable as exc:
            raise PartitionError(f"the embedding strategy cannot run: {exc}") from exc
        vectors = embed([profile_sentence(p) for p in profiles])
        labels = KMeans(n_clusters=k, n_init=10, random_state=self.seed).fit_predict(vectors)
        by_path = {p.path: p for p in profiles}
        groups: dict[int, list[str]] = {}
        for prof, label in zip(profiles, labels):
            groups.setdefault(int(label), []).append(prof.path)
        ordered = sorted((sorted(files) for files in groups.values()), key=lambda fs: fs[0])
        names = unique_names([slug(_label(files)) for files in ordered])
        return [
            ClusterSpec(
                name=name,
                files=files,
                description=describe(files, by_path),
                reason="files whose profiles are close in embedding space (all-MiniLM-L6-v2, KMeans)",
            )
            for name, files in zip(names, ordered)
        ]


def _label(files: list[str]) -> str:
    """Name a cluster after the longest file-name prefix its members share."""
    stems = [PurePosixPath(f).stem.lower() for f in files]
    prefix = os.path.commonprefix(stems).strip("_- .")
    return prefix if len(prefix) >= 3 else stems[0]
