"""A file's profile as fields of tokens, the documents of the lake's search index.

Each field is indexed on its own (BM25 per field), so that the relevance model can learn
how much a match in a file's name weighs against one in its values or its prose.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.relevance.abbreviations import expand
from lakeboard.servers.relevance.query_parsing import name_parts
from lakeboard.servers.relevance.search_fields import MAX_TEXT_CHARS, ProfileTexts, profile_texts
from lakeboard.servers.relevance.tokens import terms, words

FIELDS = ("name", "folder", "columns", "values", "titles", "description", "text")
# every field's tokens as one document: plain BM25, which a length-normalised whole-file score needs
ALL = "all"
INDEXED = (*FIELDS, ALL)


def field_tokens(profile: FileProfile, description: str = "", texts: ProfileTexts | None = None) -> dict[str, list[str]]:
    """Tokens per field. `description`: what dictionaries and READMEs say of this file; `texts`: its
    `profile_texts`, when the caller has them already."""
    t = texts or profile_texts(profile)
    suffix = PurePosixPath(profile.path).suffix.lstrip(".").lower()
    fields = {
        # the name's parts, its suffix ("the GRIB files") and the parts written together
        "name": name_parts(t.stem) + ([suffix] if suffix else []) + ["".join(words(t.stem))],
        "folder": name_parts(t.folders),
        "columns": terms(" ; ".join(t.columns + [" ".join(expand(words(c))) for c in t.columns])),
        "values": terms(" ; ".join(t.values)),
        "titles": terms(" ; ".join(t.titles + t.notes)),
        "description": terms(description[:MAX_TEXT_CHARS]),
        "text": terms(t.text),
    }
    fields[ALL] = [tok for name in FIELDS for tok in fields[name]]
    return fields


def card_text(profile: FileProfile, description: str = "", texts: ProfileTexts | None = None) -> str:
    """A short card a sentence embedding can read: name, folder, title, columns, description."""
    t = texts or profile_texts(profile)
    parts = [" ".join(words(t.stem)), " ".join(words(t.folders)), "; ".join(t.titles[:3]),
             ", ".join(dict.fromkeys(" ".join(words(c)) for c in t.columns[:40])), description[:300]]
    if not t.columns:
        parts.append(t.text[:300])
    return ". ".join(p for p in parts if p)
