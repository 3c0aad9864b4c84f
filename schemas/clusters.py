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

    lake: str = Field(description="absolute path of the lake folder (for a lake in object storage: its sample replica)")
    source: str | None = Field(
        None, description="the lake's URL when it lives in object storage (s3://bucket/prefix); never with credentials"
    )
    source_options: dict[str, str | int | float | bool] = Field(
        default_factory=dict, description="the store's options that say where it is (an endpoint, a region); never a secret"
    )
    data_root: str | None = Field(
        None, description="where code finds the lake's whole files, when not at `lake`: a bucket lake's local mirror, "
        "which the host fills with the files the helpers name"
    )

    @property
    def code_root(self) -> str:
        """The folder that loaders and the kernel read the lake's files from."""
        return self.data_root or self.lake
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
