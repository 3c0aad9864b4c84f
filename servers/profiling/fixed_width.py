"""Tables aligned with spaces (.txt/.dat exports, instrument logs): whitespace or fixed-width columns."""

from __future__ import annotations

import io
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lakeboard.schemas.profiles import FileProfile, TableProfile
from lakeboard.servers.profiling.column_stats import (STATS_ROWS, frame_fill_values, marker_shaped, missing_markers,
                                                       profile_frame, unique_names)
from lakeboard.servers.profiling.column_lists import described_columns
from lakeboard.servers.profiling.declarations import declared
from lakeboard.servers.profiling.fill_values import add_na_values, declared_fill_values
from lakeboard.servers.profiling.table_layout import TEXT, VALUE, cell_kind, units_like
from lakeboard.servers.profiling.text_sample import TextSample

_DIGIT = re.compile(r"\d")
_RULE = re.compile(r"^[\s\-=_+|:]*[\-=_]{3}[\s\-=_+|:]*$")
_DASHES = re.compile(r"[-=_]{3,}")


def _gaps(lines: list[str]) -> list[tuple[int, int]]:
    """Column spans from character positions that are blank in every line."""
    import numpy as np

    width = max(len(ln) for ln in lines)
    grid = np.frombuffer("".join(ln.ljust(width) for ln in lines).encode("latin-1", "replace"), dtype=np.uint8)
    grid = grid.reshape(len(lines), width)
    filled = ((grid != 32) & (grid != 9)).any(axis=0).tolist()
    spans: list[tuple[int, int]] = []
    start = None
    for j, f in enumerate(filled + [False]):
        if f and start is None:
            start = j
        elif not f and start is not None:
            spans.append((start, j))
            start = None
    return spans


def _aligned(block: list[str]) -> bool:
    """Cheap test before measuring columns: runs of spaces between fields, or a steady field count."""
    head = block[:100]
    if sum(1 for ln in head if _DIGIT.search(ln)) < 0.5 * len(head):
        return False  # a data table has numbers on most lines; prose does not
    if sum(1 for ln in head if "  " in ln.strip()) >= 0.5 * len(head):
        return True
    counts = Counter(len(ln.split()) for ln in head)
    modal, freq = counts.most_common(1)[0]
    return modal >= 2 and freq >= 0.9 * len(head)


def _table_lines(lines: list[str], start: int) -> list[int]:
    """Indices of the contiguous non-blank lines from `start` (a table ends at a blank line)."""
    out = []
    for i in range(start, min(len(lines), start + 5000)):
        if not lines[i].strip():
            if out:
                break
            continue
        out.append(i)
    return out


_COMMENT = ("#", "%")


_WORD_MARK = re.compile(r"^(?:[A-Z]{1,4}|[!*;]|//)$")  # PODAAC's "HDR", Fortran's "C", "!", "//"


def _marked_comments(lines: list[str]) -> list[str]:
    """`lines` with a file's own comment mark written as "#": a short word or sign that starts at
    least three lines at the top and no line below them ("HDR This file contains ..."), whatever
    reads the rows then reads those lines as it reads comments. Line numbers do not change, so
    neither does what the loader skips."""
    top = [ln.split(None, 1) for ln in lines[:400] if ln.strip()]
    mark = top[0][0] if top else ""
    run = next((k for k, parts in enumerate(top) if parts[0] != mark), len(top))
    if not _WORD_MARK.match(mark) or run < 3 or run == len(top) or any(p[0] == mark for p in top[run:]):
        return lines
    return ["#" + ln.lstrip()[len(mark):] if ln.split(None, 1)[:1] == [mark] else ln for ln in lines]


def _uncommented(line: str) -> list[str]:
    """A commented line's fields, its comment marks left out ("#YY  MM" -> ["YY", "MM"])."""
    return line.lstrip().lstrip("".join(_COMMENT)).split()


def _commented(line: str) -> bool:
    return line.lstrip().startswith(_COMMENT)


