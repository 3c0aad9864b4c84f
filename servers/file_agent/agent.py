"""A file agent: one partition's profiles, the relevance engine, and its answers.

Plain, synchronous and testable; `server.py` only exposes it over MCP. The agent decides
on its own whether it can help (the blackboard never assigns work), on a confidence scale
shared across every file agent of the lake.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path, PurePosixPath

import numpy as np

from lakeboard.common.file_choice import SHOWN_FILES, best_data_file, select_files
from lakeboard.common.loader_programs import BucketSource, loading_code
from lakeboard.schemas.clusters import ClusterConfig
from lakeboard.schemas.messages import BlackboardRequest, FileAgentResponse, FileMatch, HelpDecision, LakeSimilarity
from lakeboard.schemas.profiles import FileEntry, FileProfile
from lakeboard.servers.file_agent import response_writing
from lakeboard.servers.file_agent.partition_profiles import PartitionProfiles
from lakeboard.servers.relevance import LakeIndex, RelevanceEngine, parse_query
from lakeboard.schemas.query import Query
from lakeboard.servers.relevance.engine import Ranking
from lakeboard.servers.relevance.features import period_fit
from lakeboard.common.minilm import available_embedder

log = logging.getLogger(__name__)
_TIME_SLOTS = frozenset({"year", "month", "date", "date_range"})  # a family split by time
_RANKINGS_KEPT = 8  # requests whose ranking an agent keeps (respond follows can_help)


class OutsidePartition(ValueError):
    """A path that is not one of this agent's files."""


class StaleIndex(RuntimeError):
    """A config written before the lake had a search index."""


