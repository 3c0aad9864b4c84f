"""TF-IDF ranking of passages against a request (scikit-learn, imported lazily).

The same `PassageRanker` scores the local document index and the passages of fetched web
pages, so scores mean the same thing whatever the backend: cosine similarity in [0, 1].
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from lakeboard.servers.relevance.tokens import FUNCTION_WORDS, prose_words, stem
from lakeboard.servers.search_agent.passages import Passage


def tokens(text: str) -> list[str]:
    """Stemmed words of `text` without function words: the ranking vocabulary."""
    return [stem(w) for w in prose_words(text) if w not in FUNCTION_WORDS]


def _vectorizer() -> Any:
    from sklearn.feature_extraction.text import TfidfVectorizer

    # Unigrams and bigrams: bigrams reward passages that keep a request's phrases together.
    return TfidfVectorizer(tokenizer=tokens, token_pattern=None, lowercase=False, sublinear_tf=True, ngram_range=(1, 2))


class PassageRanker:
    """Cosine similarity between texts and a fixed set of passages."""

    def __init__(self, passages: Sequence[Passage]) -> None:
        self.passages = list(passages)
        self._vectorizer: Any = None
        self._matrix: Any = None
        if self.passages:  # sklearn is imported only when there is something to rank
            self._vectorizer = _vectorizer()
            try:
                self._matrix = self._vectorizer.fit_transform([p.indexed_text() for p in self.passages])
            except ValueError:  # every passage is function words only: nothing to rank with
                self._matrix = None

    def scores(self, text: str) -> list[float]:
        """Similarity of `text` to every passage, in passage order."""
        if self._matrix is None or not text.strip():
            return [0.0] * len(self.passages)
        query = self._vectorizer.transform([text])
        return [float(s) for s in (self._matrix @ query.T).toarray().ravel()]

    def rank(self, text: str, limit: int | None = None) -> list[tuple[Passage, float]]:
        """Passages most similar to `text` first, zero scores left out."""
        scored = [(p, s) for p, s in zip(self.passages, self.scores(text), strict=True) if s > 0.0]
        scored.sort(key=lambda item: item[1], reverse=True)
        return scored[:limit] if limit is not None else scored

    def expansion_terms(self, text: str, top: Sequence[Passage], limit: int = 4) -> list[str]:
        """Characteristic words of the best passages that `text` lacks (pseudo-relevance feedback)."""
        if self._matrix is None or not top:
            return []
        index = {_key(p): i for i, p in enumerate(self.passages)}
        rows = [index[_key(p)] for p in top if _key(p) in index]
        if not rows:
            return []
        weights = self._matrix[rows].sum(axis=0).A1
        features = self._vectorizer.get_feature_names_out()
        # Stems are for matching; a query needs the words as written in the passages.
        surface: dict[str, str] = {}
        for passage in top:
            for word in content_words(passage.indexed_text()):
                surface.setdefault(stem(word), word)
        have = {stem(w) for w in content_words(text)}
        terms: list[str] = []
        for i in weights.argsort()[::-1]:
            if weights[i] <= 0 or len(terms) >= limit:
                break
            feature = str(features[i])
            if " " in feature or feature in have or feature not in surface:
                continue
            word = surface[feature]
            if len(word) >= 3 and not any(ch.isdigit() for ch in word):
                terms.append(word)
        return terms


def _key(passage: Passage) -> tuple[str, str, str]:
    return passage.source, passage.heading, passage.text


# Words that phrase a request rather than say what it is about (kept out of keyword queries).
PHRASING_WORDS = frozenset({"does", "did", "mean", "means", "need", "needs", "want", "tell", "know", "like", "help"})


def content_words(text: str) -> list[str]:
    """Lower-cased words of `text` without function or phrasing words, in order, deduplicated."""
    skipped = FUNCTION_WORDS | PHRASING_WORDS
    return list(dict.fromkeys(w for w in prose_words(text) if w not in skipped))


def covers(words: Sequence[str], text: str) -> bool:
    """Whether `text` holds enough of the request's content `words` to be about it.

    At least 40% of them, and never more than 3 are required (long requests add words that
    a relevant passage need not repeat). A single shared generic word is not enough for a
    request of three or more words.
    """
    if not words:
        return False
    have = set(tokens(text))
    found = sum(stem(w) in have for w in words)
    return found >= min(3, max(1, math.ceil(0.4 * len(words))))
