"""Partitions of a lake: what `lakeboard index` writes to configs/<lake>/clusters.json."""

from __future__ import annotations

from pydantic import BaseModel, Field

from lakeboard.schemas.families import Family


class ClusterSpec(BaseModel):
    name: str = Field(description="short identifier, also the file agent's name: [a-z0-9_-]+")
    files: list[str] = Field(description="lake-relative paths")
    description: str = ""
    reason: str = Field("", description="why these files belong together")


class ClusterConfig(BaseModel):
    """The partitioning of one lake; every file-agent server reads it."""

    lake: str = Field(description="absolute path of the lake folder")
    name: str
    strategy: str
    profile_dir: str = Field(description="absolute path of the profile cache")
    relevance_index: str | None = Field(
        None, description="absolute path of the lake's search index folder (built by `lakeboard index`)"
    )
    clusters: list[ClusterSpec]
    errors: dict[str, str] = Field(default_factory=dict, description="files that could not be profiled, with the reason")
    families: list[Family] = Field(
        default_factory=list, description="same-layout files split on a slot of their names, with each member's value"
    )

    def cluster(self, name: str) -> ClusterSpec:
        for c in self.clusters:
            if c.name == name:
                return c
        known = ", ".join(c.name for c in self.clusters)
        raise KeyError(f"no cluster named {name!r}; this config has: {known}")
