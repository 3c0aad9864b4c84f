"""Everything relevance needs of a lake, built once by the indexer and stored in its config folder.

A folder `relevance/` holds the search index (BM25 per field), the facts of every file and,
when the embeddings extra is installed, a sentence embedding of each file's card.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import orjson

from lakeboard.common.request_embedding import VECTORS_FILE
from lakeboard.schemas.families import Family
from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.relevance.dictionaries import dictionary_text, link_dictionaries
from lakeboard.servers.relevance.file_facts import FileFacts, file_facts
from lakeboard.servers.relevance.index_fields import card_text, field_tokens
from lakeboard.servers.relevance.search_index import SearchIndex
from lakeboard.servers.relevance.search_fields import profile_texts

log = logging.getLogger(__name__)
RELEVANCE_FOLDER = "relevance"  # in a lake's config set
_FACTS = "facts.jsonl"
_CARDS = "cards.json"
_VECTORS = VECTORS_FILE


@dataclass
class LakeIndex:
    index: SearchIndex
    facts: list[FileFacts]  # in the index's order (a partition's own, when loaded for one)
    cards: list[str]  # the texts embedded into `vectors` (kept at build time only)
    vectors: np.ndarray | None = None  # one unit vector per card, when an embedder was given

    @classmethod
    def build(cls, profiles: list[FileProfile], families: list[Family], embed=None,
              previous: Path | None = None) -> LakeIndex:
        """`previous`: the folder of the lake's last index, whose vectors are reused for unchanged cards."""
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
        vectors = _card_vectors(cards, embed, previous) if embed is not None and cards else None
        return cls(index, file_facts(profiles, families, links), cards, vectors)

    def save(self, folder: Path) -> None:
        self.index.save(folder)
        with open(folder / _FACTS, "w") as f:
            for fact in self.facts:
                f.write(fact.model_dump_json() + "\n")
        (folder / _CARDS).write_text(json.dumps(self.cards))
        if self.vectors is not None:
            # single precision: numpy multiplies half-precision arrays without BLAS, 11x slower (a
            # request against 50k files: 52 ms against 4.6 ms per agent); mapped, the pages are shared
            np.save(folder / _VECTORS, self.vectors.astype(np.float32))

    @classmethod
    def load(cls, folder: Path, paths: list[str] | None = None) -> LakeIndex:
        """The index, memory-mapped; the facts of `paths` only (of every file when None)."""
        index = SearchIndex.load(folder)
        lines = (folder / _FACTS).read_bytes().splitlines()
        # the facts are written in the index's order: a partition parses only its own files' lines
        rows = range(len(lines)) if paths is None else sorted(index.position[p] for p in paths if p in index.position)
        facts = []
        for i in rows:
            fact = orjson.loads(lines[i])
            if fact["path"] != index.paths[i]:
                raise ValueError(f"{folder / _FACTS} is not in the order of the search index: index the lake again")
            facts.append(FileFacts.model_validate(fact))
        vectors = None
        if (folder / _VECTORS).exists():
            # a plain array over the mapped pages: a memmap's products are memmaps too, slow to index
            vectors = np.asarray(np.load(folder / _VECTORS, mmap_mode="r"))
        return cls(index, facts, [], vectors)


def _card_vectors(cards: list[str], embed, previous: Path | None) -> np.ndarray:
    """One vector per card; a card the last index embedded already is not embedded again (the
    embedding is the slow part of a re-index), and equal cards are embedded once."""
    known: dict[str, np.ndarray] = {}
    if previous is not None and (previous / _VECTORS).exists() and (previous / _CARDS).exists():
        try:
            old = np.load(previous / _VECTORS)
            known = dict(zip(json.loads((previous / _CARDS).read_text()), old.astype(np.float32)))
        except (OSError, ValueError) as exc:
            log.warning("the last index's vectors are unreadable (%s): embedding every card", exc)
    todo = [c for c in dict.fromkeys(cards) if c not in known]
    if todo:
        known.update(zip(todo, embed(todo)))
    return np.stack([known[c] for c in cards]).astype(np.float32)
