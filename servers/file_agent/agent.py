"""A file agent: one partition's profiles, the relevance engine, and its answers.

Plain, synchronous and testable; `server.py` only exposes it over MCP. The agent decides
on its own whether it can help (the blackboard never assigns work), on a confidence scale
shared across every file agent of the lake.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from lakeboard.common.confidence import EVIDENCE_FLOOR, RELATIVE_SHARE
from lakeboard.common.loader_programs import loading_code
from lakeboard.schemas.clusters import ClusterConfig, LakeVocabulary
from lakeboard.schemas.messages import BlackboardRequest, FileAgentResponse, FileMatch, HelpDecision
from lakeboard.schemas.profiles import FileEntry, FileProfile
from lakeboard.servers.file_agent import response_writing
from lakeboard.servers.relevance import LexicalEngine

log = logging.getLogger(__name__)


class OutsidePartition(ValueError):
    """A path that is not one of this agent's files."""


@dataclass(frozen=True)
class AgentPolicy:
    volunteer_at: float = EVIDENCE_FLOOR  # lake-wide score at which the agent says it can help
    relative: float = RELATIVE_SHARE  # further files must score this share of the agent's best
    max_files: int = 8  # data files with loading code (a family counts once)


class FileAgent:
    def __init__(self, config: ClusterConfig, cluster: str, policy: AgentPolicy = AgentPolicy()) -> None:
        from lakeboard.servers.profiling import ProfileCache

        self.config = config
        self.spec = config.cluster(cluster)
        self.name = self.spec.name
        self.root = Path(config.lake)
        self.policy = policy
        with ProfileCache(Path(config.profile_dir)) as cache:
            cached = cache.load_many(self.spec.files)
        self.profiles: dict[str, FileProfile] = {}
        for path in self.spec.files:
            prof = cached.get(path)
            if prof is None:
                reason = config.errors.get(path, "not profiled yet: run `lakeboard index` again")
                prof = FileProfile(path=path, format="unknown", status="skipped", reason=reason)
            self.profiles[path] = prof
        vocabulary = None
        if config.vocabulary and Path(config.vocabulary).exists():
            vocabulary = LakeVocabulary.model_validate_json(Path(config.vocabulary).read_text())
        self.engine = LexicalEngine(list(self.profiles.values()), vocabulary)

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
        ok = [p for p in self.profiles.values() if p.ok]
        bad = [p for p in self.profiles.values() if not p.ok]
        lines = [f"Partition {self.name!r} of lake {self.config.name!r}: {self.spec.description}",
                 f"{len(ok)} readable files, {len(bad)} not usable as data."]
        lines += [f"- {p.path}: {p.summary}" for p in ok[:200]]
        lines += [f"- {p.path}: NOT DATA ({p.status}): {p.reason}" for p in bad]
        return "\n".join(lines)

    # -- the blackboard protocol ----------------------------------------------------------
    def decide(self, request: BlackboardRequest) -> HelpDecision:
        return self._decision(self.engine.score(request.request))

    def _decision(self, matches: list[FileMatch]) -> HelpDecision:
        best = matches[0] if matches else None
        if best is None or best.score < self.policy.volunteer_at:
            why = (
                f"none of my {len(self.profiles)} files covers enough of the request"
                + (f" (best: {best.path} at {best.score:.2f})" if best else "")
            )
            return HelpDecision(agent_name=self.name, can_help=False, reason=why,
                                confidence=round(best.score if best else 0.0, 4))
        return HelpDecision(
            agent_name=self.name,
            can_help=True,
            reason=f"{best.path} matches {', '.join(best.matched_terms[:6])}",
            confidence=best.score,
        )

    def respond(self, request: BlackboardRequest) -> FileAgentResponse:
        ranking = self.engine.rank(request.request)
        matches = ranking.matches
        decision = self._decision(matches)
        if not decision.can_help:
            return FileAgentResponse(agent_name=self.name, can_help=False, reason=decision.reason,
                                     confidence=decision.confidence)
        chosen = self._choose(matches)
        picked = {m.path for m in chosen}
        data = [m for m in chosen if m.role != "dictionary"]
        dictionaries = [m for m in chosen if m.role == "dictionary"]
        shown = _one_per_family(data)[: self.policy.max_files] + dictionaries
        shown_profiles = [self.profiles[m.path] for m in shown]
        loaders = response_writing.loaders(shown_profiles, _families_of(shown, data), {m.path: m.group for m in shown})
        explanation = "\n".join(
            [
                response_writing.explanation(
                    self.profiles[m.path], m.role,
                    [d for d, ds in self.engine.dictionaries.items() if m.path in ds],
                    self.engine.coverage.get(m.path),
                )
                for m in shown
            ]
            # what each family shown is, and which of its members the request chose
            + [f"Family: {ranking.choices[m.group].reason}" for m in shown if m.group in ranking.choices]
        )
        return FileAgentResponse(
            agent_name=self.name,
            can_help=True,
            reason=decision.reason,
            files=[m.path for m in chosen],
            code=loading_code(loaders, self.root),
            loaders=loaders,
            data_explanation=explanation,
            data_sample=response_writing.samples(shown_profiles),
            libraries=response_writing.libraries(loaders),
            necessary_steps=response_writing.necessary_steps(shown_profiles),
            confidence=decision.confidence,
            matches=chosen + [m for m in matches if m.path not in picked][:20],
            term_weights=self.engine.request_weights(request.request),
        )

    def _choose(self, matches: list[FileMatch]) -> list[FileMatch]:
        if not matches:
            return []
        best = matches[0].score
        chosen = [m for m in matches if m.role != "dictionary" and m.score >= self.policy.relative * best]
        picked = {m.path for m in chosen}
        by_path = {m.path: m for m in matches}
        for m in list(chosen):
            for comp in m.companions:
                if comp not in picked and comp in by_path:
                    chosen.append(by_path[comp])
                    picked.add(comp)
        return chosen


def _one_per_family(matches: list[FileMatch]) -> list[FileMatch]:
    seen: set[str] = set()
    out = []
    for m in matches:
        if m.group and m.group in seen:
            continue
        if m.group:
            seen.add(m.group)
        out.append(m)
    return out


def _families_of(shown: list[FileMatch], chosen: list[FileMatch]) -> dict[str, list[str]]:
    """For each shown file that stands for a family: every chosen member, itself first."""
    out: dict[str, list[str]] = {}
    for rep in shown:
        if rep.group:
            out[rep.path] = [rep.path] + [m.path for m in chosen if m.group == rep.group and m.path != rep.path]
    return out
