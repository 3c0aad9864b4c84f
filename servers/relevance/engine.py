"""The offline relevance engine: which files of a partition does a request need?

Scores are comparable across file agents by construction: term weights come from the
lake-wide vocabulary written at index time, and a file's score is the weighted share of
the request's terms it covers, so the same request gets the same scale everywhere.
"""

from __future__ import annotations

import math
from pathlib import PurePosixPath
from collections import Counter
from dataclasses import dataclass, field

from lakeboard.schemas.clusters import LakeVocabulary
from lakeboard.schemas.families import Family, TimeCoverage
from lakeboard.schemas.messages import FileMatch
from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.profiling.families import describe_families
from lakeboard.servers.relevance.constraints import Constraints, parse_constraints
from lakeboard.servers.relevance.dictionaries import dictionary_text, link_dictionaries
from lakeboard.servers.relevance.evidence import content_terms
from lakeboard.servers.relevance.request_text import data_part
from lakeboard.servers.relevance.family_choice import FamilyChoice, choose_members
from lakeboard.servers.relevance.search_fields import FileDocument, build_document, profile_texts
from lakeboard.servers.relevance.tokens import bigrams, query_terms, quoted_phrases, specificity, terms
from lakeboard.servers.time_coverage import coverage_of
from lakeboard.servers.time_vocabulary import granularity

# A request term the lake has never seen still counts against coverage, but less than
# an average term: it is often a word of the question rather than of the data.
_ABSENT_TERM_FACTOR = 0.35
_ABSENT_SPECIFICITY = 0.3
_W_COVERAGE, _W_PHRASE, _W_NAME = 0.7, 0.1, 0.2
# A quoted phrase found verbatim as a column name or value is the strongest evidence a
# request can give; it lifts the score by this much (then clipped to 1).
_QUOTED_BONUS = 0.15
# A file whose data lies outside every period the request names is likely the same
# subject at the wrong time: it keeps this share of its score.
_OUT_OF_PERIOD = 0.6
# A file that matches only a request's framing words ("daily", "data", a year) keeps this
# share of its score: too little to volunteer on.
_FRAMING_ONLY = 0.3
# One file per month is monthly data, whatever its rows hold: a family slot's unit of time.
_SLOT_UNIT = {"year": "year", "month": "month", "date": "day"}
# A request that names members of a family (its towns, its ids) points at that family.
_NAMED_BONUS = 0.15


@dataclass
class Ranking:
    """Every file with some evidence, best first, and how each family was resolved."""

    matches: list[FileMatch]
    constraints: Constraints
    choices: dict[str, FamilyChoice] = field(default_factory=dict)  # family key -> choice


def vocabulary_of(profiles: list[FileProfile]) -> LakeVocabulary:
    """Lake-wide document frequencies and word specificities, computed once by the indexer."""
    df: Counter[str] = Counter()
    surface: dict[str, str] = {}
    for prof in profiles:
        texts = profile_texts(prof)
        df.update(build_document(prof, texts=texts).all_terms())
        for term, word in query_terms(texts.joined()).items():
            surface.setdefault(term, word)
    spec = {t: round(specificity(w), 3) for t, w in surface.items() if t in df}
    return LakeVocabulary(n_files=len(profiles), doc_freq=dict(df), specificity=spec)


def request_terms(request: str) -> dict[str, str]:
    """The request's terms (each with the word it came from) that can be matched against
    files: not its sentences about the answer, and not the month and season words of its
    times, which are matched against time coverage instead (a "March" in a footnote is no
    evidence). Years stay: they tell apart tables of one subject."""
    constraints = parse_constraints(request)
    timed = query_terms(" ".join(request[a:b] for a, b in constraints.time_spans))
    untimed = query_terms(constraints.without_time(request))
    return {
        t: w for t, w in query_terms(data_part(request)).items() if t not in timed or t in untimed or w.isdigit()
    }


