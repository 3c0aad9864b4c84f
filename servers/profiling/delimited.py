"""Delimited text (CSV, TSV, ; or | separated): what it takes to load it correctly.

Finds the delimiter and encoding, the header row below title/note lines, units or
spanning header rows, several tables stacked in one file, footnotes after the data,
thousands separators and missing-value markers. Reads a bounded head (and the tail of
big files); row counts of big files are estimated from bytes.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import re
from bisect import bisect_left
from collections import Counter
from itertools import zip_longest
from pathlib import Path
from typing import Any

from lakeboard.schemas.profiles import FileProfile, TableProfile
from lakeboard.servers.profiling.column_stats import (
    HEAD_ROWS,
    MAX_COLUMNS,
    PANDAS_NA,
    STATS_ROWS,
    censored_note,
    fill_values_of,
    is_number_text,
    missing_markers,
    numbers_and_tokens,
    parse_text_column,
    profile_values,
    spread_indices,
    string_dtype,
    table_markers,
    text_markers,
    unique_names,
    value_text,
    without_numbers,
    zero_padded_codes,
)
from lakeboard.servers.profiling import (fixed_width, ghcn_daily, log_lines, orbital_elements, sdmx_tsv, sequences,
                                         typed_records)
from lakeboard.servers.profiling.declarations import declared
from lakeboard.servers.profiling.fill_values import add_na_values, declared_fill_values
from lakeboard.servers.profiling.signed_numbers import signed_column, signed_dtype
from lakeboard.servers.profiling.detect import Detection
from lakeboard.servers.profiling.table_layout import (HEAD_PROBE, TEXT, VALUE, Block, cell_kind, declared_numeric,
                                                      find_blocks, row_text, totals_among_rows, trailing_notes)
from lakeboard.servers.profiling.text_lines import TextLines, code_units
from lakeboard.servers.profiling.text_sample import TextSample, normalise_newlines, open_compressed, read_text_sample

_PARSE_AHEAD = 16  # grid rows parsed together when one is asked for
_RECORDS_HEAD_LINES = 120  # lines a text format of records is told by (blank ones among them)
# Lines wider than the head a profile reads (a table of ~100,000 columns or more): the first
# bytes of each line are kept, up to a bound on what is kept and on what is read.
WIDE_LINE_BYTES = 64 << 10
WIDE_KEEP_BYTES = 4 << 20
WIDE_SCAN_BYTES = 64 << 20
# "$" last: the FDA's adverse event files (FAERS) split their fields with it. As a delimiter it
# needs a first line of three names or more without spaces: sentences with an amount or two
# ("earned $5M in revenue, spent $2M") split into as many fields on every line too.
_DELIMITERS = ("\t", ",", ";", "|", "$")
_THOUSANDS = re.compile(r"^[-+(]?[$€£]?\d{1,3}(?:,\d{3})+(?:\.\d+)?\)?$")
_DECIMAL_COMMA = re.compile(r"^-?\d+,(?:\d{1,2}|\d{4,})$")
_ONE_GROUP = re.compile(r"^-?\d{1,3},\d{3}$")
_MULTI_GROUP = re.compile(r"^-?\d{1,3}(?:,\d{3}){2,}(?:\.\d+)?$")
_DOT_THOUSANDS = re.compile(r"^-?\d{1,3}(?:\.\d{3})+(?:,\d+)?$")
_DOT_DECIMAL = re.compile(r"\d\.\d")
_GROUPED_DECIMAL_COMMA = re.compile(r"^-?\d{1,3}(?:\.\d{3})+,\d+$")
# "8 886 524", French and SI; not a no-break space, which pandas' C parser takes no thousands mark of two bytes
_SPACE_THOUSANDS = re.compile(r"^-?\d{1,3}(?: \d{3})+(?:[.,]\d+)?$")
_DOTTED_DATE = re.compile(r"^\d{1,4}\.\d{1,2}\.\d{1,4}(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?$")
_MISSING = re.compile(
    r"^\s*(?:missing(?:\s+values?)?|no\s*data(?:\s+value)?|nodata|fill\s*value|na\s*values?)\s*[:=]\s*(\S+)\s*$",
    re.IGNORECASE,
)
csv.field_size_limit(1 << 24)


def sniff_delimiter(lines: TextLines | list[str], max_lines: int = 100) -> str | None:
    """The delimiter that splits most lines into the same number (>= 2) of fields."""
    # The first max_lines non-blank lines among the first 3 * max_lines; blank lines are few,
    # so a little more than max_lines usually holds them all.
    # Lines of a '#' comment block (an RDB or NOAA preamble, often longer than the table's first
    # rows) are not counted, unless they are all there is.
    subset = [ln for ln in lines[: max_lines + max_lines // 5] if ln.strip() and ln[:1] != "#"]
    if len(subset) < max_lines:
        subset = [ln for ln in lines[: max_lines * 3] if ln.strip() and ln[:1] != "#"]
    if len(subset) < 2:
        subset = [ln for ln in lines[: max_lines * 3] if ln.strip()]
    subset = subset[:max_lines]
    if not subset:
        return None
    joined = "\n".join(subset)
    quoted = '"' in joined
    best: tuple[float, int, str] | None = None
    for d in _DELIMITERS:
        if d not in joined:
            continue
        if quoted:
            try:
                counts = [len(r) for r in csv.reader(subset, delimiter=d) if r]
            except csv.Error:
                continue
        else:  # no quoting: counting delimiters is the same, and far cheaper
            counts = [ln.count(d) + 1 for ln in subset]
        if not counts:
            continue
        modal, freq = Counter(c for c in counts).most_common(1)[0]
        if modal < 2:
            # Most lines unsplit: is there a consistent width among the split ones?
            multi = [c for c in counts if c >= 2]
            if not multi:
                continue
            modal, freq = Counter(multi).most_common(1)[0]
        if d == "$" and (modal < 3 or any(" " in f.strip() or not f.strip() for f in subset[0].split("$"))):
            continue
        share = freq / len(counts)
        score = (round(share, 2), min(modal, 50), d)
        if best is None or score[:2] > best[:2]:
            best = score
    if best is None or best[0] < 0.5:
        return None
    return best[2]


class LinesGrid:
    """Delimited text as a lazily parsed grid, one row per line (no quoted line breaks)."""

    def __init__(self, lines: TextLines, delimiter: str) -> None:
        self.lines = lines
        self.delimiter = delimiter
        self.blank_rows = lines.blank_lines(" \t\"'" + delimiter)  # few, in order
        self.blank = [False] * len(lines)
        for i in self.blank_rows:
            self.blank[i] = True
        self._rows: dict[int, list[str]] = {}
        # pandas skips whitespace-only lines as it skips empty ones; such lines are blank lines.
        self._space_lines = any(lines[i].isspace() for i in self.blank_rows)

    def __len__(self) -> int:
        return len(self.lines)

    def is_blank(self, i: int) -> bool:
        return self.blank[i]

    def row(self, i: int) -> list[str]:
        r = self._rows.get(i)
        if r is None:
            # Rows are read in runs (the head, the rows after a blank line): parse a few ahead
            # in one reader call, several times cheaper than one reader per line.
            stop = min(len(self.lines), i + _PARSE_AHEAD)
            try:
                ahead = list(csv.reader(self.lines[i:stop], delimiter=self.delimiter))
            except csv.Error:
                ahead = []
            if ahead and len(ahead) == stop - i:  # one record per line (no quote spans lines)
                for k, parsed in enumerate(ahead, i):
                    self._rows.setdefault(k, parsed)
                return self._rows[i]
            try:
                r = next(csv.reader([self.lines[i]], delimiter=self.delimiter), [])
            except csv.Error:
                r = self.lines[i].split(self.delimiter)
            self._rows[i] = r
        return r

    def set_note(self, i: int) -> None:
        """Row i is a note: one cell, its whole line."""
        self._rows[i] = [self.lines[i]]

    def rows(self, start: int, stop: int) -> list[list[str]]:
        """Rows [start, stop), parsed in one pass (one line is one row here)."""
        try:
            return list(csv.reader(self.lines[start:stop], delimiter=self.delimiter))
        except csv.Error:
            return [self.row(i) for i in range(start, min(stop, len(self.lines)))]

    def rows_at(self, indices: list[int]) -> list[list[str]]:
        """The rows at these indices (one line is one row here, so each parses alone)."""
        try:
            return list(csv.reader(self.lines.take(indices), delimiter=self.delimiter))
        except csv.Error:
            return [self.row(i) for i in indices]

    def n_records(self, start: int, stop: int) -> int:
        """Rows pandas reads from grid rows [start, stop): it skips empty lines.

        Only blank lines can be skipped, and they are few: look at those alone.
        """
        rows = range(len(self.lines))[start:stop]
        blank_rows = self.blank_rows
        if not rows or not blank_rows:
            return len(rows)
        skipped = 0
        for i in blank_rows[bisect_left(blank_rows, rows.start) : bisect_left(blank_rows, rows.stop)]:
            line = self.lines[i]
            skipped += line == "" or (self._space_lines and line.isspace())
        return len(rows) - skipped

    def chars_before(self, k: int) -> int:
        return self.lines.offset(k)


class RecordsGrid(LinesGrid):
    """Delimited text whose quoted fields hold line breaks: one row per CSV record."""

    def __init__(self, text: str, delimiter: str) -> None:
        try:
            rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
        except csv.Error:
            rows = [ln.split(delimiter) for ln in text.split("\n")]
        self.records = rows
        self.lines = TextLines("")
        self.delimiter = delimiter
        self._chars_per_row = len(text) / max(1, len(rows))
        self.blank = [not any(c.strip(" \t\"'") for c in r) for r in rows]

    def __len__(self) -> int:
        return len(self.records)

    def row(self, i: int) -> list[str]:
        return self.records[i]

    def set_note(self, i: int) -> None:
        self.records[i] = [self.delimiter.join(self.records[i])]

    def rows(self, start: int, stop: int) -> list[list[str]]:
        return self.records[start:stop]

    def rows_at(self, indices: list[int]) -> list[list[str]]:
        return [self.records[i] for i in indices]

    def n_records(self, start: int, stop: int) -> int:
        return sum(1 for r in self.records[start:stop] if r and not (len(r) == 1 and not r[0].strip()))

    def chars_before(self, k: int) -> int:
        return int(k * self._chars_per_row)


def make_grid(lines: TextLines, text: str, delimiter: str) -> LinesGrid:
    """Rows per line, or per CSV record when quoted fields span lines."""
    if '"' in text and any(ln.count('"') % 2 for ln in lines):
        return RecordsGrid(text, delimiter)
    return LinesGrid(lines, delimiter)


def profile(path: Path, prof: FileProfile, det: Detection) -> None:
    """Delimited text, else a table aligned with spaces, else plain text.

    A file named as fixed-width (.fwf) is tried as a space-aligned table first: its lines
    may hold tabs or semicolons that would pass for a delimiter.
    """
    sample = read_text_sample(path, compression=det.compression)
    # a document declares each column's characters (a CDS ReadMe): read by them, whatever the lines look like
    aligned_first = det.format == "fwf" or bool(declared().spans)
    prof.encoding = sample.encoding
    text = normalise_newlines(sample.text)
    if not text or text.isspace():  # not text.strip(), which copies the whole text
        prof.status, prof.kind = "empty", "table"
        prof.reason = "the file holds only whitespace"
        return
    if not sample.complete and text.count("\n") < 3 and _profile_wide(path, prof, sample):
        return  # the head holds fewer than three whole lines: lines wider than it
    lines = TextLines(text)
    head = lines[:_RECORDS_HEAD_LINES]
    for records in (orbital_elements, sequences, sdmx_tsv, ghcn_daily, log_lines):  # text formats of records (text_records.py), told by their head
        if records.looks_like(head):
            records.profile(prof, sample, list(lines))
            return
    if aligned_first and fixed_width.profile_lines(path, prof, sample, list(lines)):
        return
    delim = sniff_delimiter(lines) or sniff_delimiter(_marked_lines(lines))
    ext = path.suffix.lower()
    if delim is not None and ext not in (".csv", ".tsv", ".tab") and _prose(lines, delim):
        delim = None  # sentences with a comma each: a document, not a table of two columns
    if delim == "|" and _aligned_inside(lines, delim):
        delim = None  # columns aligned by spaces, ids holding pipes ("sp|P12345|NAME"): HMMER's tables
    if delim is None:
        if not aligned_first and fixed_width.profile_lines(path, prof, sample, list(lines)):
            return
        if ext in (".csv", ".tsv", ".tab") and _looks_like_list(lines):
            delim = "\t" if ext in (".tsv", ".tab") else ","
        else:
            from lakeboard.servers.profiling import text_documents

            text_documents.profile_plain_text(path, prof, sample, fmt="text")
            return
    every = list(lines)
    types = typed_records.record_types(every[:5000], delim)
    if types:
        typed_records.profile(prof, sample, every, delim, types)
        return
    profile_delimited(path, prof, sample, lines, delim, text if text.endswith("\n") else text + "\n")


def _profile_wide(path: Path, prof: FileProfile, sample: TextSample) -> bool:
    """A delimited table whose lines are wider than the head: its first `MAX_COLUMNS` columns.

    Each line's first `WIDE_LINE_BYTES` are read (the rest of the line is skipped, never kept),
    cut after its last whole field; the profile and the loader keep the same first columns, and a
    note says the rest were left out. False when the lines do not split like a table's.
    """
    if sample.encoding.startswith(("utf-16", "utf-32")):
        return False  # a line end is not one byte: these files are rare enough
    delim = max(_DELIMITERS, key=sample.text.count)
    if sample.text.count(delim) < 2:
        return False
    heads, whole = _line_heads(path, sample)
    lines = [_first_fields(head, delim, cut) for head, cut in heads]
    if sum(line.count(delim) > 0 for line in lines[:3]) < 2:
        return False  # not a header and a row: one long line of text, say
    text = "\n".join(lines) + "\n"
    narrow = dataclasses.replace(sample, text=text, complete=whole, tail=None)
    profile_delimited(path, prof, narrow, TextLines(text), delim, text)
    for tp in prof.tables:
        tp.options.setdefault("usecols", list(range(len(tp.columns))))
        tp.notes.append(
            f"its lines are longer than profiling reads ({WIDE_LINE_BYTES:,} bytes of each): the profile and "
            f"the loader keep its first {len(tp.columns):,} columns (widen usecols to read others)")
        if not tp.n_rows_exact:
            tp.n_rows = None  # an estimate from the kept bytes would be wrong
    return True


def _line_heads(path: Path, sample: TextSample) -> tuple[list[tuple[str, bool]], bool]:
    """The file's first lines, each as (its first `WIDE_LINE_BYTES` decoded, whether it was cut),
    and whether the whole file was read. Bounded by `WIDE_KEEP_BYTES` kept and `WIDE_SCAN_BYTES` read."""
    heads: list[tuple[str, bool]] = []
    kept = scanned = 0
    encoding = sample.encoding  # "utf-8-sig" drops the BOM of the first line; later lines have none
    with open_compressed(path, sample.compression) as f:
        while kept < WIDE_KEEP_BYTES and scanned < WIDE_SCAN_BYTES:
            head = f.readline(WIDE_LINE_BYTES)
            if not head:
                return heads, True
            scanned += len(head)
            cut = len(head) >= WIDE_LINE_BYTES and not head.endswith(b"\n")
            while cut and scanned < WIDE_SCAN_BYTES:  # skip the rest of the line, in bounded reads
                rest = f.readline(1 << 20)
                scanned += len(rest)
                if not rest or rest.endswith(b"\n"):
                    break
            kept += len(head)
            heads.append((head.rstrip(b"\r\n").decode(encoding, errors="replace"), cut))
            encoding = sample.encoding.removesuffix("-sig")
    return heads, False


def _first_fields(line: str, delim: str, cut: bool) -> str:
    """`line` with at most `MAX_COLUMNS` fields; a line `cut` short loses its last, partial field."""
    if '"' in line:
        try:
            fields = next(csv.reader([line], delimiter=delim), [])
        except csv.Error:
            fields = line.split(delim)
        if cut and fields:
            fields.pop()
        out = io.StringIO()
        csv.writer(out, delimiter=delim, lineterminator="").writerow(fields[:MAX_COLUMNS])
        return out.getvalue()
    fields = line.split(delim, MAX_COLUMNS + 1)
    if cut and len(fields) <= MAX_COLUMNS + 1:
        fields.pop()
    return delim.join(fields[:MAX_COLUMNS])


def _marked_lines(lines: TextLines) -> list[str]:
    """The first lines of a marked table (`_table_marks`): a table under a preamble longer than itself."""
    marks = _table_marks(lines)
    if marks is None:
        return []
    begin, end, _ = marks
    return lines[begin + 1 : min(begin + 101, len(lines) if end is None else end)]


def _prose(lines: TextLines, delim: str) -> bool:
    """Lines of sentences (most end with a full stop and hold five words or more), and a first line
    that names no columns: a note split at its commas is no table."""
    body = [ln for ln in lines[:200] if ln.strip() and ln[:1] != "#"][:50]
    if delim not in ", ;" or len(body) < 2:
        return False
    # a sentence split mid-way: a field after the first goes on in lower case (", then its rows.");
    # a label and a sentence ("positive, I loved it.") are two fields of a table
    sentences = sum(ln.rstrip().endswith((".", "!", "?")) and len(ln.split()) >= 5
                    and any(f.strip()[:1].islower() for f in ln.split(delim)[1:]) for ln in body)
    first = [c.strip() for c in body[0].split(delim)]
    named = all(c and len(c.split()) <= 3 and not c.endswith(".") for c in first)
    return sentences >= 0.6 * len(body) and not named


def _no_rows_reason(lines: TextLines, delim: str) -> str:
    """Why a file of no data rows has none: a header alone (a table exported with no rows) or notes."""
    filled = [ln for ln in lines[:200] if ln.strip() and not ln.lstrip().startswith("#")]
    if len(filled) == 1 and len(names := [c.strip() for c in filled[0].split(delim)]) >= 2 and all(names):
        shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
        return f"no rows of data: the file holds a header ({value_text(shown, 200)}) and nothing under it"
    return "no rows of data: the file holds only notes or blank lines"


_ALIGNED_WORDS = re.compile(r"(?<=\S) {2,}(?=\S)")


def _aligned_inside(lines: TextLines, delim: str) -> bool:
    """Most lines hold, between delimiters, three runs of spaces or more parting words: the lines
    are a table aligned by spaces whose values hold the delimiter, not a table split by it (a
    value of two words parted by two spaces is no such run)."""
    body = [ln for ln in lines[:100] if ln.strip() and ln[:1] != "#"]
    inside = sum(sum(len(_ALIGNED_WORDS.findall(f)) for f in ln.split(delim)) >= 3 for ln in body)
    return bool(body) and inside >= 0.8 * len(body)


def _looks_like_list(lines: TextLines) -> bool:
    """One value per line (a single-column table)."""
    non_blank = [ln for ln in lines[:200] if ln.strip()]
    return bool(non_blank) and sum(len(ln) <= 120 for ln in non_blank) >= 0.9 * len(non_blank)


def profile_delimited(
    path: Path, prof: FileProfile, sample: TextSample, lines: TextLines, delim: str, text: str | None = None
) -> None:
    prof.kind = "table"
    prof.format = "tsv" if delim == "\t" else "csv"
    if text is None:
        text = "\n".join(lines) + "\n"
    grid = make_grid(lines, text, delim)
    notes = _comments_as_notes(grid)
    # the header is looked for in the first rows past the comments (NOAA's archive writes 80-150 of them)
    blocks = _icartt_layout(grid, sample.complete) or _marked_layout(grid) or _arff_layout(grid) or _split_at_repeated_headers(
        grid, _rows_taken_for_titles(grid, find_blocks(grid, complete=sample.complete, head_probe=HEAD_PROBE + notes)))
    if not blocks:
        prof.status = "empty"
        prof.reason = _no_rows_reason(lines, delim)
        prof.text = "\n".join(lines[:20])
        return

    skipfooter, tail_notes, tail_footer = 0, [], []
    if not sample.complete and sample.tail:
        tail_lines = normalise_newlines(sample.tail).split("\n")
        if tail_lines and tail_lines[-1] == "":
            tail_lines.pop()
        tail_grid = LinesGrid(TextLines.of(tail_lines[-40:]), delim)
        tail_rows = [tail_grid.row(i) for i in range(len(tail_grid))]
        skipfooter = trailing_notes(tail_rows)
        tail_footer = tail_grid.lines[len(tail_grid) - skipfooter :] if skipfooter else []
        tail_notes = (
            [row_text(r) for r in tail_rows[len(tail_rows) - skipfooter :] if row_text(r)] if skipfooter else []
        )

    multi = len(blocks) > 1
    last_nonblank = len(grid) - 1
    while last_nonblank >= 0 and grid.blank[last_nonblank]:
        last_nonblank -= 1
    for bi, b in enumerate(blocks):
        is_last = bi == len(blocks) - 1
        tp = _table(sample, grid, text, b, delim, last_nonblank, tail_footer if is_last else None)
        if is_last and b.data_end is None and skipfooter:
            tp.options["skipfooter"] = skipfooter
            tp.options["engine"] = "python"
            tp.notes.extend(tail_notes)
        if multi:
            tp.name = _block_name(grid, b, bi)
        prof.tables.append(tp)
    if multi:  # tables under the same title (each download of a site under the same notice) keep apart
        for tp, name in zip(prof.tables, unique_names([tp.name or "" for tp in prof.tables])):
            tp.name = name
    summarise(prof)


def _comments_as_notes(grid: LinesGrid) -> int:
    """'#' lines at the top, over a header of names: notes, each read as one cell. Split at the
    delimiter they pass for rows (cBioPortal's display names, descriptions and types above its
    header), and the header was lost among them. A '#' line over rows of values is the header
    itself ("#featureID,mz,…"). Returns how many lines were made notes."""
    k = 0
    while k < min(len(grid), 200) and (grid.is_blank(k) or grid.row(k)[:1] and grid.row(k)[0].startswith("#")):
        k += 1
    if not k or k >= len(grid) - 1 or not any(not grid.is_blank(i) for i in range(k)):
        return 0
    header = [c for c in grid.row(k) if c.strip()]
    below = [grid.row(i) for i in range(k + 1, min(len(grid), k + 4))]
    if len(header) < 2 or any(cell_kind(c) != TEXT for c in header) or not any(
            cell_kind(c) == VALUE for r in below for c in r):
        return 0
    for i in range(k):
        if not grid.is_blank(i):
            grid.set_note(i)
    return k


def _filled_span(grid: LinesGrid, b: Block, width: int) -> tuple[int, int]:
    """The first and past-the-last of the `width` fields that the header rows or the first rows fill."""
    rows = [grid.row(i) for i in [*b.header_rows, *range(b.data_start, min(len(grid), b.data_start + 30))]]

    def empty(j: int) -> bool:
        return all(j >= len(r) or not r[j].strip() for r in rows)

    lo, hi = 0, width
    while lo < hi - 1 and empty(lo):
        lo += 1
    while hi - 1 > lo and empty(hi - 1):
        hi -= 1
    return lo, hi


def _spaced_fields(grid: LinesGrid, b: Block) -> bool:
    """Every field after the first starts with a space, in the header and the first rows ("a, b, c"):
    pandas should skip it, or " b" becomes a column's name."""
    rows = [grid.row(i) for i in [*b.header_rows, *range(b.data_start, min(len(grid), b.data_start + 20))]]
    rows = [r for r in rows if len(r) > 1]
    return bool(rows) and all(c.startswith(" ") for r in rows for c in r[1:] if c)


