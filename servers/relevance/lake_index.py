"""Everything relevance needs of a lake, built once by the indexer and stored in its config folder.

A folder `relevance/` holds the search index (BM25 per field), the facts of every file
(JSON lines in zstd: a twentieth of their size) and, when the embeddings extra is installed, a
sentence embedding of each file's card (common/card_vectors.py) with a key of each card, so
that a re-index embeds only the cards that changed.
"""

from __future__ import annotations

import gzip
import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import orjson
import zstandard

from lakeboard.common.card_vectors import KEYS_FILE, STORED_KEY_BYTES, CardVectors, card_keys, stored_key
from lakeboard.common.minilm import MODEL_NAME
from lakeboard.schemas.families import Family
from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.relevance.dictionaries import dictionary_text, link_dictionaries
from lakeboard.servers.relevance.file_facts import FileFacts, file_facts
from lakeboard.servers.relevance.index_fields import card_text, field_tokens
from lakeboard.servers.relevance.search_index import SearchIndex
from lakeboard.servers.relevance.search_fields import profile_texts
from lakeboard.servers.relevance.vector_cache import VectorCache, as_cached

log = logging.getLogger(__name__)
RELEVANCE_FOLDER = "relevance"  # in a lake's config set
_FACTS = "facts.jsonl.zst"
# zstd at level 12 against gzip at 6, the 50k generated lake's 22 MB of facts: 1.02 against 1.52 MB, written in
# 0.28 against 0.22 s, read in 0.01 against 0.08 s (by every file agent at its start). Levels 15 / 19: 0.95 / 0.87 MB
# in 1.2 / 10 s.
_FACTS_LEVEL = 12
_GZIPPED_FACTS = "facts.jsonl.gz"  # how indexes before stored them: still read


@dataclass
class LakeIndex:
    index: SearchIndex
    facts: list[FileFacts]  # in the index's order (a partition's own, when loaded for one)
    cards: list[str]  # the texts embedded into `vectors` (kept at build time only)
    vectors: CardVectors | None = None  # one unit vector per card, when an embedder was given

    @classmethod
    def build(cls, profiles: list[FileProfile], families: list[Family], embed=None,
              previous: Path | None = None, cache: VectorCache | None = None,
              copies: list[list[str]] = ()) -> LakeIndex:
        """`previous`: the folder of the lake's last index, whose vectors are reused for unchanged
        cards; `cache`: vectors that `embed` made for other indexes (servers/relevance/vector_cache.py);
        `copies`: groups of files that hold the same bytes (common/byte_copies.py)."""
        profiles = sorted(profiles, key=lambda p: p.path)
        by_path = {p.path: p for p in profiles}
        links = link_dictionaries(profiles)
        description = {
            path: " ; ".join(dictionary_text(by_path[d]) for d in docs) for path, docs in links.fitting.items()
        }
        texts = [profile_texts(p) for p in profiles]  # once a file: the fields and the card both read them
        documents = [field_tokens(p, description.get(p.path, ""), t) for p, t in zip(profiles, texts)]
        cards = [card_text(p, description.get(p.path, ""), t) for p, t in zip(profiles, texts)]
        index = SearchIndex.build([p.path for p in profiles], documents)
        vectors = _card_vectors(cards, embed, previous, cache) if embed is not None and cards else None
        return cls(index, file_facts(profiles, families, links, copies), cards, vectors)

    def save(self, folder: Path) -> None:
        self.index.save(folder)
        lines = b"".join(fact.model_dump_json().encode() + b"\n" for fact in self.facts)
        (folder / _FACTS).write_bytes(zstandard.ZstdCompressor(level=_FACTS_LEVEL).compress(lines))
        if self.vectors is not None:
            self.vectors.save(folder)
            keys = b"".join(map(stored_key, card_keys(MODEL_NAME, self.cards)))
            np.save(folder / KEYS_FILE, np.frombuffer(keys, dtype=np.uint8).reshape(-1, STORED_KEY_BYTES))

    @classmethod
    def load(cls, folder: Path, paths: list[str] | None = None) -> LakeIndex:
        """The index, memory-mapped; the facts of `paths` only (of every file when None)."""
        index = SearchIndex.load(folder)
        lines = _read_facts(folder).splitlines()
        # the facts are written in the index's order: a partition parses only its own files' lines
        rows = range(len(lines)) if paths is None else sorted(index.position[p] for p in paths if p in index.position)
        facts = []
        for i in rows:
            fact = orjson.loads(lines[i])
            if fact["path"] != index.paths[i]:
                raise ValueError(f"{folder / _FACTS} is not in the order of the search index: index the lake again")
            facts.append(FileFacts.model_validate(fact))
        try:
            vectors = CardVectors.load(folder) if CardVectors.present(folder) else None
        except ValueError as exc:
            raise ValueError(f"{exc}: index the lake again") from None
        return cls(index, facts, [], vectors)


def _read_facts(folder: Path) -> bytes:
    if not (folder / _FACTS).exists() and (folder / _GZIPPED_FACTS).exists():
        return gzip.decompress((folder / _GZIPPED_FACTS).read_bytes())
    try:
        return zstandard.ZstdDecompressor().decompress((folder / _FACTS).read_bytes())
    except zstandard.ZstdError as exc:
        raise ValueError(f"{folder / _FACTS} is damaged ({exc}): index the lake again") from None


def _card_vectors(cards: list[str], embed, previous: Path | None, cache: VectorCache | None) -> CardVectors:
    """One vector per card; a card the last index holds keeps its codes as they are, one the cache
    holds is not embedded again (the embedding is the slow part of a re-index), and equal cards
    are embedded once."""
    keys = card_keys(MODEL_NAME, cards)
    kept: dict[bytes, int] = {}  # stored key -> its row in the last index
    old = None
    if previous is not None and CardVectors.present(previous):
        try:
            old = CardVectors.load(previous)
            known = np.load(previous / KEYS_FILE)
            if len(known) != len(old):
                raise ValueError(f"{len(known)} card keys for {len(old)} vectors")
            kept = {row.tobytes(): i for i, row in enumerate(known)}
        except (OSError, ValueError) as exc:
            log.warning("the last index's vectors cannot be reused (%s): embedding every card", exc)
    # an index of an earlier version stored whole keys, which match none: its cards come from the cache
    at = {k: kept[stored_key(k)] for k in keys if stored_key(k) in kept}  # key -> its row in the last index
    todo = {k: c for k, c in zip(keys, cards) if k not in at}
    made: dict[bytes, np.ndarray] = cache.get(list(todo)) if todo and cache is not None else {}
    fresh = {k: c for k, c in todo.items() if k not in made}
    if fresh:
        embedded = as_cached(embed(list(fresh.values())))
        made.update(zip(fresh, embedded))
        if cache is not None:
            cache.put(list(fresh), embedded)
    # the last index's rows, then the new ones: each card takes its row from there
    parts = [old] if kept else []
    if todo:
        start = len(old) if kept else 0
        at.update((k, start + i) for i, k in enumerate(todo))
        parts.append(CardVectors.quantize(np.stack([made[k] for k in todo])))
    return CardVectors.stack(parts).take(np.array([at[k] for k in keys], dtype=np.intp))