def _above_blanks(lines: list[str], i: int) -> int:
    """The first of the blank lines right above line i (i itself when there are none)."""
    while i > 0 and not lines[i - 1].strip():
        i -= 1
    return i


def _names_of(line: str, width: int) -> list[str] | None:
    """A comment line's names for a table of `width` columns: its words ("#YY MM DD"), or its parts
    between commas ("% Year, Annual Anomaly, Annual Unc."); None for another line. Words are names,
    not a sentence of as many words ("# run 7, calibrated", "# SOURCE: Observatory …"), when none
    is a number or ends with punctuation; a row of group labels ruled with dashes ("---- Solar
    Wind ----") is not the names."""
    cells = _uncommented(line)
    if len(cells) == width:
        if any(_DASHES.fullmatch(c) or cell_kind(c) != TEXT or c[-1] in ",.;:" for c in cells):
            return None
        if any(cells.count(c) > 1 for c in cells if len(c) >= 3 and c.isalpha() and c.islower()):
            return None  # a sentence repeats its words ("Monthly mean CO2 constructed from daily mean values")
        return cells
    parts = [" ".join(p.split()) for p in line.lstrip().lstrip("".join(_COMMENT)).split(",")]
    if len(parts) == width and all(p and len(p.split()) <= 4 and cell_kind(p) == TEXT for p in parts):
        return parts
    return None


def _commented_table(prof: FileProfile, sample: TextSample, lines: list[str], unnamed: bool = False) -> bool:
    """A whitespace table whose header is commented out (`#YY MM DD hh WDIR ...`), often with a
    row of units under it, also commented (`#yr mo dy hr degT ...`): station, buoy and instrument
    exports. The header gives the names, without its marks; a units row becomes a note."""
    n = min(len(lines), 400)
    # the first row under the comments (blank lines may part them)
    d = next((i for i in range(1, n) if lines[i].strip() and not lines[i].lstrip().startswith(_COMMENT)
              and _commented(lines[_above_blanks(lines, i) - 1])), None)
    if d is None:
        return False
    data = _table_lines(lines, d)
    width = len(lines[d].split())
    if width < 2 or len(data) < 2 or any(len(lines[i].split()) != width for i in data[:500]):
        return False
    last = _above_blanks(lines, d) - 1  # the last comment line
    above = last
    while above > 0 and _commented(lines[above - 1]):
        above -= 1
    named = {i: names for i in range(above, last + 1) if (names := _names_of(lines[i], width))}
    fitting = list(named)
    # the run of such lines nearest the rows: the names, then the units written under them
    # ("#YY MM DD" over "#yr mo dy"); a format line further up ("#iii iii fff") is a note
    k = len(fitting) - 1
    while k > 0 and fitting[k - 1] == fitting[k] - 1:
        k -= 1
    fitting = fitting[k:]
    body = [c for i in data[:40] for c in lines[i].split()]
    names = named[fitting[0]] if fitting else []
    comments = [" ".join(_uncommented(lines[i])) for i in range(above, last + 1)]
    described = None if fitting else described_columns([lines[i].lstrip().lstrip("".join(_COMMENT)) for i in range(above, last + 1)], width)
    if not fitting and not described and not (unnamed and sum(cell_kind(c) == VALUE for c in body) >= 0.9 * len(body)):
        # no names in the comments: only a block of numbers (a column of codes among them, as
        # SWPC's X-ray class "C1.2"), when nothing else reads it
        return False
    if not any(cell_kind(c) == VALUE for c in body):
        return False
    opts: dict[str, Any] = {"sep": r"\s+", "header": None, "skiprows": d, **_encoding_options(sample)}
    if names:
        opts["names"] = unique_names(names)
        notes = [" ".join(_uncommented(lines[i])) for i in range(fitting[0]) if _uncommented(lines[i])][:20]
        notes += ["units: " + ", ".join(f"{a} {u}" for a, u in zip(names, _uncommented(lines[i]))) for i in fitting[1:3]]
    else:  # the comment block (a data centre's notice, the columns described in words) is the table's notes
        notes = [c for c in comments if c][:30]
        if described:
            opts["names"] = unique_names(described)
    trailing = [ln for ln in lines[data[-1] + 1:] if ln.strip()]
    n_rows = len(data)
    if trailing and sample.complete:
        opts["nrows"] = n_rows
        notes += [" ".join(ln.split()) for ln in trailing][:20]
    markers = _missing_markers([lines[i].split() for i in data[:STATS_ROWS]], width)
    missing = [v for i in range(above, last + 1) for v in declared_fill_values(lines[i])] + declared().everywhere
    if markers or missing:
        opts["na_values"] = list(dict.fromkeys(missing + markers))

    df = _first_rows(lines, opts, fixed=False)
    if df is None:
        return False
    tp = TableProfile(header_row=fitting[0] if fitting else None, delimiter="whitespace", options=opts, notes=notes)
    what = ("header commented out" if fitting else "its columns described in the comments above it" if described
            else "under a block of comments, no column names")
    _keep(prof, sample, tp, df, n_rows, [lines[i] for i in data], f"whitespace-separated text table, {what}")
    return True