def _blank_padded(grid: LinesGrid, b: Block) -> bool:
    """Fields padded to a width, an empty one all spaces (VizieR's TSV): pandas reads those spaces
    as a value and the column as text, unless it skips the spaces after a delimiter."""
    rows = grid.rows(b.data_start, min(len(grid), b.data_start + 200))
    return any(c and c.isspace() and " " in c for r in rows for c in r)


MAX_REPEATED_HEADERS = 20


def _split_at_repeated_headers(grid: LinesGrid, blocks: list[Block]) -> list[Block]:
    """A table's header line repeated among its data (files joined end to end): each repetition
    starts a table of its own, as it would after a blank line; up to MAX_REPEATED_HEADERS of them
    (more stay rows of the table, kept in `Block.repeated_headers` for `_table` to note)."""
    out = []
    for b in blocks:
        if b.header is None or not len(grid.lines):  # no lines: records with line breaks in quotes
            out.append(b)
            continue
        first = b.header_rows[0]  # the names; a row of types or units may follow, repeated with them
        if b.names and len(b.header_rows) == 1:
            out.append(b)  # names the file does not hold in that line
            continue
        repeats = grid.lines.find(grid.lines[first], b.data_start, len(grid) if b.data_end is None else b.data_end + 1)
        if len(repeats) > MAX_REPEATED_HEADERS:
            out.append(dataclasses.replace(b, repeated_headers=repeats))
            continue
        for k in repeats:
            # '#' comment lines right above a repetition (each download's own notice) are its notes
            top = k
            while top - 1 > b.data_start and grid.lines[top - 1][:1] == "#":
                top -= 1
            out.append(dataclasses.replace(b, data_end=top - 1, footnote_rows=[], footer_rows=[]))
            b = dataclasses.replace(b, title_rows=list(range(top, k)), header_rows=[k + h - first for h in b.header_rows],
                                    data_start=k + b.data_start - first)
        out.append(b)
    return out


