"""Offline relevance: match requests against file profiles with no model."""

from lakeboard.servers.relevance.engine import LexicalEngine, vocabulary_of

__all__ = ["LexicalEngine", "vocabulary_of"]