def _words_over_values(line: str, below: str) -> bool:
    """A line of words only (units a parser may not know: "dd-mm-yyyy hh:mm:ss.ms  nT  km/s")
    under the names and over rows that hold numbers."""
    return (not any(cell_kind(c) == VALUE for c in line.split())
            and sum(cell_kind(c) == VALUE for c in below.split()) >= len(below.split()) / 2)


def _with_units(header: str, units: str, spans: list[tuple[int, int]] | None) -> list[str]:
    """The names of `header`'s columns (cut at `spans`, else at its spaces), each joined with the
    unit written under it: the one that overlaps it most, else the nearest."""
    ranges = spans or [(m.start(), m.end()) for m in re.finditer(r"\S+", header)]
    names = [header[a:b].strip() for a, b in ranges]
    for m in re.finditer(r"\S+", units):
        k = max(range(len(ranges)), key=lambda k: _closeness(ranges[k], (m.start(), m.end())))
        names[k] = f"{names[k]} {m.group()}".strip()
    return unique_names(names)


def _closeness(column: tuple[int, int], text: tuple[int, int]) -> tuple[int, float]:
    """How much of `text` lies in `column`'s characters, then how near their middles are."""
    (a, b), (c, d) = column, text
    return max(0, min(b, d) - max(a, c)), -abs((a + b) - (c + d)) / 2


def _encoding_options(sample: TextSample) -> dict[str, Any]:
    """What a loader needs to decompress and decode the file as the sample was."""
    opts: dict[str, Any] = {}
    if sample.compression:
        opts["compression"] = sample.compression
    if sample.encoding not in ("utf-8", "ascii"):
        opts["encoding"] = sample.encoding
    if not sample.complete:
        opts["encoding_errors"] = "replace"
    return opts


def _first_rows(lines: list[str], opts: dict[str, Any], fixed: bool) -> Any:
    """The table's first rows as the loader's options read them (the lines are text already); None
    when they do not read."""
    import pandas as pd

    kw = {k: v for k, v in opts.items() if k not in ("compression", "encoding", "encoding_errors")}
    kw["nrows"] = min(kw.get("nrows", STATS_ROWS), STATS_ROWS)
    text = io.StringIO("\n".join(lines) + "\n")
    try:
        return pd.read_fwf(text, **kw) if fixed else pd.read_csv(text, **kw)
    except Exception:  # noqa: BLE001 - a failed guess means: not this kind of table
        return None