def _icartt_layout(grid: LinesGrid, complete: bool) -> list[Block]:
    """The table of an ICARTT file (airborne and ground measurements, format 1001), whose first line
    says how many lines its header takes ("36, 1001"): the last of them names the columns, the data
    follows. The lines above are notes, whatever their commas make of them."""
    first = [c.strip() for c in grid.row(0)] if len(grid) else []
    n = int(first[0]) if len(first) == 2 and first[1] == "1001" and first[0].isdigit() else 0
    if not 2 < n < len(grid) or len([c for c in grid.row(n - 1) if c.strip()]) < 2:
        return []
    end = len(grid) - 1
    while end >= n and grid.blank[end]:
        end -= 1
    return [Block(title_rows=list(range(n - 1)), header_rows=[n - 1], data_start=n,
                  data_end=end if complete else None, width=len(grid.row(n - 1)))]


_START_OF_DATA, _END_OF_DATA = "$$SOE", "$$EOE"


def _marked_layout(grid: LinesGrid) -> list[Block]:
    """The table of an ephemeris (JPL Horizons): its rows between a "$$SOE" line and a "$$EOE" line,
    named by the last line above them, past the rule of asterisks, that has as many fields. The
    lines above and below are notes."""
    if not len(grid.lines):  # records with line breaks in quotes: no ephemeris
        return []
    marks = _table_marks(grid.lines)
    if marks is None:
        return []
    soe, eoe, geo = marks
    if geo:
        return _geo_table(grid, soe, eoe)
    if soe + 1 >= len(grid):
        return []
    width = len(grid.row(soe + 1))
    h = next((i for i in range(soe - 1, max(-1, soe - 5), -1)
              if len(grid.row(i)) == width and any(c.strip() for c in grid.row(i))), None)
    if h is None or width < 2:
        return []
    # (the empty field after a trailing comma is left out with the others outside the table: _filled_span)
    names = unique_names([c.strip() or f"Unnamed: {j}" for j, c in enumerate(grid.row(h))])

    def notes(lines: range) -> list[int]:  # not the rules of asterisks
        return [i for i in lines if any(ch.isalnum() for ch in grid.lines[i])][:40]

    below = notes(range(eoe + 1, len(grid))) if eoe is not None else []
    return [Block(title_rows=notes(range(h)), header_rows=[h], data_start=soe + 1, footnote_rows=below,
                  data_end=eoe - 1 if eoe is not None else None, names=names, width=len(names))]