class FileAgent:
    def __init__(self, config: ClusterConfig, cluster: str, *, embed: bool = True) -> None:
        self.config = config
        self.spec = config.cluster(cluster)
        self.name = self.spec.name
        self.root = Path(config.code_root)  # where loaders read the files (a bucket lake's mirror)
        # a bucket lake's code reads the mirror where it can, else the objects through fsspec
        self.source = BucketSource(config.source, dict(config.source_options)) if config.source else None
        self.profiles = PartitionProfiles(Path(config.profile_dir), self.spec.files, config.errors)
        folder = Path(config.relevance_index) if config.relevance_index else None
        if folder is None or not folder.is_dir():
            raise StaleIndex(
                f"the config of lake {config.name!r} has no search index (it was written by an older "
                f"Lakeboard): run `lakeboard index {config.source or config.lake}` again"
            )
        self.index_folder = str(config.relevance_index)  # how the host names this lake's index
        self.engine = RelevanceEngine(LakeIndex.load(folder, paths=self.spec.files),
                                      embed=available_embedder() if embed else None)
        self.policy = self.engine.weights.policy
        # a file's family (for its loader and its explanation), as the indexer found it
        self.families = {f.key: f for f in config.families}
        self._sharing_keys: dict[str, str] = {}
        self._rankings: dict[tuple[str, bytes | None, float | None], Ranking] = {}
        self._ranking_lock = threading.Lock()

    # -- inventory -------------------------------------------------------------------
    def list_files(self) -> list[FileEntry]:
        return [
            FileEntry(path=p.path, format=p.format, kind=p.kind, status=p.status, size_bytes=p.size_bytes,
                      summary=p.summary or (p.reason or ""))
            for p in self.profiles.values()
        ]

    def profile(self, path: str) -> FileProfile:
        key = PurePosixPath(path.strip().lstrip("/")).as_posix()
        if key not in self.profiles or ".." in PurePosixPath(key).parts:
            raise OutsidePartition(
                f"{path!r} is not a file of partition {self.name!r}; call list_files to see its {len(self.profiles)} files"
            )
        return self.profiles[key]

    def analysis(self) -> str:
        every = list(self.profiles.values())
        ok = [p for p in every if p.ok]
        bad = [p for p in every if not p.ok]
        lines = [f"Partition {self.name!r} of lake {self.config.name!r}: {self.spec.description}",
                 f"{len(ok)} readable files, {len(bad)} not usable as data."]
        lines += [f"- {p.path}: {p.summary}" for p in ok[:200]]
        lines += [f"- {p.path}: NOT DATA ({p.status}): {p.reason}" for p in bad]
        return "\n".join(lines)

    # -- the blackboard protocol ----------------------------------------------------------
    def rank(self, request: str | Query, embedding: list[list[float]] | None = None,
             lake: LakeSimilarity | None = None) -> Ranking:
        """`embedding`: the request's vectors as the host sent them (the agent embeds the request
        without them); `lake`: their similarity to the whole lake, as the host sent it with them.

        The last few rankings are kept: `respond` follows `can_help` for the same request, and
        ranking it again would repeat the work (the embedding included, where none was sent).
        """
        query = request if isinstance(request, Query) else parse_query(request)
        vectors = np.asarray(embedding, dtype=np.float32) if embedding is not None else None
        key = (query.text, None if vectors is None else vectors.tobytes(), lake)
        with self._ranking_lock:
            known = self._rankings.pop(key, None)
            if known is not None:
                self._rankings[key] = known  # most recent last
                return known
        ranking = self.engine.rank(query, vectors, lake)  # the engine ignores a similarity sent without vectors
        with self._ranking_lock:
            self._rankings[key] = ranking
            while len(self._rankings) > _RANKINGS_KEPT:
                self._rankings.pop(next(iter(self._rankings)))
        return ranking

    def _lake(self, request: BlackboardRequest) -> LakeSimilarity | None:
        return (request.lake_similarity or {}).get(self.index_folder)

    def decide(self, request: BlackboardRequest) -> HelpDecision:
        return self._decision(self.rank(request.request, request.embedding, self._lake(request)))

    def _decision(self, ranking: Ranking) -> HelpDecision:
        best = best_data_file(ranking.matches)  # the file respond would give, not a dictionary or a template
        if best is None or ranking.gate < self.policy.gate_at:
            why = (
                f"none of my {len(self.profiles)} files holds what the request needs"
                + (f" (closest: {best.path}, {best.score:.2f})" if best else "")
            )
            return HelpDecision(agent_name=self.name, can_help=False, reason=why,
                                confidence=round(best.score if best else 0.0, 4),
                                closest=[m for m in ranking.matches[:SHOWN_FILES] if m.matched_terms])
        words = f" matches {', '.join(best.matched_terms[:6])}" if best.matched_terms else " is the closest"
        return HelpDecision(agent_name=self.name, can_help=True, reason=f"{best.path}{words}", confidence=best.score)

    def respond(self, request: BlackboardRequest) -> FileAgentResponse:
        query = parse_query(request.request)
        ranking = self.rank(query, request.embedding, self._lake(request))
        decision = self._decision(ranking)
        if not decision.can_help:
            return FileAgentResponse(agent_name=self.name, can_help=False, reason=decision.reason,
                                     confidence=decision.confidence, dense=self.engine.dense)
        matches = self._with_period_members(ranking.matches, query)
        chosen = [m for m in select_files(matches) if m.path in self.profiles]
        picked = {m.path for m in chosen}
        data = [m for m in chosen if m.role != "dictionary"]
        dictionaries = [m for m in chosen if m.role == "dictionary"]
        # members of a family share its loader only when they share its layout and code
        share = {m.path: self._sharing_key(m.path) for m in data if m.group}
        shown = _one_per_family(data, share) + dictionaries
        shown_profiles = [self.profiles[m.path] for m in shown]
        loaders = response_writing.loaders(shown_profiles, _families_of(shown, data, share),
                                           {m.path: m.group for m in shown})
        explanation = "\n".join(
            [
                response_writing.explanation(
                    self.profiles[m.path], m.role, self.engine.facts_of(m.path).describes,
                    self.engine.coverage_of(m.path), self.engine.facts_of(m.path).copies,
                )
                for m in shown
            ]
            + [self._family_line(m, picked) for m in _one_per_family(shown, {}) if m.group in self.families]
        )
        return FileAgentResponse(
            agent_name=self.name,
            can_help=True,
            reason=decision.reason,
            files=[m.path for m in chosen],
            code=loading_code(loaders, self.root, self.source),
            loaders=loaders,
            data_explanation=explanation,
            data_sample=response_writing.samples(shown_profiles),
            libraries=response_writing.libraries(loaders),
            necessary_steps=response_writing.necessary_steps(shown_profiles),
            confidence=decision.confidence,
            matches=chosen + [m for m in matches if m.path not in picked][:20],
            term_weights=ranking.term_weights,
            dense=self.engine.dense,
        )

    def _sharing_key(self, path: str) -> str:
        """The file's loader-sharing key, made once: a family of hundreds would otherwise generate
        and parse hundreds of loaders on every request (profiles do not change while an agent runs)."""
        key = self._sharing_keys.get(path)
        if key is None:
            key = self._sharing_keys[path] = response_writing.sharing_key(self.profiles[path])
        return key

    def _with_period_members(self, matches: list[FileMatch], query: Query) -> list[FileMatch]:
        """A family member's companions include the other members the request's period takes
        (one file per month, and the request asks for the year). With no period, the family is
        not returned whole: its best members are, and the explanation says how many more there are."""
        if not query.has_time:
            return matches
        out = []
        for m in matches:
            family = self.families.get(m.group) if m.group else None
            # only a dated series splits its data by time; one file per place or id covers the
            # same period as its siblings, and the period takes none of them in its stead
            if family is not None and family.slot in _TIME_SLOTS:
                fitting = [x.path for x in family.members if x.path != m.path and x.path in self.profiles
                           and period_fit(self.engine.facts_of(x.path), query)[0]]
                m = m.model_copy(update={"companions": [*m.companions, *fitting]})
            out.append(m)
        return out

    def _family_line(self, shown: FileMatch, picked: set[str]) -> str:
        """What a family is, and how many of its members were chosen: a family nothing in the
        request narrows is not returned whole, so say how many more there are."""
        family = self.families[shown.group]
        chosen = [m for m in family.members if m.path in picked]
        rest = len(family.members) - len(chosen)
        more = f"; {rest} more files of it were not chosen (list_files shows them)" if rest else ""
        return f"Family: {family.describe()}; chosen {len(chosen)}{more}"


def _one_per_family(matches: list[FileMatch], share: dict[str, str]) -> list[FileMatch]:
    """The first match of each family and sharing key (`response_writing.sharing_key`): a member
    of another layout than its family's first file stands for itself."""
    seen: set[tuple[str, str]] = set()
    out = []
    for m in matches:
        key = (m.group, share.get(m.path, "")) if m.group else None
        if key in seen:
            continue
        if key is not None:
            seen.add(key)
        out.append(m)
    return out


def _families_of(shown: list[FileMatch], chosen: list[FileMatch], share: dict[str, str]) -> dict[str, list[str]]:
    """For each shown file that stands for a family: every chosen member that can share its
    loader, itself first."""
    out: dict[str, list[str]] = {}
    for rep in shown:
        if rep.group:
            out[rep.path] = [rep.path] + [m.path for m in chosen if m.group == rep.group and m.path != rep.path
                                          and share.get(m.path) == share.get(rep.path)]
    return out
