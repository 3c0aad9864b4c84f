"""The local backend's offline index: documents in folders, passages ranked by TF-IDF.

Text extraction is the slow part (PDFs), so extracted text is cached in one JSON file per
set of folders, keyed by each file's mtime and size; ranking is refit at every start
(milliseconds for a docs folder). Paths are shown relative to `root` (the lake root when
the server is told one, otherwise each docs folder's parent, so `<lake>/docs/x.md` is
shown as `docs/x.md`).

Documents are found and opened by the lake's rules, the indexer's walk (`lakeboard.common.lake_files`):
links out of the lake (a docs folder under the lake root that is itself a link included),
pipes, devices and sockets are skipped with a reason, listed in the documents resource.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePath
from typing import NamedTuple

from pydantic import BaseModel

from lakeboard.common.atomic_files import write_text_atomic
from lakeboard.common.bounded_reads import FileRefused, read_at_most
from lakeboard.common.lake_files import open_lake_file, walk_lake
from lakeboard.servers.search_agent.passages import (
    DOCUMENT_SUFFIXES,
    MAX_DOCUMENT_BYTES,
    DocumentText,
    Passage,
    UnreadableDocument,
    parse_document,
    split_passages,
)
from lakeboard.servers.search_agent.passage_ranking import PassageRanker

log = logging.getLogger(__name__)

CACHE_VERSION = 2  # 2: only files the lake's rules allow were read; texts cached before are not trusted


class _Source(NamedTuple):
    lake: Path  # the folder whose rules it is read by
    rel: str  # its path there
    shown: str  # its name in sources


class LocalDocument(BaseModel):
    """One indexed document, as listed in the server's documents resource."""

    path: str
    title: str
    kind: str
    chars: int
    passages: int


class LocalDocumentList(BaseModel):
    """The documents resource: what the local backend indexed, and what it could not read."""

    documents: list[LocalDocument]
    skipped: list[str] = []


class DocumentHit(BaseModel):
    """A document the index matched, with its passages best first."""

    document: LocalDocument
    score: float
    passages: list[Passage]