_ARFF_ATTRIBUTE = re.compile(r"^@attribute\s+('[^']*'|\"[^\"]*\"|\S+)", re.IGNORECASE)


def _arff_layout(grid: LinesGrid) -> list[Block]:
    """An ARFF file (Weka's datasets): '@relation', an '@attribute' line per column, then its rows
    after '@data'. The declarations are the table's notes."""
    if not len(grid.lines) or "@" not in grid.lines.text or not re.search(r"^\s*@data", grid.lines.text, re.M | re.I):
        return []
    data, relation = None, False
    for i in range(min(len(grid), 5000)):
        head = grid.lines[i].lstrip()[:9].lower()
        relation = relation or head.startswith("@relation")
        if head.startswith("@data"):
            data = i
            break
    if data is None or not relation:
        return []
    names = [m.group(1).strip("'\"") for i in range(data) if (m := _ARFF_ATTRIBUTE.match(grid.lines[i].strip()))]
    if len(names) < 2 or data + 1 >= len(grid):
        return []
    notes = [i for i in range(data) if grid.lines[i].strip()][:60]
    return [Block(title_rows=notes, header_rows=[data], data_start=data + 1, names=unique_names(names),
                  width=len(names))]


_GEO_BEGIN = re.compile(r"^!\w*table_begin\s*$", re.IGNORECASE)
_GEO_END = re.compile(r"^!\w*table_end\s*$", re.IGNORECASE)


def _table_marks(lines: TextLines, n: int = 2000) -> tuple[int, int | None, bool] | None:
    """Where a table marked in the text begins and ends (the lines of its marks; None: no end), and
    whether it is a GEO file's: an ephemeris's "$$SOE" … "$$EOE", or '!…table_begin' …
    '!…table_end'. The text is searched first, in C: most files hold no mark."""
    for start_mark, geo, begins, ends in (
            (_START_OF_DATA, False, lambda ln: ln.strip() == _START_OF_DATA, lambda ln: ln.strip() == _END_OF_DATA),
            ("table_begin", True, _GEO_BEGIN.match, _GEO_END.match)):
        if start_mark not in lines.text:
            continue
        begin = next((i for i in range(min(len(lines), n)) if begins(lines[i])), None)
        if begin is not None:
            return begin, next((i for i in range(begin + 1, len(lines)) if ends(lines[i])), None), geo
    return None


def _geo_table(grid: LinesGrid, begin: int, end: int | None) -> list[Block]:
    """A GEO series matrix or SOFT file: '!' attribute lines (notes), then the table between
    '!…table_begin' and '!…table_end' (lines `begin` and `end`), its first line the header."""
    if begin + 2 >= len(grid) or len(grid.row(begin + 1)) < 2:
        return []
    h = begin + 1
    names = unique_names([c.strip() or f"Unnamed: {j}" for j, c in enumerate(grid.row(h))])
    return [Block(title_rows=[i for i in range(begin) if grid.lines[i].strip()][:40], header_rows=[h],
                  data_start=h + 1, data_end=end - 1 if end is not None else None,
                  footnote_rows=[i for i in range(end + 1, len(grid)) if grid.lines[i].strip()][:40] if end else [],
                  names=names, width=len(names))]


def _last_filled(row: list[str]) -> int:
    """Index of the row's last non-blank cell, -1 when there is none."""
    for j in range(len(row) - 1, -1, -1):
        if row[j].strip():
            return j
    return -1


