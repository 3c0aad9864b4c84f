"""A file's profile as weighted fields of terms: what a request can be matched against.

Field weights say how strongly a match in that field suggests the file holds what the
request needs: the file's own name and its column names are the strongest evidence, a
word buried in a PDF's first page the weakest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath

from lakeboard.schemas.profiles import ColumnProfile, FileProfile
from lakeboard.servers.relevance.abbreviations import expand
from lakeboard.servers.relevance.data_form import geometry_words, granularity_words
from lakeboard.servers.relevance.tokens import bigrams, stem, terms, words
from lakeboard.servers.time_coverage import YEAR_IN_NAME
from lakeboard.servers.time_vocabulary import TIME_COLUMN_WORDS

FIELD_WEIGHTS: dict[str, float] = {
    "name": 1.0,
    "columns": 0.9,
    "title": 0.9,
    "path": 0.75,
    "dictionary": 0.7,
    "values": 0.6,
    "text": 0.5,
    "notes": 0.85,
    "form": 0.8,
}

_MAX_VALUES_PER_COLUMN = 30
_MAX_TEXT_CHARS = 4000


@dataclass
class FileDocument:
    path: str
    fields: dict[str, set[str]] = field(default_factory=dict)
    phrases: set[tuple[str, str]] = field(default_factory=set)
    # every stemmed word of column names and categorical values, stopwords kept, one
    # string per name/value: where a quoted phrase from a request is looked up verbatim
    verbatim: set[str] = field(default_factory=set)
    name_terms: list[str] = field(default_factory=list)
    # the names this file gives itself: its file name, its tables' titles, its column
    # names; a request that names one of them in full is pointing at this file
    labels: list[list[str]] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    usable: bool = True

    def all_terms(self) -> set[str]:
        return set().union(*self.fields.values()) if self.fields else set()

    def strength(self, term: str) -> tuple[float, str | None]:
        """The strongest field in which `term` occurs, and that field's weight."""
        best, where = 0.0, None
        for name, toks in self.fields.items():
            w = FIELD_WEIGHTS[name]
            if w > best and term in toks:
                best, where = w, name
        return best, where


def _is_placeholder_column(name: str) -> bool:
    return name.startswith("Unnamed:") or name.strip() == "" or name.isdigit()


@dataclass
class ProfileTexts:
    """The texts of a profile that say what its file holds, grouped the way they are scored."""

    stem: str  # file name without its suffix
    folders: str
    titles: list[str]
    notes: list[str]
    columns: list[str]
    values: list[str]
    text: str  # leading prose, bounded

    def joined(self) -> str:
        return " ; ".join([self.stem, self.folders, *self.titles, *self.notes, *self.columns, *self.values, self.text])


def profile_texts(profile: FileProfile) -> ProfileTexts:
    p = PurePosixPath(profile.path)
    titles: list[str] = []
    notes: list[str] = []
    columns: list[str] = []
    values: list[str] = []
    for table in profile.tables:
        if table.name:
            titles.append(table.name)
        # the line naming a table is its title; other notes are footnotes and sources
        if table.title:
            titles.append(table.title)
        notes.extend(n for n in table.notes if n != table.title)
        for col in table.columns:
            if not _is_placeholder_column(col.name):
                columns.append(col.name)
            picked = col.top_values[:_MAX_VALUES_PER_COLUMN]
            if not picked and col.dtype in ("object", "str", "string", "category"):
                picked = col.examples
            values.extend(v for v in picked if not _looks_numeric(v))
            values.extend(_years_spanned(col, table.sample_rows))
    titles.extend(profile.attributes.values())
    for a in profile.arrays:
        columns.append(a.name)
    # Prose around tables (an HTML page's navigation, a workbook's notes sheet) is weak
    # evidence next to the tables themselves.
    text = (profile.text or "")[: _MAX_TEXT_CHARS // (4 if profile.tables else 1)]
    return ProfileTexts(
        stem=p.name[: -len(p.suffix)] if p.suffix else p.name,
        folders=" ".join(p.parts[:-1]),
        titles=titles,
        notes=notes,
        columns=columns,
        values=values,
        text=text,
    )


def build_document(
    profile: FileProfile, dictionary_text: str = "", texts: ProfileTexts | None = None
) -> FileDocument:
    """Fields of terms for one profiled file (no I/O: everything comes from the profile).

    `texts`: the profile's texts when the caller has them already (profile_texts(profile)).
    """
    t = texts or profile_texts(profile)
    titles, notes, columns, values = t.titles, t.notes, t.columns, t.values
    name_terms = terms(t.stem)
    fields: dict[str, list[str]] = {"name": name_terms, "path": terms(t.folders)}
    phrase_sources = [name_terms]

    fields["title"] = terms(" ".join(titles))
    fields["notes"] = terms(" ".join(notes))
    fields["columns"] = terms(" ; ".join(columns + [" ".join(expand(words(c))) for c in columns]))
    fields["values"] = terms(" ; ".join(values))
    fields["text"] = terms(t.text)
    if dictionary_text:
        fields["dictionary"] = terms(dictionary_text[:_MAX_TEXT_CHARS])
    fields["form"] = terms(f"{geometry_words(profile)} {granularity_words(profile)}")
    phrase_sources += [fields["title"], terms(" ".join(columns))]
    for col in columns:
        phrase_sources.append(terms(col))

    phrases: set[tuple[str, str]] = set()
    for seq in phrase_sources:
        phrases |= bigrams(seq)
    verbatim = {" ".join(stem(w) for w in words(v)) for v in columns + values}
    labels = [name_terms] + [terms(t) for t in titles] + [terms(c) for c in columns]
    return FileDocument(
        path=profile.path,
        verbatim=verbatim,
        fields={k: set(v) for k, v in fields.items() if v},
        phrases=phrases,
        name_terms=name_terms,
        labels=[lab for lab in labels if lab],
        columns=columns,
        usable=profile.status == "ok",
    )


_MAX_YEAR_SPAN = 300


def _years_spanned(col: ColumnProfile, rows: list[dict]) -> list[str]:
    """Every year a year-like or date column covers, so "in 2001" finds the table with 2001.

    A question's years are often the only words that tell apart tables of the same
    subject (one covers 2001-2024, another only the last five years).
    """
    seen = [v for v in (col.minimum, col.maximum, *col.examples, *(r.get(col.name) for r in rows)) if v not in (None, "")]
    years = [int(m.group(1)) for v in seen for m in [YEAR_IN_NAME.search(str(v))] if m]
    named_for_time = bool(TIME_COLUMN_WORDS & set(words(col.name)))
    # a count column whose values happen to fall in YEAR_MIN..YEAR_MAX is not a calendar
    if len(years) < 2 or (not named_for_time and len(years) != len(seen)):
        return []
    lo, hi = min(years), max(years)
    if hi - lo > _MAX_YEAR_SPAN:
        return []
    return [str(y) for y in range(lo, hi + 1)]


def _looks_numeric(value: str) -> bool:
    s = value.strip().replace(",", "").replace("$", "").replace("%", "")
    try:
        float(s)
        return True
    except ValueError:
        return False