def _keep(prof: FileProfile, sample: TextSample, tp: TableProfile, df: Any, n_rows: int, data: list[str],
          what: str) -> None:
    """`tp` as the file's table: its rows (exact when the sample is the whole file, else estimated
    from the bytes per data line), its columns from `df`, and the summary."""
    if sample.complete:
        tp.n_rows, tp.n_rows_exact = n_rows, True
    else:
        seen = sum(1 for ln in data if ln.strip())
        chars = sum(len(ln) + 1 for ln in data)
        tp.n_rows, tp.n_rows_exact = int(sample.size / max(1.0, chars / max(1, seen))), False
    fills, notes = frame_fill_values(df)
    if fills:  # sentinels far outside their column's values: read as missing, as the loader reads them
        add_na_values(tp.options, list(df.columns), [], fills)
        df = df.copy()
        for label, values in fills.items():
            df[label] = df[label].mask(df[label].isin([float(v) for v in values]))
    tp.columns, tp.sample_rows = profile_frame(df)
    tp.notes += notes
    prof.kind, prof.format, prof.tables = "table", "fwf", [tp]
    rows = f"{tp.n_rows}" if tp.n_rows_exact else f"~{tp.n_rows}"
    cols = ", ".join(c.name for c in tp.columns[:8])
    prof.summary = f"{what}: {rows} rows x {len(tp.columns)} columns ({cols})"


def _missing_markers(rows: list[list[str]], width: int) -> list[str]:
    """Tokens that stand for a missing number in the columns that hold numbers ("MM", "NaN", "-").
    A marker-shaped token that is all of some column and sits among numbers in others marks gaps
    at any share: NDBC's realtime files write "MM" for every sensor that did not report, most
    rows of the wave columns and all of an absent sensor's."""
    out: list[str] = []
    counted: list[tuple[int, Counter[str]]] = []
    for j in range(width):
        cells = [r[j] for r in rows if len(r) == width]
        numbers = [c for c in cells if cell_kind(c) == VALUE and _DIGIT.search(c)]
        tokens = Counter(c for c in cells if not (cell_kind(c) == VALUE and _DIGIT.search(c)))
        out += missing_markers(len(numbers), len(set(numbers)), tokens)
        counted.append((len(numbers), tokens))
    whole = {t for n, tokens in counted if not n and len(tokens) == 1 for t in tokens if marker_shaped(t)}
    out += [t for n, tokens in counted if n and tokens and set(tokens) <= whole for t in tokens]
    return list(dict.fromkeys(out))


