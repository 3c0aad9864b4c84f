"""Indexing a lake: profile every file, partition, and write the configs servers read."""

from lakeboard.servers.indexing.build import IndexResult, index_lake

__all__ = ["IndexResult", "index_lake"]