class LocalIndex:
    """Documents under some folders, searchable by passage similarity."""

    def __init__(
        self,
        folders: Sequence[Path],
        *,
        root: Path | None = None,
        cache_dir: Path | None = None,
    ) -> None:
        # Absolute, not resolved: a folder that is a link must still look like one to the walk.
        self.folders = [Path(os.path.abspath(f)) for f in folders]
        self.root = Path(os.path.abspath(root)) if root is not None else None
        self.cache_dir = cache_dir
        self.documents: list[LocalDocument] = []
        self.skipped: list[str] = []
        self._ranker = PassageRanker([])
        self._by_path: dict[str, LocalDocument] = {}
        self._built = threading.Event()
        self._error: BaseException | None = None

    # -- building ---------------------------------------------------------------------------

    def build(self) -> LocalIndex:
        """Read every document and fit the ranker (blocking; run it in a worker thread)."""
        try:
            cache = self._load_cache()
            fresh: dict[str, dict] = {}
            passages: list[Passage] = []
            documents: list[LocalDocument] = []
            for source in self._sources():
                text = self._extract(source, cache, fresh)
                if text is None:
                    continue
                chunks = split_passages(text.text, source=source.shown, title=text.title)
                if not chunks:
                    self.skipped.append(f"{source.shown}: no text")
                    continue
                passages.extend(chunks)
                documents.append(LocalDocument(path=source.shown, title=text.title, kind=text.kind,
                                               chars=len(text.text), passages=len(chunks)))
            self._ranker = PassageRanker(passages)
            self.documents = documents
            self._by_path = {d.path: d for d in documents}
            if fresh != cache:
                self._save_cache(fresh)
            log.info("indexed %d documents (%d passages) from %s", len(documents), len(passages),
                     ", ".join(map(str, self.folders)))
        except BaseException as exc:  # recorded so that waiting tools report it, then re-raised
            self._error = exc
            raise
        finally:
            self._built.set()
        return self

    def wait(self, timeout: float | None = None) -> None:
        """Block until `build` has finished; re-raise its failure, if any."""
        if not self._built.wait(timeout):
            raise TimeoutError("The local document index is still being built.")
        if self._error is not None:
            raise RuntimeError(f"Indexing the local documents failed: {self._error}") from self._error

    @property
    def ready(self) -> bool:
        return self._built.is_set()

    def _sources(self) -> Iterator[_Source]:
        """The documents of every folder, found by the indexer's walk; its skipped entries are reported."""
        for folder in self.folders:
            lake, under = self._lake_of(folder)
            try:
                entries = list(walk_lake(lake, under))
            except OSError as exc:
                self._skip(self.display_path(folder), f"cannot list the folder: {exc.strerror or exc}")
                continue
            for entry in entries:
                shown = entry.rel if lake == self.root else f"{folder.name}/{entry.rel}".rstrip("/")
                source = _Source(lake, entry.rel, shown)
                if entry.skip_reason is not None:
                    self._skip(source.shown, entry.skip_reason)
                elif PurePath(entry.rel).suffix.lower() in DOCUMENT_SUFFIXES:
                    yield source

    def _lake_of(self, folder: Path) -> tuple[Path, str]:
        """The lake a docs folder is read in, and the folder's path in it.

        A folder under the lake root is part of the lake: it is read by the lake's rules, so a
        link out of the lake (the folder itself, or anything in it) is refused. Any other folder
        was named on its own and is its own lake.
        """
        if self.root is not None and folder.is_relative_to(self.root):
            return self.root, folder.relative_to(self.root).as_posix()
        return folder, ""

    def display_path(self, path: Path) -> str:
        """How a document is named in sources: relative to the lake root or docs folder parent."""
        bases = [self.root] if self.root is not None else []
        bases += [f.parent for f in self.folders if path.is_relative_to(f)]
        for base in bases:
            if base is not None and path.is_relative_to(base):
                return path.relative_to(base).as_posix()
        return path.as_posix()

    def _skip(self, shown: str, reason: str) -> None:
        log.warning("skipping %r: %s", shown, reason)
        self.skipped.append(f"{shown}: {reason}")

    def _extract(self, source: _Source, cache: dict[str, dict], fresh: dict[str, dict]) -> DocumentText | None:
        """The text of one document, opened by the lake's rules and read up to MAX_DOCUMENT_BYTES."""
        try:
            fd = open_lake_file(source.lake, source.rel)
        except FileRefused as exc:
            self._skip(source.shown, str(exc))
            return None
        except OSError as exc:
            self._skip(source.shown, exc.strerror or str(exc))
            return None
        try:
            stat = os.fstat(fd)
            if stat.st_size > MAX_DOCUMENT_BYTES:
                self._skip(source.shown, f"larger than {MAX_DOCUMENT_BYTES} bytes")
                return None
            key = os.path.join(source.lake, source.rel)
            stamp = [stat.st_mtime_ns, stat.st_size]
            cached = cache.get(key)
            if cached and cached.get("stamp") == stamp:
                fresh[key] = cached
                return DocumentText.model_validate(cached["text"])
            data = read_at_most(fd, MAX_DOCUMENT_BYTES)
        except FileRefused as exc:
            self._skip(source.shown, str(exc))
            return None
        except OSError as exc:
            self._skip(source.shown, exc.strerror or str(exc))
            return None
        finally:
            os.close(fd)
        try:
            text = parse_document(data, PurePath(source.rel).name)
        except (UnreadableDocument, UnicodeError, ValueError) as exc:
            self._skip(source.shown, str(exc))
            return None
        fresh[key] = {"stamp": stamp, "text": text.model_dump()}
        return text

    # -- cache ------------------------------------------------------------------------------

    def _cache_file(self) -> Path | None:
        if self.cache_dir is None:
            return None
        digest = hashlib.sha1("\n".join(sorted(map(str, self.folders))).encode()).hexdigest()[:16]
        return self.cache_dir / f"docs-{digest}.json"

    def _load_cache(self) -> dict[str, dict]:
        file = self._cache_file()
        if file is None or not file.exists():
            return {}
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            log.warning("ignoring unreadable index cache %s: %s", file, exc)
            return {}
        if data.get("version") != CACHE_VERSION:
            return {}
        return data.get("documents", {})

    def _save_cache(self, documents: dict[str, dict]) -> None:
        file = self._cache_file()
        if file is None:
            return
        try:
            write_text_atomic(file, json.dumps({"version": CACHE_VERSION, "documents": documents}), durable=False)
        except OSError as exc:  # a cache is an optimisation: never fatal
            log.warning("could not write the index cache %s: %s", file, exc)

    # -- searching --------------------------------------------------------------------------

    def search(self, text: str, k: int = 3) -> list[DocumentHit]:
        """The `k` documents whose best passage is most similar to `text`."""
        per_document: dict[str, list[tuple[Passage, float]]] = {}
        for passage, score in self._ranker.rank(text):
            per_document.setdefault(passage.source, []).append((passage, score))
        hits = [
            DocumentHit(document=self._by_path[source], score=scored[0][1], passages=[p for p, _ in scored])
            for source, scored in per_document.items()
        ]
        hits.sort(key=lambda h: h.score, reverse=True)
        return hits[:k]

    def best_score(self, text: str) -> float:
        """Similarity of `text` to the single best passage of all documents."""
        scores = self._ranker.scores(text)
        return max(scores, default=0.0)