def _declared_table(prof: FileProfile, sample: TextSample, lines: list[str]) -> bool:
    """A table read by the characters and names a document beside it declares for each column
    (a CDS ReadMe's byte-by-byte description, a layout of positions): every non-blank line is a
    record."""
    said = declared()
    if not said.spans or len(said.spans) != len(said.columns):
        return False
    data = [i for i, ln in enumerate(lines) if ln.strip()]
    widths = sorted(len(lines[i].rstrip()) for i in data)
    # lines longer than the layout, or most too short to hold its first column: the layout is another file's
    if not data or widths[-1] > said.spans[-1][1] + 2 or widths[len(widths) // 5] < said.spans[0][1]:
        return False
    opts: dict[str, Any] = {"colspecs": said.spans, "header": None, "names": unique_names(said.columns),
                            **_encoding_options(sample)}
    if said.everywhere:
        opts["na_values"] = list(said.everywhere)
    df = _first_rows([lines[i] for i in data], opts, fixed=True)  # read_fwf skips blank lines
    if df is None or df.empty:
        return False
    tp = TableProfile(header_row=None, delimiter="fixed-width", options=opts, notes=[said.column_note][: bool(said.column_note)])
    # characters between two declared columns that hold text on most lines: a part the layout leaves out
    # (an elided run of repeated columns, "VALUE2 ... VALUE31"), which the loader does not read
    for (_, end), (start, _) in zip(said.spans, said.spans[1:]):
        if start - end > 1 and sum(1 for i in data if lines[i][end:start].strip()) > len(data) / 2:
            tp.notes.append(f"characters {end + 1}-{start} are in no column the document declares: the loader "
                            "leaves them out (widen colspecs and names to read them)")
    _keep(prof, sample, tp, df, len(data), [lines[i] for i in data], "fixed-width text table, columns as documented")
    return True


_IAGA = re.compile(r"^\s*Format\s+IAGA-2002\b", re.IGNORECASE)
_IAGA_MISSING = ["99999.00", "88888.00"]  # the standard's marks: missing, and not recorded


def _iaga_table(prof: FileProfile, sample: TextSample, lines: list[str]) -> bool:
    """IAGA-2002, the exchange format of geomagnetic observatories (INTERMAGNET): header records
    `Station Name   Eskdalemuir  |`, comment records ` # ... |`, then the names (`DATE TIME DOY
    ESKX ... |`), then the data, one minute or second a line."""
    if not lines or not _IAGA.match(lines[0]):
        return False
    h = next((i for i in range(1, min(len(lines), 200)) if lines[i].rstrip().endswith("|")
              and lines[i].split()[0].upper() == "DATE"), None)
    if h is None or h + 1 >= len(lines):
        return False
    names = [c for c in lines[h].split() if c != "|"]
    data = _table_lines(lines, h + 1)
    opts: dict[str, Any] = {"sep": r"\s+", "header": None, "names": unique_names(names), "skiprows": h + 1,
                            "na_values": list(_IAGA_MISSING), **_encoding_options(sample)}
    df = _first_rows(lines, opts, fixed=False)
    if df is None or df.empty:
        return False
    records = [re.split(r"\s{2,}", ln.strip().rstrip("|").strip(), maxsplit=1) for ln in lines[1:h] if ln.strip()]
    notes = [": ".join(r) if len(r) == 2 and not r[0].startswith("#") else " ".join(r).lstrip("# ") for r in records]
    station = next((r[1] for r in records if len(r) == 2 and r[0].lower() == "station name"), None)
    tp = TableProfile(header_row=h, delimiter="whitespace", options=opts, notes=notes[:20],
                      title=f"IAGA-2002 geomagnetic data: {station}" if station else "IAGA-2002 geomagnetic data")
    _keep(prof, sample, tp, df, len(data), [lines[i] for i in data], "IAGA-2002 geomagnetic data")
    return True


MAX_TABLES = 10  # space-aligned tables of one file, one after another


def profile_lines(path: Path, prof: FileProfile, sample: TextSample, lines: list[str]) -> bool:
    """Profile `lines` as space-aligned tables (one, or several one after another, each under its
    title and header); False when they hold none."""
    lines = _marked_comments(lines)
    if _declared_table(prof, sample, lines) or _iaga_table(prof, sample, lines) or _commented_table(prof, sample, lines):
        return True
    parts: list[_Part] = []
    found = _find_aligned(lines, 0)
    while found is not None and len(parts) < MAX_TABLES:
        part = _aligned_part(lines, sample, *found, above=parts[-1].last + 1 if parts else 0)
        if part is None:
            break
        parts.append(part)
        found = _find_aligned(lines, part.last + 1)
    if not parts:
        return _commented_table(prof, sample, lines, unnamed=True)
    if len(parts) == 1 or not sample.complete:  # tables below a head's first are not known to end
        return _keep_one(prof, sample, lines, parts[0])
    for k, part in enumerate(parts):  # each read down to its own last row
        part.table.options["nrows"] = part.n_rows
        part.table.name = _title_of(part.table.notes) or f"table {k + 1}"
    trailing = [ln for ln in lines[parts[-1].last + 1:] if ln.strip()]
    parts[-1].table.notes += [" ".join(ln.split()) for ln in trailing][:20]
    for part in parts:
        _with_column_note(part.table)
        _keep(prof, sample, part.table, part.frame, part.n_rows, lines[part.data_start:part.last + 1], part.what)
    prof.tables = [part.table for part in parts]
    prof.summary = f"{len(parts)} space-aligned text tables: " + "; ".join(
        f"{p.table.name} ({p.n_rows} rows x {len(p.table.columns)} columns)" for p in parts)
    return True


def _title_of(notes: list[str]) -> str | None:
    return next((n for n in reversed(notes) if 3 <= len(n) <= 100 and any(ch.isalpha() for ch in n)), None)


@dataclass
class _Part:
    table: TableProfile
    frame: Any  # its first rows, as the loader's options read them
    n_rows: int
    data_start: int
    last: int  # its last line (a table ends at a blank line)
    clean: bool  # whitespace-separated (else fixed-width)

    @property
    def what(self) -> str:
        return f"{'whitespace-separated' if self.clean else 'fixed-width'} text table"


def _find_aligned(lines: list[str], start: int) -> tuple[int, list[int], list[tuple[int, int]] | None] | None:
    """The first space-aligned run of lines at or after `start`: (its first line, its lines, its
    column spans, None when every line splits into as many fields)."""
    # Candidate starts: the first lines of the first runs of non-blank lines, and a few lines
    # into each run (title lines directly above a table).
    starts: list[int] = []
    i, n = start, min(len(lines), start + 400)
    while i < n and len(starts) < 16:
        if not lines[i].strip():
            i += 1
            continue
        run = _table_lines(lines, i)
        starts += run[:4]
        # a run that opens with comments (CDAWeb's listings: 30 '#' lines, then the names and
        # the rows, no blank line between): its first lines past them too
        if lines[run[0]].lstrip().startswith(_COMMENT):
            starts += [k for k in run[4:] if not lines[k].lstrip().startswith(_COMMENT)][:4]
        i = run[-1] + 1
    for k, first in enumerate(starts):
        if lines[first].lstrip().startswith(_COMMENT):
            continue  # a comment is no header (a commented header is read above) and no data
        if _RULE.match(lines[first]):
            continue  # a rule over the rows (MPCORB's, its names above over a blank line): no gaps to cut at
        idx = _table_lines(lines, first)
        if len(idx) < 5:
            continue
        block = [lines[i] for i in idx[:500]]
        if sum(map(len, block)) / len(block) > 400 or not _aligned(block):
            continue
        if len(fields := {len(ln.split()) for ln in block}) == 1 and min(fields) >= 2:
            return first, idx, None  # every line splits into as many fields, aligned or not
        spans = _gaps(block)
        # Real columns hold something on (nearly) every line; gaps that line up by chance in prose do not.
        filled = (sum(1 for ln in block if ln[a:b].strip()) >= 0.8 * len(block) for a, b in spans)
        if len(spans) >= 2 and all(filled):
            # lines of as many fields from here or a start below in this run, over a footer, are read by
            # whitespace: a range line over the rows ("1870 2023"), taken for a row, would join a
            # column's gap and merge the columns either side of it
            even = ((s, e) for s in starts[k:] if s in idx and (e := _even_lines(lines, idx[idx.index(s):])))
            start, rows = next(even, (first, None))
            return (start, rows, None) if rows is not None else (first, idx, spans)
    return None


def _even_lines(lines: list[str], idx: list[int]) -> list[int] | None:
    """The lines of `idx` from its first that split into as many fields (two or more), when they are
    most of them (four in five) and those after them have fewer than half as many (a footer of
    notes and sources, not rows with a few cells left blank); else None."""
    width = len(lines[idx[0]].split())
    k = next((k for k, i in enumerate(idx) if len(lines[i].split()) != width), len(idx))
    if width < 2 or k < 5 or k < 0.8 * len(idx) or k == len(idx):
        return None
    return idx[:k] if all(len(lines[i].split()) < width / 2 for i in idx[k:]) else None


def _aligned_part(lines: list[str], sample: TextSample, first: int, idx: list[int],
                  spans: list[tuple[int, int]] | None, above: int) -> _Part | None:
    """The table of the aligned lines `idx` from `first`; `above`: where the lines over it (its
    title and notes) begin. None when they hold no values (prose or a list)."""
    last = idx[-1]
    head_cells = lines[first].split()
    head_is_text = sum(cell_kind(c) == TEXT for c in head_cells) > len(head_cells) / 2
    body = [lines[i] for i in idx[1:40]] if head_is_text else [lines[i] for i in idx[:40]]
    if not any(cell_kind(c) == VALUE for ln in body for c in ln.split()):
        return None  # words in columns, no values: prose or a list, not a data table
    header = first if head_is_text else None
    data_start = first + 1 if header is not None else first
    # A rule under the header ("-----  ---") is neither names nor data: the loader skips it.
    rule = data_start if header is not None and data_start <= last and _RULE.match(lines[data_start]) else None
    if rule is not None:
        data_start += 1
    # A row of units under the names ("        (mm)    (C)"): each joins the name it stands under.
    units = data_start if header is not None and rule is None and data_start < last and (
        units_like(lines[data_start].split()) or _words_over_values(lines[data_start], lines[data_start + 1])) else None
    if units is not None:
        data_start += 1
    n_cols = len(spans) if spans is not None else len(head_cells)
    clean = spans is None or all(len(lines[i].split()) == n_cols for i in idx[:500] if i not in (rule, units))
    opts = _encoding_options(sample)
    skip = header if header is not None else data_start
    if clean:
        opts["sep"] = r"\s+"
    else:
        opts["colspecs"] = [list(sp) for sp in spans]
    if units is not None:
        opts.update(header=None, skiprows=data_start, names=_with_units(lines[first], lines[units], None if clean else spans))
    elif rule is not None:
        opts["skiprows"] = [*range(skip), rule]
    elif skip:
        opts["skiprows"] = skip
    if header is None:
        opts["header"] = None
        named = declared().columns
        if len(named) == n_cols:  # a document beside the file names its columns (`column_lists`)
            opts["names"] = unique_names(named)
    # Missing values a title line declares ("missing values are coded -99.9"), or the lake's documents.
    missing = [v for ln in lines[above:first] for v in declared_fill_values(ln)] + declared().everywhere
    if missing:
        opts["na_values"] = list(dict.fromkeys(missing))
    n_rows = sum(1 for ln in lines[data_start : last + 1] if ln.strip())
    probe = dict(opts, nrows=n_rows)  # the part's own rows (a table below it is another's)
    df = _first_rows(lines, probe, fixed=not clean)
    if df is None or df.empty or df.shape[1] < 2:
        return None
    tp = TableProfile(header_row=header, delimiter="whitespace" if clean else "fixed-width", options=opts)
    tp.notes = [" ".join(ln.split()) for ln in lines[above:skip] if ln.strip()][:20]
    return _Part(tp, df, n_rows, data_start, last, clean)


def _with_column_note(tp: TableProfile) -> None:
    if "names" in tp.options and declared().column_note:
        tp.notes.append(declared().column_note)


def _keep_one(prof: FileProfile, sample: TextSample, lines: list[str], part: _Part) -> bool:
    """The file's one aligned table, with the lines under it: up to 20 are notes (the loader stops
    above them); more are taken for rows of the table. False when it does not read so then."""
    tp, n_rows, df = part.table, part.n_rows, part.frame
    trailing = [ln for ln in lines[part.last + 1 :] if ln.strip()]
    if trailing and sample.complete and len(trailing) <= 20:
        tp.options["nrows"] = n_rows
        tp.notes += [" ".join(ln.split()) for ln in trailing][:20]
    elif trailing and sample.complete:
        n_rows = sum(1 for ln in lines[part.data_start:] if ln.strip())
    if trailing and "nrows" not in tp.options:
        # the loader reads on past the blank line under the part: its first rows as the loader reads them
        df = _first_rows(lines, tp.options, fixed=not part.clean)
        if df is None or df.empty or df.shape[1] < 2:
            return False
    _with_column_note(tp)
    _keep(prof, sample, tp, df, n_rows, lines[part.data_start:], part.what)
    return True
