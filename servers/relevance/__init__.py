"""Relevance: which files of a lake a request needs, from a search index and a fitted model."""

from lakeboard.servers.relevance.engine import RelevanceEngine
from lakeboard.servers.relevance.lake_index import LakeIndex
from lakeboard.servers.relevance.query_parsing import parse_query

__all__ = ["LakeIndex", "RelevanceEngine", "parse_query"]