_SEPARATOR_LINE = re.compile(r"^sep=.?$", re.IGNORECASE)  # Excel's first line naming the delimiter
# a line that marks where a section begins or ends ("-BEGIN HEADER-", "=== DATA ===", "[Header]",
# "# ----- WARNING -----")
_SECTION_MARK = re.compile(r"^[-=*#\[<][-=*#\[<\s]*[A-Za-z][A-Za-z ]{0,29}\s*[-=*#\]>][-=*#\]>\s]*$")


def _title(lines: list[str]) -> str | None:
    """The line that names a table: the first short line above its header (not a units or key: value line)."""
    for text in lines:
        if (3 <= len(text) <= 200 and not _MISSING.match(text) and any(ch.isalpha() for ch in text)
                and not _SEPARATOR_LINE.match(text) and not _SECTION_MARK.match(text)):
            return text
    return None


def _block_name(grid: LinesGrid, b: Block, bi: int) -> str:
    for i in reversed(b.title_rows):
        t = row_text(grid.row(i))
        if len(t) <= 100 and any(ch.isalnum() for ch in t):  # not a bare comment mark ("#")
            return t
    if b.header is not None:
        first = next((c.strip() for c in grid.row(b.header) if c.strip()), "")
        if first:
            return f"table {bi + 1}: {first}"
    return f"table {bi + 1}"


def _table(
    sample: TextSample,
    grid: LinesGrid,
    text: str,
    b: Block,
    delim: str,
    last_nonblank: int,
    footer_lines: list[str] | None = None,
) -> TableProfile:
    tp = TableProfile(delimiter=delim)
    opts: dict[str, Any] = {}
    if delim != ",":
        opts["sep"] = delim
    if sample.encoding not in ("utf-8", "ascii"):
        opts["encoding"] = sample.encoding
    if sample.compression:
        opts["compression"] = sample.compression
    if delim != " " and (_spaced_fields(grid, b) or _blank_padded(grid, b)):
        opts["skipinitialspace"] = True
    b = _under_annotations(grid, b)
    if b.header is not None and not b.names and len(b.header_rows) == 1:
        b = _without_empty_header_fields(grid, b)
        if delim == "|":
            b = _between_pipes(grid, b)
        b = _over_metadata(grid, b)
        b = _plain_names(grid, b, delim)
    # Grid rows are pandas' skiprows: blank lines count in both.
    if b.names:
        lo, hi = _filled_span(grid, b, len(b.names))  # not the empty fields outside a table's borders ("| a | b |")
        opts.update(header=None, skiprows=b.data_start, names=b.names[lo:hi], usecols=list(range(lo, hi)))
        tp.header_row = b.header_rows[0]
    elif b.header is not None:
        if b.header:
            opts["skiprows"] = b.header
        tp.header_row = b.header
    else:
        opts["header"] = None
        if b.data_start:
            opts["skiprows"] = b.data_start

    probe = [grid.row(i) for i in b.header_rows + list(range(b.data_start, min(len(grid), b.data_start + 30)))]
    if not b.names:
        # Padding columns (trailing delimiters) with neither a name nor a value: leave them out.
        used = max((_last_filled(r) + 1 for r in probe), default=0)
        fields = max((len(r) for r in probe), default=0)
        if 0 < used < fields:
            opts["usecols"] = list(range(used))
    # Number formats and missing-value markers, from the first data rows.
    cells = [c.strip() for i in range(b.data_start, min(len(grid), b.data_start + 50)) for c in grid.row(i)]
    value_cells = [c for c in cells if c and c[0] in "-+($€£0123456789"]
    comma_cells = [c for c in value_cells if "," in c]  # the only ones the patterns below can match
    # "3,512" fits both a thousands separator and a decimal comma; "1,5" or "2,25" only the latter.
    # Dates written with dots ("01.03.2020") are not dot decimals, and "1.234,5" is a decimal comma.
    # Split by semicolons, the European way, "21,485" is a decimal comma (EEA's air-quality exports
    # write three decimals): taken for a thousands mark, every value was 1,000 times too big.
    decimal_comma = delim != "," and any(
        _DECIMAL_COMMA.match(c) or _GROUPED_DECIMAL_COMMA.match(c) or (delim == ";" and _ONE_GROUP.match(c)) for c in comma_cells
    ) and not any(
        _MULTI_GROUP.match(c) or (_DOT_DECIMAL.search(c) and not _DOTTED_DATE.match(c) and not _GROUPED_DECIMAL_COMMA.match(c))
        for c in value_cells)
    if decimal_comma:
        opts["decimal"] = ","
        # pandas would take a dotted date for a number with thousands separators (01.03.2020 -> 1032020);
        # not one with its time ("01.03.2023 07:00", an inverter's log), which stays text
        if any(_DOT_THOUSANDS.match(c) for c in value_cells) and not any(
                _DOTTED_DATE.match(c) and ":" not in c for c in value_cells):
            opts["thousands"] = "."
    elif any(_THOUSANDS.match(c) for c in comma_cells):
        opts["thousands"] = ","
    if "thousands" not in opts and delim != " " and sum(1 for c in value_cells if _SPACE_THOUSANDS.match(c)) >= 2:
        opts["thousands"] = " "
    notes = [row_text(grid.row(i)) for i in b.title_rows]
    tp.title = _title(notes)
    notes += [row_text(grid.row(i)) for i in b.footnote_rows]
    notes += [f"summary row under the data, left out: {row_text(grid.row(i))}" for i in b.footer_rows]
    # Missing values the file declares in a note ("missing values are coded as -9999"), and those
    # the lake's documents declare for it (`lake.apply_declarations`).
    said = declared()
    tokens = [m.group(1).strip("\"'") for m in map(_MISSING.match, notes) if m]
    tokens += [v for note in notes for v in declared_fill_values(note)] + said.everywhere
    if tokens:
        opts["na_values"] = list(dict.fromkeys(tokens))
    if sample.complete and (totals := totals_among_rows(grid, b, len(grid) if b.data_end is None else b.data_end + 1)):
        notes.append(totals)
    tp.notes = [n for n in notes if n]
    if b.repeated_headers:  # more than are split into tables of their own
        tp.notes.append(f"the header line is repeated {len(b.repeated_headers)} times among the data (files joined "
                        "end to end): pandas reads those lines as rows; drop them and convert the columns")
    if b.has_blank_rows:
        tp.drop_blank_rows = True
    if not sample.complete or sample.mixed_encoding:
        opts["encoding_errors"] = "replace"

    # Rows: exact when the whole table was seen, else estimated from bytes.
    # Rows of empty cells are records for pandas (nrows counts them) until the loader drops them.
    first_record = b.header + 1 if b.header is not None and not b.names else b.data_start
    if b.data_end is not None:
        tp.n_rows = _rows_kept(grid, b.data_start, b.data_end + 1, tp.drop_blank_rows)
        tp.n_rows_exact = True
        # notes or another table follow, or rows of bare delimiters (",,,,", a spreadsheet's empty
        # rows), which pandas reads as rows of NaN
        if b.data_end < last_nonblank or grid.n_records(b.data_end + 1, len(grid)):
            opts["nrows"] = grid.n_records(first_record, b.data_end + 1)
    else:
        seen = grid.n_records(b.data_start, len(grid))
        if sample.complete:
            tp.n_rows, tp.n_rows_exact = _rows_kept(grid, b.data_start, len(grid), tp.drop_blank_rows), True
        else:
            start_chars = grid.chars_before(b.data_start)
            data_chars = max(1, len(text) - start_chars)
            per_row = data_chars / max(1, seen)
            # The sample is mostly one byte per character.
            tp.n_rows = None if sample.compression else int((sample.size - start_chars) / per_row)
            tp.n_rows_exact = False
            counted = _count_rows(sample, grid, b, footer_lines)
            if counted is not None:
                tp.n_rows, tp.n_rows_exact = counted, True

    _sample(tp, grid, b, opts, sample.complete)
    tp.options = opts
    return tp