class LexicalEngine:
    """Scores files by weighted term coverage over profile fields (no model needed)."""

    def __init__(self, profiles: list[FileProfile], vocabulary: LakeVocabulary | None = None) -> None:
        self.profiles = {p.path: p for p in profiles}
        links = link_dictionaries(profiles)
        self.dictionaries = links.closest  # served together
        description_of: dict[str, str] = {}
        # ... but every file whose columns a dictionary describes is searchable by its text
        for data_path, dict_paths in links.fitting.items():
            description_of[data_path] = " ; ".join(dictionary_text(self.profiles[d]) for d in dict_paths)
        self.documents: dict[str, FileDocument] = {
            p.path: build_document(p, description_of.get(p.path, "")) for p in profiles
        }
        self.dictionary_paths = {d for ds in self.dictionaries.values() for d in ds}
        self.family_list: list[Family] = describe_families(profiles)
        self.families = {m.path: f.key for f in self.family_list for m in f.members}
        self.coverage: dict[str, TimeCoverage | None] = {p.path: coverage_of(p) for p in profiles}
        for f in self.family_list:
            for m in f.members:
                self.coverage[m.path] = m.coverage
        for family in self.family_list:
            self._name_family_members(family)
        self.vocabulary = vocabulary or vocabulary_of(profiles)

    def _name_family_members(self, family: Family) -> None:
        """A member's name minus its slot names the dataset (`cargo-<slot>`: cargo); the slot's
        value (a year, a town, an id) only says which part, and is matched by family choice.
        Where the pattern has no words of its own, the folder names the dataset."""
        stem = PurePosixPath(family.pattern).name.replace("<slot>", " ")
        own = terms(stem.rsplit(".", 1)[0] if "." in stem else stem)
        unit = _SLOT_UNIT.get(family.slot)
        per = " ".join(granularity(unit).adjectives) if unit else ""
        for member in family.members:
            doc = self.documents[member.path]
            name = set(own) or doc.fields.get("path", set())
            doc.fields["name"] = name
            if per:
                doc.fields["form"] = doc.fields.get("form", set()) | set(terms(per))
            if family.slot in ("entity", "id"):
                # a member's own town or id, wherever it appears, says which member, not
                # what the family holds: the choice of members weighs it
                value = set(terms(member.value.replace("_", " ")))
                for key in ("title", "notes", "values", "text"):
                    if key in doc.fields:
                        doc.fields[key] = doc.fields[key] - value
            doc.name_terms = sorted(name)
            doc.labels = [sorted(name)] + doc.labels[1:] if name else doc.labels[1:]

    def idf(self, term: str) -> float:
        df = self.vocabulary.doc_freq.get(term, 0)
        n = max(self.vocabulary.n_files, 1)
        return math.log((n + 1) / (df + 0.5)) if df else 0.0

    def term_weights(self, request: str) -> dict[str, float]:
        seen = request_terms(request)
        idf = {t: self.idf(t) for t in seen}
        known = [w for w in idf.values() if w > 0]
        absent = _ABSENT_TERM_FACTOR * (sum(known) / len(known) if known else 1.0)
        return {t: round((w if w > 0 else absent) * self._specificity(t, seen[t]), 4) for t, w in idf.items()}

    def request_weights(self, request: str) -> dict[str, float]:
        """term_weights keyed by the request's own words, as FileMatch.matched_terms are."""
        said = request_terms(request)
        return {said.get(t, t): w for t, w in self.term_weights(request).items()}

    def _specificity(self, term: str, word: str) -> float:
        known = self.vocabulary.specificity
        if not known:  # a vocabulary written before specificities were recorded
            return specificity(word)
        # a word the lake never uses: its everyday frequency would not change the ranking
        return known.get(term, _ABSENT_SPECIFICITY)

    def _label_fit(self, label: list[str], weights: dict[str, float]) -> float:
        """Share of a label's (idf-weighted) words the request uses; one-word labels count half."""
        w = {t: self.idf(t) for t in set(label)}
        total = sum(w.values())
        fit = sum(v for t, v in w.items() if t in weights) / total if total else 0.0
        return fit if len(w) > 1 else fit / 2

    def score(self, request: str) -> list[FileMatch]:
        """Every file with some evidence, best first."""
        return self.rank(request).matches

    def rank(self, request: str) -> Ranking:
        """Score every file, then resolve families: a family is one unit whose members the
        request's names, ids or period choose, and time coverage weighs every file."""
        constraints = parse_constraints(request)
        matches = self._term_matches(request, constraints)
        if constraints.has_time:
            for m in matches:
                cov = self.coverage.get(m.path)
                if cov is not None and m.path not in self.families and not constraints.covers(cov.start, cov.end):
                    m.score = round(m.score * _OUT_OF_PERIOD, 4)
        matches, choices = self._resolve_families(matches, constraints, request)
        matches.sort(key=lambda m: (-m.score, m.path))
        said = query_terms(data_part(request))
        for m in matches:  # the words as the request wrote them, not their stems
            m.matched_terms = [said.get(t, t) for t in m.matched_terms]
        return Ranking(matches=matches, constraints=constraints, choices=choices)

    def _resolve_families(
        self, matches: list[FileMatch], constraints: Constraints, request: str
    ) -> tuple[list[FileMatch], dict[str, FamilyChoice]]:
        """One score per family, given to the members the request chooses (all of them when
        it chooses none); members it does not choose are left out."""
        by_family: dict[str, list[FileMatch]] = {}
        out: list[FileMatch] = []
        for m in matches:
            if m.group:
                by_family.setdefault(m.group, []).append(m)
            else:
                out.append(m)
        choices: dict[str, FamilyChoice] = {}
        families = {f.key: f for f in self.family_list}
        for key, found in by_family.items():
            family = families[key]
            choice = choose_members(family, constraints, request)
            choices[key] = choice
            best = max(found, key=lambda m: (m.score, len(m.matched_terms)))
            score = best.score if choice.members or not choice.constrained else best.score * _OUT_OF_PERIOD
            if choice.named:
                score = min(score + _NAMED_BONUS, 1.0)
            for path in choice.members or [m.path for m in family.members]:
                out.append(best.model_copy(update={"path": path, "score": round(score, 4)}))
        return out, choices

    def _term_matches(self, request: str, constraints: Constraints) -> list[FileMatch]:
        weights = self.term_weights(request)
        total = sum(weights.values())
        if total <= 0:
            return []
        content = content_terms(weights, constraints, request)
        query_phrases = bigrams(list(weights))
        quoted = [" ".join(q) for q in quoted_phrases(request)]
        out: list[FileMatch] = []
        for doc in self.documents.values():
            if not doc.usable:
                continue
            covered = 0.0
            matched: list[str] = []
            for term, w in weights.items():
                strength, _ = doc.strength(term)
                if strength:
                    covered += w * strength
                    matched.append(term)
            if not matched:
                continue
            phrase = len(query_phrases & doc.phrases) / len(query_phrases) if query_phrases else 0.0
            name_fit = max((self._label_fit(lab, weights) for lab in doc.labels), default=0.0)
            s = _W_COVERAGE * covered / total + _W_PHRASE * phrase + _W_NAME * name_fit
            if quoted:
                s += _QUOTED_BONUS * sum(q in doc.verbatim for q in quoted) / len(quoted)
            if content and not content.intersection(matched):
                s *= _FRAMING_ONLY
            matched.sort(key=lambda t: -weights[t])
            out.append(
                FileMatch(
                    path=doc.path,
                    score=round(min(s, 1.0), 4),
                    matched_terms=matched,
                    role="dictionary" if doc.path in self.dictionary_paths else "data",
                    group=self.families.get(doc.path),
                    companions=self.dictionaries.get(doc.path, []),
                )
            )
        return out
