"""Column lists that a document beside a headerless table gives: the names its data leaves out.

Three conventions are read, all common where data is written without a header line:
- a numbered list of the items, one per line, often with a Fortran format (`4 Scalar B, nT  F6.1`,
  `Column 2: Temperature`), as OMNIWeb's `.fmt` files and many READMEs write it;
- a layout of names and character positions (`LATITUDE   13-20   Real`), as fixed-width
  exports are documented;
- the CDS ReadMe standard of astronomical catalogues: "Byte-by-byte Description of file: t1.dat",
  then a row per column (`16- 17  I2  h  RAh  Right ascension`), which also gives each column's bytes.
Which document goes with which file is decided by `column_declarations`, once the lake is profiled.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from lakeboard.common.bounded_reads import FileRefused
from lakeboard.common.file_names import README_NAMES
from lakeboard.common.lake_files import open_lake_file
from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.profiling.text_sample import COMPRESSIONS

_MAX_NAME_CHARS = 60
_MAX_NAME_WORDS = 8  # a list of steps or sentences is not a list of names
_MAX_GAP_LINES = 5  # lines of explanation between two items of one list
_HEADING_LINES = 5  # lines above a list that may name the file it describes

_ITEM = re.compile(
    r"^\s*(?:(?:col(?:umn)?|field|item|var(?:iable)?)\s*)?#?(?P<n>\d{1,3})\s*[.):=\-–]?\s+(?P<rest>\S.*)$",
    re.IGNORECASE,
)
_FORTRAN = re.compile(r"^\(?[AIFEDGX]\d+(?:\.\d+)?\)?,?$", re.IGNORECASE)
_CDS_HEAD = re.compile(r"^\s*Byte-by-byte\s+Description\s+of\s+file:?\s*(?P<files>.*)$", re.IGNORECASE)
_CDS_ROW = re.compile(
    r"^\s*(?P<a>\d+)\s*(?:-\s*(?P<b>\d+))?\s+(?P<fmt>[AIFE]\d+(?:\.\d+)?)\s+(?P<units>\S+)\s+(?P<label>\S+)\s*(?P<expl>.*)$"
)
_RULE = re.compile(r"^\s*[-=]{10,}\s*$")
_POSITION = re.compile(r"^\s*(?P<name>[^\W\d].*?)\s+(?P<a>\d{1,4})\s*-\s*(?P<b>\d{1,4})(?:\s+\S.*)?\s*$")


@dataclass
class ColumnList:
    names: list[str]
    spans: list[list[int]] = field(default_factory=list)  # [start, end) of each column's characters, when given
    note: str = ""  # what the document says of each column (units, explanations), for the table's notes
    source: str = ""  # the document that gives them (`column_declarations`)


def _name(rest: str) -> str | None:
    """The item's name: the text before a run of spaces, a tab or a description's dash or colon, its
    Fortran format left out; None for text too long to be a name."""
    name = re.split(r"\s{2,}|\t", rest.strip())[0]
    name = re.split(r"\s+[-–:]\s+|:\s", name)[0].strip()
    words = name.split()
    if len(words) > 1 and _FORTRAN.match(words[-1]):
        name = " ".join(words[:-1])
    if (len(name) > _MAX_NAME_CHARS or len(name.split()) > _MAX_NAME_WORDS or not re.search(r"[^\W\d_]", name)
            or re.match(r"[-+.\d]", name)):
        return None  # a sentence, or a row of numbers (a table's line), is no name
    return name


def described_columns(lines: list[str], width: int) -> list[str] | None:
    """Names for a table of `width` columns from its own comment block, when the block describes
    them as items numbered 1 to `width` ("1 altimeter type 0=dual-frequency", "6 GMSL (GIA not
    applied) variation (mm) with respect to ..."): each item's name, else its description cut at
    a word within `_MAX_NAME_CHARS` (the whole description stays in the table's notes)."""
    names: list[str] = []
    for line in lines:
        m = _ITEM.match(line)
        if not m or int(m.group("n")) != len(names) + 1:
            continue
        rest = m.group("rest").strip()
        name = _name(rest)
        if name is None:
            cut = re.split(r"\s{2,}|\t", rest)[0]
            while len(cut) > _MAX_NAME_CHARS and " " in cut:
                cut = cut.rsplit(" ", 1)[0]
            if cut.count("(") > cut.count(")"):  # not in the middle of a bracket ("GMSL (GIA not")
                cut = cut[: cut.rfind("(")].rstrip()
            name = cut if len(cut) <= _MAX_NAME_CHARS and re.search(r"[^\W\d_]", cut) else None
        if name is None:
            return None
        names.append(name)
    return names if len(names) == width else None


def numbered_lists(text: str) -> list[tuple[str, ColumnList]]:
    """Each list of items numbered 1, 2 ... N (N >= 2) in `text`, with the lines above it (its heading).

    Lines of explanation may come between items; a list ends at the next number 1, after more than a
    few other lines, or at an item whose text is not a name.
    """
    lines = text.splitlines()
    out: list[tuple[str, ColumnList]] = []
    names: list[str] = []
    start = gap = 0
    last_item = -1  # the line of the current list's last item
    last_end = 0  # the line after the last item of the list kept before

    def close() -> None:
        nonlocal names, last_end
        if len(names) >= 2:
            heading = "\n".join(ln for ln in lines[max(last_end, start - _HEADING_LINES):start] if ln.strip())
            out.append((heading, ColumnList(names)))
            last_end = last_item + 1
        names = []

    for i, line in enumerate(lines):
        m = _ITEM.match(line)
        n = int(m.group("n")) if m else 0
        name = _name(m.group("rest")) if m else None
        if m and name and n == len(names) + 1 and names:
            names.append(name)
            gap, last_item = 0, i
            continue
        if m and name and n == 1:
            close()
            names, start, gap, last_item = [name], i, 0, i
            continue
        if names:
            gap += 1
            if gap > _MAX_GAP_LINES or (m and n == len(names) + 1):
                close()
    close()
    return out


def position_lists(text: str) -> list[tuple[str, ColumnList]]:
    """Each table of a fixed-width layout in `text` (`LATITUDE   13-20   Real`: a name, then the
    columns of characters it takes, 1-based and inclusive), with the lines above it (its heading).

    The ranges go left to right without overlapping; rules, blank lines and an elision ("...") may
    come between rows.
    """
    lines = text.splitlines()
    out: list[tuple[str, ColumnList]] = []
    names: list[str] = []
    spans: list[list[int]] = []
    start = gap = 0
    last_end = 0

    def close(end: int) -> None:
        nonlocal names, spans, last_end
        if len(names) >= 3:
            heading = "\n".join(ln for ln in lines[max(last_end, start - _HEADING_LINES - 3):start] if ln.strip())
            out.append((heading, ColumnList(names, spans)))
            last_end = end
        names, spans = [], []

    for i, line in enumerate(lines):
        m = _POSITION.match(line)
        name = _name(m.group("name")) if m else None
        a, b = (int(m.group("a")), int(m.group("b"))) if m else (0, 0)
        if name and 1 <= a <= b:
            if spans and a <= spans[-1][1]:  # overlaps or goes back: another table
                close(i)
            if not names:
                start = i
            names.append(name)
            spans.append([a - 1, b])
            gap = 0
        elif names:
            gap += 1
            if gap > 2:
                close(i)
    close(len(lines))
    return out


def cds_descriptions(text: str) -> dict[str, ColumnList]:
    """File name (lower case) -> its columns, from a CDS ReadMe's byte-by-byte descriptions."""
    out: dict[str, ColumnList] = {}
    if "byte-by-byte" not in text.lower():
        return out
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        head = _CDS_HEAD.match(lines[i])
        i += 1
        if not head:
            continue
        files = [f.strip(",;").lower() for f in head.group("files").split() if f.strip(",;")]
        names: list[str] = []
        spans: list[list[int]] = []
        said: list[str] = []
        while i < len(lines) and not _CDS_HEAD.match(lines[i]):
            row = _CDS_ROW.match(lines[i])
            if row:
                a = int(row.group("a"))
                b = int(row.group("b") or a)
                names.append(row.group("label"))
                spans.append([a - 1, b])
                units = "" if row.group("units").strip("-") == "" else f" ({row.group('units')})"
                expl = row.group("expl").strip()
                said.append(f"{row.group('label')}{units}: {expl}" if expl else f"{row.group('label')}{units}")
            elif names and _RULE.match(lines[i]):
                break
            i += 1
        if names and all(b > a for a, b in spans):
            for f in files:
                out[f] = ColumnList(names, spans, "columns: " + "; ".join(said))
    return out


# -- the lake-level pass: which document names which table's columns ---------------------------------
_DOC_STEMS = (*README_NAMES, "format")
_TABLE_FORMATS = ("csv", "tsv", "fwf")
_DOC_BYTES = 1 << 20
_COMPRESSED = tuple(suffix for _, _, suffixes in COMPRESSIONS for suffix in suffixes)


def _headerless_width(prof: FileProfile) -> int | None:
    """The column count of a profile's one table read without names, else None."""
    if prof.status != "ok" or prof.format not in _TABLE_FORMATS or len(prof.tables) != 1:
        return None
    opts = prof.tables[0].options
    if opts.get("header", 0) is not None or "names" in opts or "usecols" in opts:
        return None
    return len(prof.tables[0].columns)


def _bare_name(name: str) -> str:
    """A file's name without a compression suffix, lower case (`t1.dat.gz` -> `t1.dat`)."""
    name = name.lower()
    for ext in _COMPRESSED:
        name = name.removesuffix(ext)
    return name


# suffixes too common to say which files a document describes
_GENERIC_SUFFIXES = frozenset({".txt", ".text", ".csv", ".tsv", ".dat", ".asc", ".md", ".log"})


def _names_kind(text: str, name: str) -> bool:
    """A document of the file's folder names the file's kind by its suffix ('FORMAT OF DATA FILES
    (".dly" FILES)'), one no other kind of file shares."""
    suffix = "." + name.rpartition(".")[2] if "." in name else ""
    return bool(suffix) and suffix not in _GENERIC_SUFFIXES and re.search(
        rf"(?<![\w.]){re.escape(suffix)}(?!\w)", text.lower()) is not None


def _folder(path: str) -> str:
    return path.rpartition("/")[0]


def _stem(path: str) -> str:
    """A file's name without its folder, compression suffix and extension, lower case."""
    return _bare_name(path.rpartition("/")[2]).rsplit(".", 1)[0]


def column_declarations(profiles: list[FileProfile], root: Path) -> dict[str, ColumnList]:
    """Data file path -> the column names a document beside it declares.

    - A CDS ReadMe (a README in the file's folder or above it) names the file in a byte-by-byte
      description: the file is read by those bytes and names, whatever its profile made of it.
    - A text or fixed-width file is read by a layout of names and character positions
      (`position_lists`) in a document of the same name, or in a README whose lines above it
      name the file.
    - A headerless table takes the names of a numbered list with as many items as it has columns,
      in a document of the same name (`omni2.lst` and `omni2.fmt`, `data.dat` and
      `data_format.txt`), or in a README of its folder or above whose lines over the list name the
      file; or in a README of its own folder when no other headerless table there has as many columns.
    """
    docs = _Documents(profiles, root)
    out: dict[str, ColumnList] = {}
    widths: dict[tuple[str, int], int] = {}  # (folder, width) -> how many headerless tables
    for prof in profiles:
        if (w := _headerless_width(prof)) is not None:
            widths[(_folder(prof.path), w)] = widths.get((_folder(prof.path), w), 0) + 1
    for prof in profiles:
        if prof.status != "ok" or prof.format not in (*_TABLE_FORMATS, "text"):
            continue
        name = _bare_name(prof.path.rpartition("/")[2])
        readmes = docs.readmes_over(prof.path)
        cds = next(((d, c) for d in readmes for f, c in docs.cds(d).items() if f == name), None)
        if cds is not None:
            doc, cols = cds
            out[prof.path] = replace(cols, note=f"{cols.note} (from {doc})", source=doc)
            continue
        width = _headerless_width(prof)
        if width is None and prof.format not in ("fwf", "text"):
            continue
        beside = docs.named_like(prof.path)
        if prof.format in ("fwf", "text"):  # fields that touch read as text; a layout gives their characters
            layout = next(((d, c) for d in beside + readmes for h, c in docs.positions(d)
                           if d in beside or name in h.lower()
                           or (_folder(d) == _folder(prof.path) and _names_kind(docs.text(d), name))), None)
            if layout is not None:
                doc, cols = layout
                out[prof.path] = replace(cols, note=f"columns as {doc} lays them out", source=doc)
                continue
        if width is None:
            continue
        alone = widths[(_folder(prof.path), width)] == 1
        for doc in beside + readmes:
            own = doc in beside or (alone and _folder(doc) == _folder(prof.path))
            chosen = next((c for h, c in docs.lists(doc) if len(c.names) == width and (own or name in h.lower())), None)
            if chosen is not None:
                out[prof.path] = replace(chosen, note=f"column names as {doc} lists them", source=doc)
                break
    return out


class _Documents:
    """The lake's small files that may describe others, found by folder and name; each read and
    parsed once, when first asked for."""

    def __init__(self, profiles: list[FileProfile], root: Path) -> None:
        self.root = root
        self.readmes: dict[str, list[str]] = {}
        self.stems: dict[str, list[tuple[str, str, bool]]] = {}  # folder -> sorted (stem, path, a table)
        for p in profiles:
            if p.status != "ok" or (p.size_bytes or 0) > _DOC_BYTES:
                continue
            stem = _stem(p.path)
            self.stems.setdefault(_folder(p.path), []).append((stem, p.path, p.kind == "table"))
            if stem.startswith(_DOC_STEMS):
                self.readmes.setdefault(_folder(p.path), []).append(p.path)
        for entries in self.stems.values():
            entries.sort()
        self._texts: dict[str, str] = {}
        self._parsed: dict[tuple[Callable, str], Any] = {}  # (parser, document) -> what it reads there
        self._over: dict[str, list[str]] = {}  # folder -> the READMEs in it and above it

    def readmes_over(self, path: str) -> list[str]:
        folder = _folder(path)
        if folder not in self._over:
            found, f = [], folder
            while True:
                found += self.readmes.get(f, [])
                if not f:
                    break
                f = _folder(f)
            self._over[folder] = found
        return [d for d in self._over[folder] if d != path]

    def named_like(self, path: str) -> list[str]:
        """The other files of `path`'s folder of the same name without extension (`x.fmt` for
        `x.lst`), and the documents whose names add a part to it (`x_format.txt`; not `x2.csv`)."""
        stem = _stem(path)
        entries = self.stems.get(_folder(path), [])
        out = []
        for s, p, table in entries[bisect.bisect_left(entries, (stem, "", False)):]:
            if not s.startswith(stem):
                break
            if p != path and (s == stem or (s[len(stem)] in "_-. " and not table)):
                out.append(p)
        return out

    def text(self, path: str) -> str:
        """The document's first _DOC_BYTES, opened by the lake's rules (a link that leaves the lake,
        or that replaced the file since the walk, is not followed); "" when it cannot be read."""
        if path not in self._texts:
            try:
                with open(open_lake_file(self.root, path), "rb") as f:
                    self._texts[path] = f.read(_DOC_BYTES).decode("utf-8", "replace")
            except (OSError, FileRefused):
                self._texts[path] = ""
        return self._texts[path]

    def _read(self, parser: Callable[[str], Any], path: str) -> Any:
        if (parser, path) not in self._parsed:
            self._parsed[parser, path] = parser(self.text(path))
        return self._parsed[parser, path]

    def cds(self, path: str) -> dict[str, ColumnList]:
        return self._read(cds_descriptions, path)

    def positions(self, path: str) -> list[tuple[str, ColumnList]]:
        return self._read(position_lists, path)

    def lists(self, path: str) -> list[tuple[str, ColumnList]]:
        return self._read(numbered_lists, path)
