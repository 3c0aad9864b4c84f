"""The real lakes of ../shared as (request, file) feature rows with labels: what the relevance
model is fitted on and scored with. Shared by fit_relevance.py and bench_discovery.py."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@dataclass
class LakeSpec:
    name: str
    lake: Path
    workload: Path


def real_lakes(shared: Path = SHARED) -> list[LakeSpec]:
    kb = shared / "kramabench"
    out = [LakeSpec(d, kb / d / "input", kb / "workload" / f"{d}.json") for d in ("archeology", "legal", "wildfire")]
    out.append(LakeSpec("dabench", shared / "dabench" / "input", shared / "dabench" / "workload" / "dabench.json"))
    return [s for s in out if s.lake.is_dir() and s.workload.is_file()]


def pooled_lake(specs: list[LakeSpec], work: Path) -> LakeSpec:
    """The lakes of `specs` as one lake (a folder each) in `work`, with their questions together:
    how the engine does on a bigger lake of real files and real questions. Files are hard links
    where the file system allows them, copies in `work` otherwise; nothing is written beside the
    real lakes."""
    import os
    import shutil

    root = work / "pooled"
    lake = root / "lake"
    for spec in specs:
        for src in sorted(p for p in spec.lake.rglob("*") if p.is_file() and not p.is_symlink()):
            dst = lake / spec.name / src.relative_to(spec.lake)
            if dst.exists():
                continue
            dst.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(src, dst)
            except OSError:
                shutil.copy2(src, dst)
    tasks = [t for spec in specs for t in json.loads(spec.workload.read_text())]
    workload = root / "workload.json"
    workload.write_text(json.dumps(tasks))
    return LakeSpec("pooled", lake, workload)


@dataclass
class Question:
    text: str
    units: list[str]
    x: np.ndarray  # one row per file of the lake
    y: np.ndarray  # 1 where the file is one the question needs
    unit_files: list[np.ndarray] = field(default_factory=list)  # per ground-truth unit, the files it names
    hits: np.ndarray | None = None  # content terms x files: which terms each file matches
    idf: np.ndarray | None = None
    words: list[str] = field(default_factory=list)  # the content terms as the request wrote them
    standing: float = 0.0  # how far its best dense similarity stands above the lake's others


@dataclass
class LakeData:
    spec: LakeSpec
    paths: list[str]
    questions: list[Question]
    off_topic: list[Question] = field(default_factory=list)  # the other lakes' questions: y all 0
    facts: list = field(default_factory=list)  # FileFacts, in the index's order
    bm25_plain: object = None


def index_lake(spec: LakeSpec, configs: Path) -> Path:
    """The lake's config folder, indexed with `lakeboard index` into `configs`. The indexer leaves
    an index that is current as it is, and writes a new one when the lake or the product's code
    changed, so rows are never built from an index an older indexer wrote."""
    folder = configs / spec.name
    subprocess.run([sys.executable, "-P", "-m", "lakeboard.host.cli", "index", str(spec.lake), "--name", spec.name,
                    "--out", str(configs), "--quiet"], check=True, stdout=subprocess.DEVNULL, cwd="/")
    return folder


def rows_version(configs: Path) -> str:
    """A digest of the index each real lake's config folder holds now (its current config set)
    and of the code that turns a request into evidence: rows made by older code are stale."""
    import hashlib

    names = [str((configs / s.name / "current").resolve()) for s in real_lakes()]
    code = [p.read_bytes() for p in sorted([*(REPO / "servers" / "relevance").glob("*.py"),
                                            *(REPO / "common").glob("request_*.py"), REPO / "schemas" / "messages.py"])]
    return hashlib.sha1("\n".join(names).encode() + b"".join(code)).hexdigest()[:10]


def load_lake_index(folder: Path):
    from lakeboard.common.byte_copies import byte_copies
    from lakeboard.schemas.clusters import ClusterConfig
    from lakeboard.servers.profiling import ProfileCache
    from lakeboard.servers.relevance.lake_index import LakeIndex

    config = ClusterConfig.model_validate_json((folder / "clusters.json").read_text())
    paths = sorted(f for c in config.clusters for f in c.files)
    with ProfileCache(Path(config.profile_dir)) as cache:
        profiles = list(cache.load_many(paths).values())
    copies = byte_copies(Path(config.lake), ((p.path, p.size_bytes) for p in profiles))
    return LakeIndex.build(profiles, config.families, copies=copies)


def embedder(cache_file: Path | None = None, kind: str = "minilm"):
    """texts -> unit vectors (the product's MiniLM runtime); vectors already computed are read
    from `cache_file`."""
    import pickle

    from lakeboard.common.minilm import embed as encode

    known: dict[str, np.ndarray] = {}
    if cache_file is not None and cache_file.exists():
        known = pickle.loads(cache_file.read_bytes())

    def embed(texts: list[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if t not in known]
        if todo:
            known.update(zip(todo, encode(todo)))
            if cache_file is not None:
                cache_file.write_bytes(pickle.dumps(known))
        return np.stack([known[t] for t in texts]) if texts else np.zeros((0, 384), dtype=np.float32)

    return embed


def lake_data(spec: LakeSpec, configs: Path, embed=None) -> tuple[LakeData, object, np.ndarray | None]:
    """The lake's rows, from its config folder in `configs` (indexed by the caller: `index_lake`)."""
    from lakeboard.common.card_vectors import CardVectors
    from lakeboard.host.eval.discovery_scores import resolve_unit

    li = load_lake_index(configs / spec.name)
    # the vectors as the product stores them (int8 codes and a scale a row), read back
    cards = CardVectors.quantize(embed(li.cards)).dense() if embed else None
    paths = li.index.paths
    low = [p.lower() for p in paths]
    tasks = json.loads(spec.workload.read_text())
    data = LakeData(spec, paths, [], facts=li.facts)
    for t in tasks:
        units = t["data_sources"] if isinstance(t["data_sources"], list) else [t["data_sources"]]
        match = [resolve_unit(u, paths) for u in units]
        # a file with the same bytes as one a unit names is that file (as the product's scorer counts it)
        unit_files = [with_copies(np.array([m(p) for p in low], dtype=bool), li.facts) for m in match]
        y = np.any(unit_files, axis=0).astype(np.int8) if unit_files else np.zeros(len(paths), dtype=np.int8)
        x, ev = features(li, t["query"], cards, embed)
        data.questions.append(Question(t["query"], units, x, y, unit_files, ev.hits, ev.idf,
                                       list(ev.query.terms.values()), ev.standing))
    return data, li, cards


def with_copies(mask: np.ndarray, facts: list) -> np.ndarray:
    """`mask` (one flag per file, in the facts' order) with the files that have the same bytes as a flagged one."""
    at = {f.path: i for i, f in enumerate(facts)}
    out = mask.copy()
    for i in np.flatnonzero(mask):
        out[[at[c] for c in facts[i].copies if c in at]] = True
    return out


def features(li, text: str, cards, embed) -> np.ndarray:
    from lakeboard.common.request_embedding import embed_request
    from lakeboard.servers.relevance.features import LakeEvidence, feature_rows
    from lakeboard.servers.relevance.query_parsing import parse_query

    q = parse_query(text)
    # as a file agent does where the host sent no vectors: the whole request, then its sentences
    dense = (embed_request(embed, [q.data_text, *q.sentences]) @ cards.T) if cards is not None else None
    ev = LakeEvidence(q, li.index, dense)
    return feature_rows(ev, range(len(li.facts)), li.facts), ev