def _under_annotations(grid: LinesGrid, b: Block) -> Block:
    """Rows of annotations under the names, each marked '#!' (Perseus writes '#!{Type}E', then
    '#!{C:Group}Ctrl', a field each): they were taken for the header and the names for a title.
    The names are the row of as many fields above them; the annotations are notes."""
    def annotation(i: int) -> bool:
        return str(grid.row(i)[0]).lstrip().startswith("#!")

    if not b.header_rows or not all(map(annotation, b.header_rows)):
        return b
    width = len(grid.row(b.header_rows[0]))
    above = [i for i in b.title_rows if not annotation(i) and len(grid.row(i)) == width]
    if not above:
        return b
    top = above[-1]
    names = unique_names([c.strip() or f"Unnamed: {j}" for j, c in enumerate(grid.row(top))])
    marked = [i for i in [*b.title_rows, *b.header_rows] if i > top]
    return dataclasses.replace(b, title_rows=[i for i in b.title_rows if i < top], header_rows=[top], names=names,
                               footnote_rows=marked + b.footnote_rows)


def _plain_names(grid: LinesGrid, b: Block, delim: str) -> Block:
    """The header's names without what only lays them out: a comment mark before the first
    ("# Observation period;TOA;…", CAMS's radiation service), a space after each delimiter
    ("Date Time, Water Level, Sigma", NOAA CO-OPS), spaces that pad a tab-separated header's
    fields to a width ("series_id      \tyear\t      value", BLS), which pandas keeps in the names."""
    if b.names:
        return b
    header = grid.row(b.header)
    first = header[0].strip() if header else ""
    marked = first.startswith("#") and bool(first.lstrip("#").strip())
    spaced = len(header) > 1 and all(c.startswith(" ") for c in header[1:] if c) and any(header[1:])
    padded = delim == "\t" and any(c != c.strip(" ") and c.strip() for c in header)
    if not (marked or spaced or padded):
        return b
    names = [c.strip() for c in header]
    names[0] = names[0].lstrip("#").strip()
    return dataclasses.replace(b, names=unique_names([n or f"Unnamed: {j}" for j, n in enumerate(names)]))


def _over_metadata(grid: LinesGrid, b: Block) -> Block:
    """A header of one JSON object per column ('{"ImportId": "QID1"}'): a survey export's third
    header row (Qualtrics writes the names, then each question's text, then these). The names are
    the first row above it that fills as many fields; the rows between are notes."""
    header = [c.strip() for c in grid.row(b.header)]
    filled = [c for c in header if c]
    if len(filled) < 2 or not all(c.startswith("{") and c.endswith("}") for c in filled):
        return b
    full = [i for i in b.title_rows if sum(1 for c in grid.row(i) if c.strip()) == len(filled)]
    if not full:
        return b
    top = full[0]
    names = unique_names([c.strip() or f"Unnamed: {j}" for j, c in enumerate(grid.row(top))])
    return dataclasses.replace(b, title_rows=[i for i in b.title_rows if i < top], header_rows=[top], names=names,
                               footnote_rows=[i for i in b.title_rows if i > top] + b.footnote_rows)


def _padded(values: list[Any]) -> bool:
    """Text padded with spaces to a width in most of a column's cells (BLS's series ids in a
    tab-separated file): an id no filter matches as written."""
    texts = [v for v in values if isinstance(v, str) and v.strip()]
    return bool(texts) and sum(1 for v in texts if v != v.strip()) * 2 >= len(texts)


def _rows_taken_for_titles(grid: LinesGrid, blocks: list[Block]) -> list[Block]:
    """The first table's header found below rows that are records like its own, or none found: a
    first line that names every field, each name text and its own, over rows of as many fields
    (a reference manager's export of 43 fields, most of each row empty, whose rows agree too
    little to be taken for data). The first line is the header; the rows under it are data."""
    if not blocks or (blocks[0].header_rows[:1] or [None])[0] == 0 or blocks[0].names:
        return blocks
    b = blocks[0]
    first = [c.strip() for c in grid.row(0)]
    width = len(first)
    if width < 3 or not all(first) or len(set(first)) < width or any(cell_kind(c) != TEXT for c in first):
        return blocks
    if any(len(grid.row(i)) != width for i in range(1, min(b.data_start + 5, len(grid)))):
        return blocks  # titles or notes of another width above the header: the layout found them
    # the header found holds numbers: a record (else a second row of names, labels under codes);
    # none found: numbers under the first line tell its names from a record of text
    below = b.header_rows[:1] or range(1, min(len(grid), 21))
    if not any(cell_kind(c) == VALUE for i in below for c in grid.row(i)):
        return blocks
    fixed = dataclasses.replace(b, title_rows=[], header_rows=[0], data_start=1)
    return [fixed, *blocks[1:]]


def _between_pipes(grid: LinesGrid, b: Block) -> Block:
    """A table drawn between pipes ("|name   |ra      |", as HEASARC and Markdown write them):
    its names without the spaces that align them, and no column for the empty fields outside
    the edge pipes (`_filled_span`)."""
    header = grid.row(b.header)
    rows = [header, *grid.rows(b.data_start, min(len(grid), b.data_start + 20))]
    if len(header) < 3 or not all(not r[0].strip() and not r[-1].strip() for r in rows if "".join(r).strip()):
        return b
    return dataclasses.replace(b, names=[c.strip() or f"Unnamed: {j}" for j, c in enumerate(header)])


def _without_empty_header_fields(grid: LinesGrid, b: Block) -> Block:
    """A header with empty fields its rows do not have ("Date \t\tDay\tTime", NOAA's tide
    predictions): pandas would shift every name after the gap by one. The header's filled
    fields name the columns when they are as many as the rows' fields."""
    header = grid.row(b.header)
    rows = [r for r in grid.rows(b.data_start, min(len(grid), b.data_start + 20)) if any(c.strip() for c in r)]
    widths = Counter(len(r) for r in rows)
    if not widths:
        return b
    width = widths.most_common(1)[0][0]
    filled = [c.strip() for c in header if c.strip()]
    if len(header) <= width or len(filled) != width:
        return b
    return dataclasses.replace(b, names=unique_names(filled))


def _rows_kept(grid: LinesGrid, start: int, stop: int, drop_blank: bool) -> int:
    """Rows the loader returns from grid rows [start, stop): without rows of empty cells when it drops them."""
    if drop_blank:
        return sum(1 for i in range(start, stop) if not grid.blank[i])
    return grid.n_records(start, stop)


COUNT_ROWS_BYTES = 64 << 20  # bigger files get a row estimate instead of a count
COUNT_CHUNK_BYTES = 4 << 20


def _count_rows(sample: TextSample, grid: LinesGrid, b: Block, footer: list[str] | None) -> int | None:
    """Exact data rows of a file bigger than its sample, by counting line ends in C.

    Only when one line is one record (no quoted line breaks seen) and the file is not huge.
    pandas skips empty lines and lines of spaces (tabs too, unless they delimit): so do we.
    """
    if sample.compression or sample.size > COUNT_ROWS_BYTES or isinstance(grid, RecordsGrid):
        return None
    if sample.encoding.startswith(("utf-16", "utf-32")):
        return None
    if sample.path is None:
        return None
    space = " \t".replace(grid.delimiter, "")
    # A line end followed by skipped lines: each further line end in the run is one of them.
    skipped_run = re.compile(rb"\n(?:[" + re.escape(space).encode() + rb"]*\r?\n)+")
    lines = skipped = 0
    last = b""
    carry = b"\n"  # as if a line ended before the file, so that leading empty lines are seen
    with open(sample.path, "rb") as f:
        while True:
            chunk = f.read(COUNT_CHUNK_BYTES)
            lines += chunk.count(b"\n")
            last = chunk[-1:] or last
            piece = carry + chunk
            # Cut after the last byte that is not a line end or space: a run then never spans
            # two pieces (the rest goes on with the next one).
            cut = len(piece.rstrip(b"\r\n" + space.encode())) if chunk else len(piece)
            skipped += sum(piece.count(b"\n", m.start(), m.end()) - 1 for m in skipped_run.finditer(piece, 0, cut))
            carry = piece[cut:]
            if not chunk:
                break
    if lines == 0:
        return None  # old Mac line ends (CR only): leave the estimate
    if last != b"\n":
        lines += 1
    nonempty = lines - skipped
    before = sum(1 for ln in grid.lines[: b.data_start] if ln.strip(space))
    after = sum(1 for ln in (footer or []) if ln.strip(space))
    return max(0, nonempty - before - after)


