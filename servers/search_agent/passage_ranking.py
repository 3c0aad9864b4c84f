"""TF-IDF ranking of passages against a request, in scipy's sparse matrices.

The same `PassageRanker` scores the local document index and the passages of fetched web
pages, so scores mean the same thing whatever the backend: cosine similarity in [0, 1].
The weighting is scikit-learn's `TfidfVectorizer(sublinear_tf=True, ngram_range=(1, 2))`, and a
test holds the two equal. It is computed here because importing scikit-learn costs a search
agent about 1.2 s of CPU before its first answer, on the path of every cold request; scipy is
already loaded by then.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np
from scipy import sparse

from lakeboard.servers.relevance.tokens import FUNCTION_WORDS, prose_words, stem
from lakeboard.servers.search_agent.passages import Passage


def tokens(text: str) -> list[str]:
    """Stemmed words of `text` without function words: the ranking vocabulary."""
    return [stem(w) for w in prose_words(text) if w not in FUNCTION_WORDS]


def terms(text: str) -> list[str]:
    """The words of `text` and each pair of neighbours: pairs reward passages that keep a request's phrases
    together."""
    words = tokens(text)
    return words + [f"{a} {b}" for a, b in zip(words, words[1:])]


class TfidfMatrix:
    """Rows of sublinear-tf x smoothed-idf weights, each of unit length, over a vocabulary fitted on `texts`
    (sorted, as scikit-learn orders its features)."""

    def __init__(self, texts: Sequence[str]) -> None:
        counts = [Counter(terms(t)) for t in texts]
        self.features = sorted(set().union(*counts)) if counts else []
        self._column = {f: i for i, f in enumerate(self.features)}
        document_frequency = Counter(f for c in counts for f in c)
        n = len(texts)
        self._idf = np.array([math.log((1 + n) / (1 + document_frequency[f])) + 1.0 for f in self.features])
        self.matrix = self._rows(counts)

    def transform(self, text: str) -> sparse.csr_matrix:
        return self._rows([Counter(terms(text))])

    def _rows(self, counts: list[Counter]) -> sparse.csr_matrix:
        indptr, indices, values = [0], [], []
        for count in counts:
            known = [(self._column[f], c) for f, c in count.items() if f in self._column]
            known.sort()
            weights = np.array([(1.0 + math.log(c)) * self._idf[i] for i, c in known])
            norm = float(np.sqrt((weights ** 2).sum())) if known else 0.0
            indices += [i for i, _ in known]
            values += list(weights / norm) if norm else [0.0] * len(known)
            indptr.append(len(indices))
        return sparse.csr_matrix((np.array(values, dtype=np.float64), np.array(indices, dtype=np.int64), indptr),
                                 shape=(len(counts), len(self.features)))


class PassageRanker:
    """Cosine similarity between texts and a fixed set of passages."""

    def __init__(self, passages: Sequence[Passage]) -> None:
        self.passages = list(passages)
        self._tfidf = TfidfMatrix([p.indexed_text() for p in self.passages])
        # No vocabulary (no passage, or function words only): nothing to rank with.
        self._matrix = self._tfidf.matrix if self._tfidf.features else None

    def scores(self, text: str) -> list[float]:
        """Similarity of `text` to every passage, in passage order."""
        if self._matrix is None or not text.strip():
            return [0.0] * len(self.passages)
        query = self._tfidf.transform(text)
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
        features = self._tfidf.features
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
