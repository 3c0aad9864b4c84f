"""What relevance needs to know of each file beyond its search fields, found once at index time.

Its name's parts, the time it covers, its family, its column names and values (for quoted
phrases), which files it describes or is described by, and which hold the same bytes. Written with the
search index; a file agent reads the facts of its own files.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import PurePosixPath

from pydantic import BaseModel, Field

from lakeboard.common.byte_copies import copies_by_path
from lakeboard.schemas.families import Family, TimeCoverage
from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.relevance.answer_templates import is_answer_template
from lakeboard.servers.relevance.dictionaries import DictionaryLinks
from lakeboard.servers.relevance.query_parsing import name_parts
from lakeboard.servers.relevance.tokens import stem, words
from lakeboard.servers.time_coverage import coverage_of

class FileFacts(BaseModel):
    path: str
    usable: bool
    name_parts: list[str]
    labels: list[str] = Field(default_factory=list, description="column names and values, stemmed, as written")
    coverage: TimeCoverage | None = Field(None, description="the days its data covers, from its name or date columns")
    family: str | None = None
    describes: list[str] = Field(default_factory=list, description="data files this file documents")
    described_by: list[str] = Field(default_factory=list, description="dictionaries and READMEs of this file")
    copies: list[str] = Field(default_factory=list, description="other files of the lake with the same bytes")
    template: bool = Field(False, exclude_if=lambda v: not v,
                           description="it holds the form of an answer, not data (answer_templates.py)")

    @cached_property
    def word_parts(self) -> tuple[str, ...]:
        """Its name's parts without the numbers: what a request's words can name (read per request)."""
        return tuple(p for p in self.name_parts if not p.isdigit())


def _labels(profile: FileProfile) -> list[str]:
    out: set[str] = set()
    for table in profile.tables:
        for col in table.columns:
            out.add(" ".join(stem(w) for w in words(col.name)))
            out.update(" ".join(stem(w) for w in words(v)) for v in col.top_values[:30])
    out.discard("")
    return sorted(out)


def file_facts(profiles: list[FileProfile], families: list[Family], links: DictionaryLinks,
               copies: list[list[str]] = ()) -> list[FileFacts]:
    """`copies`: groups of paths whose files hold the same bytes."""
    same = copies_by_path(copies)
    family_of = {m.path: (f, m) for f in families for m in f.members}
    describes: dict[str, set[str]] = {}
    for data_path, docs in [*links.closest.items(), *links.beside.items()]:
        for d in docs:  # a document beside the data is never its rival, though it is not served with it
            describes.setdefault(d, set()).add(data_path)
    out = []
    for p in profiles:
        pp = PurePosixPath(p.path)
        fam, member = family_of.get(p.path, (None, None))
        cov = member.coverage if member is not None and member.coverage is not None else coverage_of(p)
        out.append(
            FileFacts(
                path=p.path,
                usable=p.status == "ok",
                name_parts=name_parts(pp.stem),
                labels=_labels(p),
                coverage=cov,
                family=fam.key if fam else None,
                describes=sorted(describes.get(p.path, ())),
                described_by=links.closest.get(p.path, []),
                copies=same.get(p.path, []),
                template=is_answer_template(p),
            )
        )
    return out