def _sample_rows(grid: LinesGrid, start: int, stop: int, drop_blank: bool) -> list[list[str]]:
    """The first rows, then rows spread evenly over the rest of the table.

    Spreading matters: files are often sorted by a category (state, year, site), and the
    first few hundred rows would show only its first values.
    """

    def keep(chunk: list[list[str]]) -> list[list[str]]:
        chunk = [r for r in chunk if len(r) > 1 or (r and r[0].strip())]  # pandas skips empty lines
        if drop_blank:
            chunk = [r for r in chunk if any(c.strip() for c in r)]
        return chunk

    if stop - start <= STATS_ROWS + STATS_ROWS // 2:
        return keep(grid.rows(start, stop))[:STATS_ROWS]
    head = keep(grid.rows(start, start + HEAD_ROWS + 10))[:HEAD_ROWS]
    first = start + HEAD_ROWS + 10
    picks = [first + i for i in spread_indices(stop - first, STATS_ROWS - HEAD_ROWS, head=0)]
    return head + keep(grid.rows_at(picks))


def _row_names(rows: list[list[str]], width: int) -> bool:
    """Rows of one field more than a header of `width` names, the first field a distinct name for
    each row (a gene, a sample, a row number): a table written with its row names."""
    firsts = [r[0].strip() for r in rows]
    return all(len(r) == width + 1 for r in rows) and all(firsts) and len(set(firsts)) == len(firsts)


