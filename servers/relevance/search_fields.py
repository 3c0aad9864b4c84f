"""The texts of a file's profile that say what the file holds: its name, folders, titles,
notes, columns, values and leading prose (the search index's fields are made from them)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from lakeboard.schemas.profiles import ColumnProfile, FileProfile
from lakeboard.servers.relevance.tokens import words
from lakeboard.servers.time_coverage import YEAR_IN_NAME
from lakeboard.servers.time_vocabulary import TIME_COLUMN_WORDS

_MAX_VALUES_PER_COLUMN = 30
MAX_TEXT_CHARS = 4000  # of a document's prose, and of a description from dictionaries


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
    # what a file says of itself (sheet names, keys, notes); not how it is read (the engine)
    titles.extend(v for k, v in profile.attributes.items() if k != "engine")
    for a in profile.arrays:
        columns.append(a.name)
        # a compound dataset's fields are columns; a variable's long name says what it holds
        columns.extend(f.strip() for f in a.attributes.get("fields", "").split(",") if f.strip())
        notes.extend(a.descriptions)
    # Prose around tables (an HTML page's navigation, a workbook's notes sheet) is weak
    # evidence next to the tables themselves.
    text = (profile.text or "")[: MAX_TEXT_CHARS // (4 if profile.tables else 1)]
    return ProfileTexts(
        stem=p.name[: -len(p.suffix)] if p.suffix else p.name,
        folders=" ".join(p.parts[:-1]),
        titles=titles,
        notes=notes,
        columns=columns,
        values=values,
        text=text,
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