def _sample(tp: TableProfile, grid: LinesGrid, b: Block, opts: dict[str, Any], complete: bool) -> None:
    """Columns and first rows from the parsed sample, typed the way pandas would read them."""
    stop = len(grid) if b.data_end is None else b.data_end + 1
    if not complete and b.data_end is None:
        stop -= 1  # the head was cut at a line end: its last line may be half a record
    rows = _sample_rows(grid, b.data_start, stop, tp.drop_blank_rows)
    spaced = opts.get("skipinitialspace", False)
    if spaced:
        rows = [[c.lstrip(" ") for c in r] for r in rows]
    usecols = opts.get("usecols")
    said = declared()
    if b.names:
        names = list(b.names)
    elif b.header is not None:
        header = [c.lstrip(" ") for c in grid.row(b.header)] if spaced else grid.row(b.header)
        names = [c if c.strip() else f"Unnamed: {j}" for j, c in enumerate(header)]
        # Rows longer than the header: pandas would take the first fields as an index.
        longer = 0
        if rows and max(map(len, rows)) > len(header):
            longer = sum(1 for r in rows if len(r) > len(header) and any(c.strip() for c in r[len(header) :]))
        if rows and longer == len(rows) and not usecols:
            if _row_names(rows, len(header)):
                # R's write.table: each row starts with its name, which the header does not name
                names = opts["names"] = unique_names(["Unnamed: 0", *names])
                opts["header"] = 0
            else:
                opts["index_col"] = False
        elif longer:
            opts["on_bad_lines"] = "skip"
            tp.notes.append("some lines have more fields than the header; the loader skips them")
    else:
        width = len(rows[0]) if rows else 0
        names = [str(j) for j in range(width)]
        if rows and max(map(len, rows)) > width:
            opts["on_bad_lines"] = "skip"
            tp.notes.append("some lines have more fields than the first; the loader skips them")
        if len(said.columns) == width and not usecols:  # a document beside the file names them (`column_lists`)
            names = opts["names"] = unique_names(said.columns)
            tp.notes.append(said.column_note)
    positions = list(usecols) if usecols else list(range(len(names)))
    if len(positions) > MAX_COLUMNS:
        tp.notes.append(f"the table has {len(positions):,} columns: the profile and the loader keep the first "
                        f"{MAX_COLUMNS:,} (widen usecols to read others)")
        positions = positions[:MAX_COLUMNS]
        opts["usecols"] = positions
    given = opts.get("na_values", [])
    na = PANDAS_NA | frozenset(str(v) for v in given)
    fill = [float(v) for v in given if is_number_text(str(v))]
    thousands, decimal = opts.get("thousands"), opts.get("decimal", ".")
    # Transpose in C: short rows are padded with None, as pandas pads them with NaN.
    transposed = list(zip_longest(*rows)) if rows else []
    col_names = [names[j] if j < len(names) else f"Unnamed: {j}" for j in positions]
    # The labels pandas gives the columns, which a per-column na_values names.
    labels: list[Any] = list(positions) if opts.get("header", 0) is None and "names" not in opts else unique_names(col_names)
    by_column = said.by_column
    # a field the file's types row declares numeric: its other texts are gaps ("Eqp", "Ice", "***" in USGS files)
    typed = declared_numeric(grid, b)
    markers: dict[Any, list[str]] = {}
    parsed: list[tuple[str, list[Any], frozenset[str], list[str]]] = []
    counted: list[tuple[int, int, Counter[str], list[str]]] = []
    for j, name in zip(positions, col_names):
        cells = list(transposed[j]) if j < len(transposed) else [None] * len(rows)
        own = [str(v) for v in by_column.get(name, [])]
        col_na = na | frozenset(own) if own else na
        dtype, values = parse_text_column(cells, col_na, thousands, decimal)
        # Text missing markers ("M", "n.a.", "-") in a numeric column: from the sample first.
        n_numbers, n_distinct, tokens, found = 0, 0, Counter(), []
        if dtype not in ("float64", "int64", "bool"):
            n_numbers, n_distinct, tokens = numbers_and_tokens(cells, col_na, thousands, decimal)
            found = missing_markers(n_numbers, n_distinct, tokens)
            if j in typed and n_numbers and not found:
                found = sorted(tokens, key=lambda t: (-tokens[t], t))
        parsed.append((dtype, values, col_na, found))
        counted.append((n_numbers, n_distinct, tokens, found))
    in_table = table_markers(counted)
    for k, (j, label) in enumerate(zip(positions, labels)):
        dtype, values, col_na, found = parsed[k]
        n_numbers, n_distinct, tokens, _ = counted[k]
        if found or dtype in ("float64", "int64", "bool"):
            continue
        cells = list(transposed[j]) if j < len(transposed) else [None] * len(rows)
        if found := in_table(n_numbers, n_distinct, tokens):
            parsed[k] = (dtype, values, col_na, found)
        elif not n_numbers and dtype == string_dtype() and (punctuation := text_markers(tokens)):
            dtype, values = parse_text_column(cells, col_na | frozenset(punctuation), thousands, decimal)
            markers[label] = punctuation
            parsed[k] = (dtype, values, col_na, found)
    # Then in every row of the table the head holds: a marker the sample missed would leave the
    # loaded column text while the profile says numbers.
    if len(rows) < stop - b.data_start:
        numeric = [k for k, (dtype, _, _, found) in enumerate(parsed) if found or dtype in ("float64", "int64")]
        marks = (thousands or "") + (decimal if decimal != "." else "")
        seen = _cells_not_numbers(grid, b.data_start, stop, [positions[k] for k in numeric], marks)
        for k in numeric:
            dtype, values, col_na, found = parsed[k]
            if positions[k] in seen:
                n_filled, tokens = seen[positions[k]]
                for mark in col_na.intersection(tokens):
                    del tokens[mark]
                conv = {t: t.replace(thousands, "") if thousands else t for t in tokens}
                tokens = Counter({t: n for t, n in tokens.items() if not is_number_text(conv[t].replace(decimal, "."))})
                n_numbers = n_filled - sum(tokens.values())
                cells = list(transposed[positions[k]]) if positions[k] < len(transposed) else []
                s_numbers, s_distinct, _ = numbers_and_tokens(cells, col_na, thousands, decimal)
                # distinct numbers, scaled from the sample: only their share matters (`missing_markers`)
                found = missing_markers(n_numbers, s_distinct * n_numbers // max(1, s_numbers), tokens)
                if positions[k] in typed and tokens and not found:
                    found = sorted(tokens, key=lambda t: (-tokens[t], t))
                if tokens and not found and dtype in ("float64", "int64"):
                    # Text past the sample that is no marker: pandas reads the column as text.
                    dtype, values = string_dtype(), [None if c is None or c in col_na else c for c in cells]
                parsed[k] = (dtype, values, col_na, found)
    dtypes, columns = [], []
    codes: dict[Any, str] = {}
    signed: list[Any] = []
    stripped: list[Any] = []
    for k, (j, name, label) in enumerate(zip(positions, col_names, labels)):
        dtype, values, col_na, found = parsed[k]
        cells = list(transposed[j]) if j < len(transposed) else [None] * len(rows)
        if found:
            retyped, reparsed = parse_text_column(cells, col_na | frozenset(found), thousands, decimal)
            if retyped in ("float64", "int64"):
                dtype, values = retyped, reparsed
                markers[label] = found
                if dtype == "int64":  # a marker past the sample is a gap all the same
                    dtype, values = "float64", [None if v is None else float(v) for v in values]
        if dtype in ("float64", "int64") and zero_padded_codes(cells, col_na):
            # codes written with leading zeros ("01001", "003") are keys: as numbers they lose them
            dtype, values = string_dtype(), [None if c is None or c in col_na else c for c in cells]
            codes[label] = "str"
        elif dtype == string_dtype() and (read := signed_column(cells, col_na, decimal)):
            dtype, values = signed_dtype(read[0]), read[0]  # "$1,006M", "13%": the loader converts them (`signed_numbers`)
            signed.append([label, read[1]])
            if read[2]:
                markers[label] = markers.get(label, []) + read[2]
        elif dtype == string_dtype() and _padded(values):
            values = [v.strip() if isinstance(v, str) else v for v in values]  # "CUSR0000SA0      ": the loader strips them
            stripped.append(label)
        own = [str(v) for v in by_column.get(name, [])]
        dropped = fill + [float(v) for v in own if is_number_text(v)]
        dtype, values = without_numbers(dtype, values, dropped)
        if dtype in ("float64", "int64"):
            fills, notes = fill_values_of(name, label, values)  # sentinels far outside
            tp.notes += notes
            if fills:
                markers[label] = markers.get(label, []) + [value_text(v) for v in fills]
                dtype, values = without_numbers(dtype, values, fills)
        elif note := censored_note(name, cells, col_na):
            tp.notes.append(note)
        dtypes.append(dtype)
        columns.append(values)
    if markers or by_column:
        declared_by_label = {label: by_column[name] for name, label in zip(col_names, labels) if name in by_column}
        for label, found in markers.items():
            declared_by_label[label] = declared_by_label.get(label, []) + found
        add_na_values(opts, labels, [], declared_by_label)
    if codes:
        opts["dtype"] = codes
    if signed:
        opts["signed_numbers"] = signed
    if stripped:
        opts["strip_text"] = stripped
    tp.columns, tp.sample_rows = profile_values(col_names, dtypes, columns)


SCAN_QUOTED_ROWS = 5000  # rows of a quoted table parsed to look for markers (unquoted ones: every row)


def _cells_not_numbers(
    grid: LinesGrid, start: int, stop: int, columns: list[int], number_marks: str = ""
) -> dict[int, tuple[int, Counter[str]]]:
    """For each of `columns` in rows [start, stop): its filled cells, and the counts of those that
    are not numbers: no digit (where a missing marker can be; "#DIV/0!" too), or a character no
    number holds (`number_marks`: the table's thousands and decimal marks, which numbers hold).

    Unquoted text is split in numpy, a few passes over its characters whatever its size; text
    with quotes needs the csv module, over its first `SCAN_QUOTED_ROWS` rows."""
    if not columns or stop <= start:
        return {}
    wanted = set(columns)
    region = "" if isinstance(grid, RecordsGrid) else grid.lines.text[grid.chars_before(start) : grid.chars_before(stop)]
    if isinstance(grid, RecordsGrid) or '"' in region or len(grid.delimiter) != 1:
        rows = grid.rows(start, min(stop, start + SCAN_QUOTED_ROWS))
        out: dict[int, tuple[int, Counter[str]]] = {}
        for j, cells in enumerate(zip_longest(*rows)):
            if j in wanted:
                counts = Counter(c for c in cells if c is not None and c.strip())
                tokens = Counter({c: n for c, n in counts.items() if not is_number_text(c.replace(",", "") if "," in number_marks else c)})
                out[j] = (sum(counts.values()), tokens)
        return out
    import numpy as np

    codes = code_units(region)  # a byte per character for Latin-1 text: a quarter of the memory to scan
    newline, delim = codes == 10, codes == ord(grid.delimiter)
    boundary = newline | delim
    field = np.cumsum(boundary)  # each character's field (a boundary opens the next one)
    n_fields = int(field[-1]) + 1 if len(field) else 0
    inside = ~boundary
    digit = (codes >= 48) & (codes <= 57)
    filled = np.bincount(field[inside & (codes != 32) & (codes != 9) & (codes != 13)], minlength=n_fields) > 0
    has_digit = np.bincount(field[digit], minlength=n_fields) > 0
    # A character no number holds ("4999XX", "#DIV/0!"): the cell is text, and so is its column.
    number_chars = np.array([ord(c) for c in "0123456789 \t\r.-+eE" + number_marks], dtype=np.uint32)
    has_other = np.bincount(field[inside & ~np.isin(codes, number_chars)], minlength=n_fields) > 0
    ends = np.flatnonzero(boundary)
    line_start = np.concatenate(([True], newline[ends]))[:n_fields]
    index = np.arange(n_fields)
    column = index - np.maximum.accumulate(np.where(line_start, index, 0))
    keep = np.isin(column, list(wanted))
    per_column = np.bincount(column[filled & keep], minlength=max(wanted) + 1)
    out = {j: (int(per_column[j]), Counter()) for j in wanted}
    starts = np.concatenate(([0], ends + 1))
    for k in np.flatnonzero(filled & keep & (~has_digit | has_other)).tolist():
        end = int(ends[k]) if k < len(ends) else len(region)
        out[int(column[k])][1][region[int(starts[k]) : end]] += 1
    return out


def summarise(prof: FileProfile) -> None:
    """The one-line summary of a CSV or TSV profile, from its tables."""
    fmt = "TSV" if prof.format == "tsv" else "CSV"
    parts = []
    for t in prof.tables[:4]:
        rows = "an uncounted number of" if t.n_rows is None else f"{t.n_rows}" if t.n_rows_exact else f"~{t.n_rows}"
        cols = ", ".join(c.name for c in t.columns[:8]) + (", ..." if len(t.columns) > 8 else "")
        label = f"{t.name}: " if t.name else ""
        parts.append(f"{label}{rows} rows x {len(t.columns)} columns ({cols})")
    more = f" (+{len(prof.tables) - 4} more tables)" if len(prof.tables) > 4 else ""
    title = ""
    first = prof.tables[0]
    if first.title and first.header_row:
        title = f" titled '{first.title[:100]}'"
    n = len(prof.tables)
    head = f"{fmt} with {n} tables" if n > 1 else f"{fmt} table"
    prof.summary = f"{head}{title}: " + "; ".join(parts) + more
