"""Where the tables are in a grid of cells: title lines, header rows, data, footnotes.

Shared between the delimited-text and spreadsheet readers. Real files put titles and notes
above the header, units or a second header row under it, several tables one after the
other separated by blank rows, and sources/footnotes after the data. The grid is read
lazily, so a big file is only parsed where its structure can change: the head, the rows
around blank lines, and the end of each run of rows.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from datetime import date, datetime, time
from functools import cache, lru_cache
from typing import Any, Callable, Iterable, NamedTuple, Protocol, Sequence

from lakeboard.servers.profiling.column_stats import (generic_marker, limit_cell, marker_shaped, missing_phrase, unique_names,
                                                      value_text)
from lakeboard.servers.profiling.signed_numbers import signed_number
from lakeboard.servers.time_vocabulary import YEAR

EMPTY, VALUE, TEXT = 0, 1, 2

# Numbers as people write them in exported tables: 1,234  -5.2e3  (12)  $71M  41%  1 234
_NUMBER = re.compile(
    r"^[(\-+]?\s*[$€£¥]?\s*[-+]?(?:\d{1,3}(?:[,\u00a0 ']\d{3})+|\d+)?(?:[.,]\d+)?(?:[eE][-+]?\d+)?"
    r"\s*(?:%|[kKmMbB]n?)?\)?$"
)
_DATE = re.compile(
    r"^(?:\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}|\d{4}[-/]\d{1,2})(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(?:[AaPp][Mm])?.*)?$"
    r"|^\d{1,2}:\d{2}(?::\d{2})?(?:\s*[AaPp][Mm])?$"
)
_NA = frozenset({"na", "n/a", "nan", "null", "none", "-", "--", "#n/a", "n.a.", ".", "..", "...", "(x)", "(na)", "(d)"})
_YEAR_CELL = re.compile(rf"^{YEAR}$")
# First cells that label a summary of the rows above (a footer, not data); compared without case,
# spacing or trailing punctuation. Words that also name data ("All", "Other") are left out.
SUMMARY_WORDS = frozenset({
    "average", "averages", "avg", "mean", "means", "total", "totals", "grand total", "subtotal", "sum",
    "highest", "lowest", "max", "maximum", "min", "minimum", "median", "std", "std dev", "std. dev",
    "standard deviation", "count",
})
MAX_FOOTER_ROWS = 10
HEAD_PROBE = 60  # the first rows of a grid, where its header is looked for
MAX_NOTE_LINES = 200  # lines of notes under a table
_RULE_CELL = re.compile(r"[-=_~*]{3,}")
_NOTE_START = re.compile(r"^\s*(?:[*†‡§¹²³\d]\s|[*†‡§¹²³]|note|source|footnote|\(\w\)|\[\w+\])", re.IGNORECASE)


def cell_kind(value: Any) -> int:
    """EMPTY, VALUE (number, date, missing-value token) or TEXT."""
    if value is None:
        return EMPTY
    if type(value) is str:
        k = _KIND_CACHE.get(value)
        if k is None:
            k = _text_kind(value)
            if len(_KIND_CACHE) < 20000:
                _KIND_CACHE[value] = k
        return k
    if isinstance(value, float) and math.isnan(value):
        return EMPTY
    if isinstance(value, (int, float, datetime, date, time)):
        return VALUE
    if isinstance(value, str):
        return _text_kind(value)
    return TEXT


_KIND_CACHE: dict[str, int] = {}  # the same labels and codes recur on every row


def _text_kind(value: str) -> int:
    s = value.strip()
    if not s:
        return EMPTY
    if len(s) <= 5 and s.lower() in _NA:
        return VALUE
    c = s[0]
    if c.isdigit():  # holds a digit already: no need to look for one
        # Plain whole and decimal numbers, the usual cells, are what _NUMBER's \d+(.\d+)? matches.
        head, dot, tail = s.partition(".")
        if head.isdecimal() and not (dot and not tail.isdecimal()):
            return VALUE
        return VALUE if _NUMBER.match(s) or _DATE.match(s) else TEXT
    if c in "-+($€£¥." and (_NUMBER.match(s) or _DATE.match(s)) and any(ch.isdigit() for ch in s):
        return VALUE
    return TEXT


class RowInfo(NamedTuple):  # a tuple: built for every probed row, several times cheaper than a frozen dataclass
    kinds: tuple[int, ...]
    n: int
    n_text: int
    n_value: int

    @property
    def first_empty(self) -> bool:
        return not self.kinds or self.kinds[0] == EMPTY


def row_info(row: Sequence[Any]) -> RowInfo:
    kinds = tuple(map(cell_kind, row))
    # Trailing empties carry no structure (padded exports).
    end = len(kinds)
    while end and kinds[end - 1] == EMPTY:
        end -= 1
    kinds = kinds[:end]
    n_text = kinds.count(TEXT)
    n_value = kinds.count(VALUE)
    return RowInfo(kinds, n_text + n_value, n_text, n_value)


def agreement(a: RowInfo, b: RowInfo) -> float:
    """Share of non-empty positions where two rows hold the same kind of cell."""
    width = max(len(a.kinds), len(b.kinds))
    same = union = 0
    for j in range(width):
        ka = a.kinds[j] if j < len(a.kinds) else EMPTY
        kb = b.kinds[j] if j < len(b.kinds) else EMPTY
        if ka == EMPTY and kb == EMPTY:
            continue
        union += 1
        same += ka == kb
    return same / union if union else 0.0


class Grid(Protocol):
    """Rows of cells, parsed on demand."""

    def __len__(self) -> int: ...

    def is_blank(self, i: int) -> bool: ...

    def row(self, i: int) -> Sequence[Any]: ...


@dataclass
class Block:
    """One table found in the grid. Indices are grid row indices."""

    title_rows: list[int] = field(default_factory=list)
    header_rows: list[int] = field(default_factory=list)
    data_start: int = 0
    data_end: int | None = None  # inclusive; None: runs past the rows seen (to the end of the file)
    footnote_rows: list[int] = field(default_factory=list)
    footer_rows: list[int] = field(default_factory=list)  # summary rows under the data (totals, averages)
    names: list[str] | None = None  # combined names of a two-row header
    width: int = 0
    has_blank_rows: bool = False  # blank separator rows inside the data range
    repeated_headers: list[int] = field(default_factory=list)  # data rows that repeat the header (files joined)

    @property
    def header(self) -> int | None:
        return self.header_rows[-1] if self.header_rows else None


@dataclass
class _Segment:
    start: int
    end: int  # inclusive

    def __len__(self) -> int:
        return self.end - self.start + 1


@dataclass
class _SegmentLayout:
    titles: list[int]
    header_rows: list[int]
    names: list[str] | None
    data_start: int | None  # None: notes only
    data_end: int | None
    footnotes: list[int]
    strong_header: bool  # header found from structure (text over values), not by position


class _Analyzer:
    def __init__(self, grid: Grid, probe: int, head_probe: int) -> None:
        self.grid = grid
        self.probe = probe
        self.head_probe = head_probe
        self._info: dict[int, RowInfo] = {}
        self._kinds: dict[tuple[int, int | None], list[int]] = {}
        self.dense_min = 2
        self._value_columns: frozenset[int] | None = None
        self._marker_columns: frozenset[int] | None = None
        self._limit_columns: frozenset[int] | None = None

    def _adds_up(self, b: Block, i: int) -> bool:
        """Row `i` totals the data rows above it: one of its numbers is their column's sum (within
        0.5%, as rounding leaves it), in a column with at least two numbers above."""
        rows = [self.grid.row(r) for r in range(b.data_start, i)]
        for j, v in enumerate(self.grid.row(i)):
            total = signed_number(v)
            if total is None:
                continue
            above = [x for r in rows if j < len(r) and (x := signed_number(r[j])) is not None]
            if len(above) >= 2 and abs(sum(above) - total) <= 0.005 * max(abs(total), 1.0):
                return True
        return False

    def info(self, i: int) -> RowInfo:
        r = self._info.get(i)
        if r is None:
            row = self.grid.row(i)
            r = row_info(row)
            if r.n_text and (r.n_value or self.limit_columns() or self.value_columns()):
                # A missing marker ("M", "n.a.", "#VALUE!") among a row's values is a value too: such
                # a row is data, not a second header row. Only in rows that hold values, so a header
                # of short names ("x", "y") stays labels; a phrase no header holds ("not available")
                # in a column of values is one in any row (a first row of text and one gap). So is a
                # number under a limit ("<0.5") in a column that holds such limits on other rows
                # too: a header's "<5" (an age band) is not.
                r = _markers_as_values(r, row, self.marker_columns() if r.n_value else frozenset(),
                                       self.limit_columns(), self.value_columns())
            self._info[i] = r
        return r

    def limit_columns(self) -> frozenset[int]:
        """Columns where two rows or more of the grid's first rows hold a number under or over a limit."""
        if self._limit_columns is None:
            self._count_columns()
        return self._limit_columns

    def value_columns(self) -> frozenset[int]:
        """Columns whose filled cells are mostly values in the grid's first rows."""
        if self._value_columns is None:
            self._count_columns()
        return self._value_columns

    def marker_columns(self) -> frozenset[int]:
        """The columns of values, and those whose filled cells are all values but for marker-shaped
        ones and one label (their name): a code written among the values ("T", a trace; "M",
        missing) may be most of such a column. A column of "yes", "no", 1 and 0 is not one."""
        if self._marker_columns is None:
            self._count_columns()
        return self._marker_columns

    def _count_columns(self) -> None:
        """value_columns, marker_columns and limit_columns, in one pass over the grid's first rows."""
        kinds: dict[int, list[int]] = {}
        unmarked: dict[int, list[int]] = {}
        limits: dict[int, int] = {}
        for i in range(min(len(self.grid), self.head_probe + self.probe)):
            row = self.grid.row(i)
            for j, k in enumerate(row_info(row).kinds):
                if k != EMPTY:
                    marker = k == TEXT and isinstance(row[j], str) and marker_shaped(row[j])
                    if not marker:
                        unmarked.setdefault(j, [0, 0, 0])[k] += 1
                    if marker and generic_marker(row[j]):
                        continue  # a gap ("not available", "--") says nothing of what the column holds
                    kinds.setdefault(j, [0, 0, 0])[k] += 1
                    if k == TEXT and limit_cell(row[j]):
                        limits[j] = limits.get(j, 0) + 1
        self._value_columns = frozenset(j for j, c in kinds.items() if c[VALUE] > c[TEXT])
        self._marker_columns = self._value_columns | frozenset(
            j for j, c in unmarked.items() if c[VALUE] >= 2 and c[TEXT] <= 1)
        self._limit_columns = frozenset(j for j, n in limits.items() if n >= 2)

    def segments(self) -> list[_Segment]:
        n = len(self.grid)
        flags = getattr(self.grid, "blank", None)
        if flags is None:
            blanks = [i for i in range(n) if self.grid.is_blank(i)]
        elif not any(flags):  # the usual case, and any() tests bools faster than index() compares them
            blanks = []
        else:  # list.index scans in C: cheap when blank rows are few, as they usually are
            blanks, i = [], -1
            try:
                while True:
                    i = flags.index(True, i + 1)
                    blanks.append(i)
            except ValueError:
                pass
        segs: list[_Segment] = []
        start = 0
        for b in blanks + [n]:
            if b > start:
                segs.append(_Segment(start, b - 1))
            start = b + 1
        return segs

    def probe_rows(self, seg: _Segment, head: bool) -> list[int]:
        k = self.head_probe if head else self.probe
        if len(seg) <= 2 * k:
            return list(range(seg.start, seg.end + 1))
        return list(range(seg.start, seg.start + k)) + list(range(seg.end - self.probe + 1, seg.end + 1))

    def set_width(self, segs: list[_Segment]) -> int:
        ns: list[int] = []
        for seg in segs:
            head = range(seg.start, seg.start + min(len(seg), 25))
            tail = range(max(seg.start + 25, seg.end - self.probe + 1), seg.end + 1)
            for i in (*head, *tail):
                inf = self.info(i)
                if inf.n:
                    ns.append(inf.n)
        if not ns:
            return 0
        ns.sort()
        width = ns[min(len(ns) - 1, int(0.9 * len(ns)))]
        self.dense_min = 1 if width <= 1 else max(2, math.ceil(width * 0.5))
        return width

    # -- row predicates -------------------------------------------------------
    def dense(self, i: int) -> bool:
        return self.info(i).n >= self.dense_min

    def note_like(self, i: int, width: int) -> bool:
        return _note_line(self.info(i), self.grid.row(i), width)

    def trailing_note(self, i: int, width: int) -> bool:
        """After the data, any lone label in a table of 3+ columns is a note (source, citation...)."""
        inf = self.info(i)
        if width >= 3 and inf.n == 1 and inf.n_text == 1:
            return True
        return self.note_like(i, width)

    def year_header(self, i: int, nxt: int | None) -> bool:
        """A header whose labels are periods (wide tables by year, month or day): years or dates,
        values, but not data."""
        inf = self.info(i)
        row = self.grid.row(i)
        vals = [v for v, k in zip(row, inf.kinds) if k == VALUE]
        if self.column_numbers(i, nxt) or self.numbered_header(i, nxt):
            return True
        if not vals or inf.n_value < 2 or not all(_period_label(v) for v in vals):
            return False
        if nxt is None:
            return True
        below = self.grid.row(nxt)
        below_vals = [v for v, k in zip(below, self.info(nxt).kinds) if k == VALUE]
        return not all(_period_label(v) for v in below_vals)

    def column_numbers(self, i: int, nxt: int | None) -> bool:
        """Columns numbered 1, 2, 3 … over rows labelled in the first column (a plate reader's
        grid: 1 … 12 over rows A … H): a header, not a row of data."""
        inf = self.info(i)
        row = self.grid.row(i)
        corner = cell_text(row[0]) if row else ""  # empty, or a mark ("<>", Tecan's)
        if (nxt is None or inf.n_value < 3 or inf.n_text > (corner != "")
                or any(ch.isalnum() for ch in corner)):
            return False
        try:
            numbers = [float(cell_text(v)) for v, k in zip(self.grid.row(i), inf.kinds) if k == VALUE]
        except ValueError:
            return False
        return numbers == list(range(1, len(numbers) + 1)) and self.info(nxt).kinds[:1] == (TEXT,)

    def numbered_header(self, i: int, nxt: int | None) -> bool:
        """A label, then numbers in even steps naming the columns (registers 40001 … 40008, wavelengths
        400, 410, 420 …) over a row whose numbers are no such run: a header, not a row of data."""
        inf = self.info(i)
        if nxt is None or inf.n_value < 3 or inf.n_text != 1 or inf.kinds[:1] != (TEXT,):
            return False
        return _even_steps(self.grid.row(i), inf) and not _even_steps(self.grid.row(nxt), self.info(nxt))

    def coded_like_below(self, i: int, end: int) -> bool:
        """Every filled cell of row `i` holds a digit and is written like most cells under it
        ("AB000" over "AB001", "AB002"): a row of data, not labels."""
        below = self.probe_rows(_Segment(i + 1, end), False) if i < end else []
        row = self.grid.row(i)
        filled = [(j, cell_text(v)) for j, v in enumerate(row) if cell_text(v)]
        if len(below) < 2 or not filled:
            return False
        for j, text in filled:
            if not any(ch.isdigit() for ch in text):
                return False
            shapes = [_shape(cell_text(self.grid.row(k)[j])) for k in below if j < len(self.grid.row(k))]
            if shapes.count(_shape(text)) < 0.8 * len(below):
                return False
        return True

    # -- the end of a table ------------------------------------------------------
    def block_kinds(self, b: Block) -> list[int]:
        """Column kinds of a table's data, from its first and last rows (cached per table)."""
        key = (b.data_start, b.data_end)
        kinds = self._kinds.get(key)
        if kinds is None:
            end = b.data_end if b.data_end is not None else b.data_start
            head = range(b.data_start, min(end, b.data_start + self.probe) + 1)
            rows = {*head, *range(max(b.data_start, end - self.probe), end + 1)}
            kinds = self._kinds[key] = column_kinds(self.info(i) for i in sorted(rows) if not self.grid.is_blank(i))
        return kinds

    def continues(
        self, b: Block, seg: _Segment, lay: _SegmentLayout, width: int, first_header: tuple[str, ...] | None
    ) -> bool:
        """The rows of `seg` (after blank lines) are more rows of table `b`: each filled cell holds
        what its column holds, no row repeats the first header, and no lone label starts a row."""
        kinds = self.block_kinds(b)
        last = lay.data_end if lay.data_end is not None else seg.end
        rows = self.probe_rows(_Segment(seg.start, last), False)
        for i in rows:
            inf = self.info(i)
            if not inf.n:
                continue
            if inf.n == 1 and inf.n_text == 1 and inf.kinds[0] == TEXT:
                return False  # a title or a note over what follows
            if inf.n <= 2 and inf.kinds[0] == TEXT and cell_text(self.grid.row(i)[0]).endswith(":"):
                return False  # a "key: value" line ("End Time:;14.03.2021 10:23"), not a row
            if len(inf.kinds) > max(len(kinds), width) or fit(inf, kinds) < 0.8:
                return False
            if first_header is not None and tuple(str(v).strip() for v in self.grid.row(i)) == first_header:
                return False
        return True

    def written_as_below(self, i: int, start: int, stop: int) -> RowInfo:
        """Row i's kinds, a text cell that holds digits counted as a value where a cell of its
        column in rows [start, stop] is written the same way ("630308[495000-801000]" over
        "32924[30000-36000]", in a column that holds 0s too): a value written with marks, no label."""
        inf = self.info(i)
        row = self.grid.row(i)
        wanted = {j: _shape(cell_text(v)) for j, (v, k) in enumerate(zip(row, inf.kinds))
                  if k == TEXT and any(ch.isdigit() for ch in cell_text(v))}
        found = set()
        for r in range(start, stop + 1) if wanted else ():
            below = self.grid.row(r)
            found.update(j for j, shape in wanted.items() if j < len(below) and _shape(cell_text(below[j])) == shape)
        if not found:
            return inf
        kinds = tuple(VALUE if j in found else k for j, k in enumerate(inf.kinds))
        return RowInfo(kinds, inf.n, inf.n_text - len(found), inf.n_value + len(found))

    def rule_row(self, i: int) -> bool:
        """Row i is a rule: every filled cell dashes ("------", markdown's ":---:")."""
        row = self.grid.row(i)
        filled = [v for v in row if cell_kind(v) != EMPTY]
        return len(filled) >= 2 and all(_rule_cell(v) for v in filled)

    def index_names_row(self, i: int, start: int) -> bool:
        """Row i names the index alone (one label, in the first column) under a row of labels."""
        return (i - 1 >= start and self.info(i).n == 1 and self.info(i).kinds[:1] == (TEXT,)
                and self.group_labels(i - 1))

    def group_labels(self, i: int) -> bool:
        """Row i holds two labels or more, each text or a period ("2022"), and nothing else."""
        row = self.grid.row(i)
        return self.info(i).n >= 2 and all(cell_kind(v) in (EMPTY, TEXT) or _period_label(v) for v in row)

    def year_labels(self, i: int) -> bool:
        """Row i holds labels and years written as labels ("2022", "Percent Change"), a year at least."""
        cells = [v for v in self.grid.row(i) if cell_kind(v) != EMPTY]
        years = sum(bool(_YEAR_CELL.match(str(v).strip())) for v in cells)
        return years >= 1 and all(cell_kind(v) == TEXT or _YEAR_CELL.match(str(v).strip()) for v in cells)

    def detached_header(self, pending: list[int], seg: _Segment, lay: _SegmentLayout,
                        width: int) -> tuple[list[int], list[str] | None] | None:
        """The header of `seg`'s data when blank lines part them, as (its rows, its names when two
        rows make them): the last line before the blank lines, of distinct labels over most
        columns, some of them over columns of values; or that line under a line of groups it
        tells apart ("Commenced, Terminated" over "2022, 2023, 2022, 2023")."""
        if lay.header_rows or lay.titles or lay.data_start is None or not pending:
            return None
        h = pending[-1]
        if any(not self.grid.is_blank(i) for i in range(h + 1, seg.start)):
            return None
        data = self.probe_rows(_Segment(lay.data_start, lay.data_end or seg.end), False)
        kinds = column_kinds(self.info(i) for i in data)
        top = h - 1
        if (top in pending and self.group_labels(top) and self.group_labels(h)
                and _tells_apart(self.grid.row(top), self.grid.row(h))):
            names = combine_header_rows(self.grid.row(top), self.grid.row(h))
            over_values = sum(1 for j, n in enumerate(names) if n and j < len(kinds) and kinds[j] == VALUE)
            return ([top, h], names) if over_values and len([n for n in names if n]) >= 0.6 * width else None
        inf = self.info(h)
        labels = [t for v in self.grid.row(h) if (t := cell_text(v))]
        if inf.n_value or inf.n < 2 or inf.n < 0.6 * width or len(set(labels)) < len(labels):
            return None
        over_values = sum(1 for j, k in enumerate(inf.kinds) if k == TEXT and j < len(kinds) and kinds[j] == VALUE)
        return ([h], None) if over_values else None

    def find_footers(self, b: Block) -> None:
        """Summary rows at the end of a table's data (Total, Average, Highest ...) become its footer."""
        if b.data_end is None or b.data_end <= b.data_start:
            return
        n_data = b.data_end - b.data_start + 1
        keep = b.data_start + max(1, n_data // 2)  # the data keeps at least half its rows
        kinds = column_kinds(
            self.info(i) for i in range(b.data_start, min(keep, b.data_start + self.probe)) if not self.grid.is_blank(i)
        )
        # a label that also heads rows in the data ("Total" under each state) labels subtotals, not a footer
        inner = {_row_label(self.grid.row(i)) for i in range(b.data_start, min(keep, b.data_start + self.probe))}
        end = b.data_end
        run: list[tuple[int, bool]] = []  # (row, a summary word labels it) from the bottom up
        while end >= keep and len(run) < MAX_FOOTER_ROWS:
            if self.grid.is_blank(end):
                end -= 1
                continue
            if _row_label(self.grid.row(end)) in inner:
                break
            strong = _footer_row(self.info(end), self.grid.row(end), kinds, lambda i=end: self._adds_up(b, i))
            if not strong and not _spread_row(self.info(end), self.grid.row(end)):
                break
            run.append((end, strong))
            end -= 1
        # a spread ("SD", "SEM") is a footer only under a summary row ("Mean" over "SD"): alone at
        # the end of a table it may be data (a state's code)
        top = max((k for k, (_, strong) in enumerate(run) if strong), default=-1)
        footers = sorted(i for i, _ in run[: top + 1])
        if footers:
            end = footers[0] - 1
            while end > b.data_start and self.grid.is_blank(end):
                end -= 1
            b.footer_rows = footers + b.footer_rows
            b.data_end = end
            if b.has_blank_rows:  # the blank rows may have been those above the footer
                b.has_blank_rows = any(self.grid.is_blank(i) for i in range(b.data_start, end + 1))

    # -- one run of non-blank rows ----------------------------------------------
    def sparse_wide_header(self, rows: list[int], end: int) -> int | None:
        """A row of distinct labels filling every one of its 8 fields or more, over rows of as many
        fields that leave most of them empty: the header of a wide, sparse table (a hospital's
        price list, a payer a column), whose rows are never dense enough to start the data."""
        for i in rows:
            if i >= end:
                return None
            row, inf = self.grid.row(i), self.info(i)
            fields = len(row)
            if fields < 8 or inf.n != fields or inf.n_value or len({cell_text(v) for v in row}) != fields:
                continue
            below = [j for j in range(i + 1, min(end, i + 10) + 1)]
            if len(below) >= 3 and all(len(self.grid.row(j)) == fields and 2 <= self.info(j).n < 0.8 * fields
                                       for j in below):
                return i
        return None

    def numbered_row(self, i: int) -> bool:
        """Row i holds a number of several cells, and not a year: a row of data (a household's
        first, with its schedule number), no header or title."""
        inf = self.info(i)
        return inf.n >= 2 and any(k == VALUE and not _period_label(v) for v, k in zip(self.grid.row(i), inf.kinds))

    def index_header(self, i: int, d: int) -> bool:
        """",sales" over "2020-01-01,0.47": a one-column frame written with its unnamed index
        (pandas' to_csv), whose header has one name and the index's empty cell."""
        inf = self.info(i)
        if inf.kinds[:1] != (EMPTY,) or inf.kinds[1:] != (TEXT,) or len(self.info(d).kinds) != 2:
            return False
        return len(str(self.grid.row(i)[1]).split()) <= 3

    def layout_segment(self, seg: _Segment, first: bool, width: int) -> _SegmentLayout:
        rows = self.probe_rows(seg, first)
        head_rows = rows[: self.head_probe if first else self.probe]
        # Footnotes: prose lines at the end of the run, past the rows probed while they go on
        # (CDC WONDER's query notes are 20 lines and more).
        end = seg.end
        footnotes: list[int] = []
        while end > seg.start and len(footnotes) < MAX_NOTE_LINES and self.trailing_note(end, width):
            footnotes.insert(0, end)
            end -= 1
        if first and (h := self.sparse_wide_header(head_rows, end)) is not None:
            return _SegmentLayout(list(range(seg.start, h)), [h], None, h + 1, end, footnotes, True)
        # Start of the data: the first dense row that agrees in kind with the next one
        # (rows are parsed only as far as this search goes).
        dense_rows: list[int] = []
        d = None
        for i in head_rows:
            if i > end:
                break
            if not self.dense(i):
                continue
            dense_rows.append(i)
            if i == end or agreement(self.info(i), self.info(i + 1)) >= 0.8:
                d = i
                break
        if d is not None and self.info(d).n_value == 0:
            # labels over labels (a header, then its units) agree in kind too: the data
            # starts at the row of values under them, when one follows at once
            for i in (d + 1, d + 2, d + 3):  # names, units and how each was sampled: three rows
                if i < end and self.dense(i) and self.info(i).n_value and agreement(self.info(i), self.info(i + 1)) >= 0.8:
                    d = i
                    break
        if not dense_rows:
            return _SegmentLayout(list(range(seg.start, seg.end + 1)), [], None, None, None, [], False)
        if d is None:
            d = dense_rows[-1]
        run_text_only = all(self.info(i).n_value == 0 for i in range(d, min(end, d + self.probe) + 1))

        if run_text_only:
            if d == end and d == dense_rows[0]:
                # A single line of labels and nothing under it: treat as notes.
                return _SegmentLayout(list(range(seg.start, seg.end + 1)), [], None, None, None, [], False)
            # Sparse rows of labels agree too little to start the run: its header is the first
            # row of several labels above them.
            while d - 1 >= seg.start and self.info(d - 1).n >= 2 and self.info(d - 1).n_value == 0:
                d -= 1
            if d - 1 >= seg.start and self.column_numbers(d - 1, d):
                d -= 1  # columns numbered over rows of labels (a plate's layout of samples)
            titles = list(range(seg.start, d))
            if self.coded_like_below(d, end):  # a list of codes: its first code is no header
                return _SegmentLayout(titles, [], None, d, end, footnotes, False)
            top = d - 1
            if top >= seg.start and self.group_labels(top) and _tells_apart(self.grid.row(top), self.grid.row(d)):
                # years or groups over repeated names ("2022" over "Revenue, Cost"): two header rows
                names = combine_header_rows(self.grid.row(top), self.grid.row(d))
                return _SegmentLayout(titles[:-1], [top, d], names, d + 1, end, footnotes, False)
            return _SegmentLayout(titles, [d], None, d + 1, end, footnotes, False)

        # Walk back over rows above that are data too (a first row with a missing cell; sparse
        # rows, whose filled cells hold what their columns hold).
        last_probed = min(end, d + self.probe)
        while d - 1 >= seg.start:
            p, cur = self.info(d - 1), self.info(d)
            kinds = column_kinds(self.info(i) for i in range(d, min(last_probed, d + self.probe) + 1))
            # an empty first cell marks a header over labelled rows, not over rows that leave it empty too
            if ((p.n >= 2 and (not p.first_empty or cur.first_empty) and _data_like(self.written_as_below(d - 1, d, last_probed),
                                                               self.written_as_below(d, d + 1, last_probed))) or (
                _sparse_data_like(p, kinds) and not self.year_header(d - 1, d)
            )) and not self.index_names_row(d - 1, seg.start):
                if self.year_header(d - 1, d) and (d - 2 < seg.start or not self.dense(d - 2)):
                    break
                d -= 1
            else:
                break

        header_rows: list[int] = []
        names: list[str] | None = None
        strong = False
        r1 = d - 1
        ruled = r1 - 1 >= seg.start and self.rule_row(r1) and self.info(r1 - 1).n >= 2
        if ruled:
            r1 -= 1  # a rule of dashes under the header (VizieR's TSV: names, units, dashes)
        if self.index_names_row(r1, seg.start):
            # pandas' row of index names under its header (a pivot table, columns of two levels)
            r0 = r1 - 2
            if r0 >= seg.start and self.group_labels(r0) and _tells_apart(self.grid.row(r0), self.grid.row(r1 - 1)):
                header_rows, names = [r0, r1 - 1], _combined(self.grid.row(r0), self.grid.row(r1 - 1))
            else:
                header_rows, names = [r1 - 1], [_label(v) if cell_kind(v) != EMPTY else "" for v in self.grid.row(r1 - 1)]
            names[0] = _label(self.grid.row(r1)[0])
            names = unique_names([n or f"column_{j}" for j, n in enumerate(names)])
            header_rows.append(r1)
            strong = True
        elif r1 >= seg.start and (self.info(r1).n >= 2 or (width <= 1 and self.info(r1).n_text)
                                  or self.index_header(r1, d)):
            i1, idata = self.info(r1), self.info(d)
            complete = i1.n >= 0.6 * idata.n
            # labels, or years as labels over the columns they head ("Region, 2017, 2018, 2021 [note 2]")
            text_dom = i1.n_text > i1.n_value or (i1.n_text > 0 and self.year_header(r1, d))
            r0 = r1 - 1
            has_r0 = r0 >= seg.start and self.info(r0).n >= 2 and self.info(r0).n_text >= 1
            r0_labels = has_r0 and self.info(r0).n_value == 0 and self.info(r0).n >= 0.6 * idata.n
            spans = (has_r0 and (self.info(r0).n_value == 0 or self.group_labels(r0))
                     and _tells_apart(self.grid.row(r0), self.grid.row(r1)))  # groups or years over repeated names
            under = r0_labels and (i1.first_empty or units_like(self.grid.row(r1)))  # units under the names
            if r0_labels and _field_definitions(self.grid.row(r1)):
                header_rows = [r0, r1]  # the names, then each field's width and type: no name's part
                names = unique_names([_label(v) for v in self.grid.row(r0)])
            elif text_dom and complete and not under and not spans:
                header_rows = [r1]
            elif has_r0:
                header_rows = [r0, r1]
                names = combine_header_rows(self.grid.row(r0), self.grid.row(r1))
                top = r0 - 1
                if (top >= seg.start and self.info(top).n_value == 0 and self.info(top).n >= 0.6 * idata.n
                        and units_like(self.grid.row(r0))):  # names over units over a row of qualifiers
                    header_rows = [top, r0, r1]
                    names = unique_names(_combined(_combined(self.grid.row(top), self.grid.row(r0)), self.grid.row(r1)))
            elif text_dom or i1.first_empty:
                header_rows = [r1]
            strong = bool(header_rows)
        if ruled and header_rows and names is None:  # read by names: the rule is no row of data
            names = unique_names([_label(v) if cell_kind(v) != EMPTY else f"Unnamed: {j}"
                                  for j, v in enumerate(self.grid.row(header_rows[-1]))])
        if not header_rows and self.year_header(d, d + 1 if d < end else None):
            header_rows = [d]
            d += 1
            strong = True
        if header_rows and d <= end and end - d < 2 and all(self.year_labels(i) for i in range(d, end + 1)):
            # labels over years, and nothing under them ("Commenced, Terminated" over "2022, 2023"):
            # a header whose data come after blank lines (`detached_header`), not a table of its own
            return _SegmentLayout(list(range(seg.start, seg.end + 1)), [], None, None, None, [], False)
        titles = list(range(seg.start, header_rows[0] if header_rows else d))
        return _SegmentLayout(titles, header_rows, names, d, end, footnotes, strong)


def _even_steps(row: Sequence[Any], inf: RowInfo) -> bool:
    """The row's numbers rise in one step: 40001, 40002, 40003 …"""
    try:
        numbers = [float(cell_text(v)) for v, k in zip(row, inf.kinds) if k == VALUE]
    except ValueError:
        return False
    steps = {round(b - a, 9) for a, b in zip(numbers, numbers[1:])}
    return len(numbers) >= 3 and len(steps) == 1 and steps.pop() > 0


def _period_label(v: Any) -> bool:
    """A year (2024, "2024", 2024.0) or a date (a sheet's date cell, "2024-01", "1/31/2024")."""
    if isinstance(v, (datetime, date)):
        return True
    text = str(v).strip()
    year = _YEAR_CELL.match(text.split(".")[0]) and ("." not in text or text.endswith(".0"))
    return bool(year) or (isinstance(v, str) and bool(_DATE.match(text)))


def _note_line(inf: RowInfo, row: Sequence[Any], width: int) -> bool:
    """A line of prose in a table that is wider than one column (title, note, source)."""
    if width <= 1 or inf.n != 1 or inf.n_text != 1:
        return False
    text = next(str(v) for v in row if cell_kind(v) != EMPTY).strip()
    # a rule ("---", "=====") parts a table from what follows it, a heading ("Query Parameters:")
    # introduces lines that are no rows (CDC WONDER's query notes)
    return (len(text) >= 20 or len(text.split()) >= 3 or bool(_NOTE_START.match(text)) or bool(_RULE_CELL.fullmatch(text))
            or (text.endswith(":") and any(ch.isalpha() for ch in text)))


def _markers_as_values(inf: RowInfo, row: Sequence[Any], marker_columns: frozenset[int],
                       limit_columns: frozenset[int], value_columns: frozenset[int]) -> RowInfo:
    """`inf` with marker-shaped text cells in `marker_columns` counted as values, as are phrases that
    say "missing" in the columns of values, and numbers under a limit in the columns of values that
    hold such limits."""
    kinds = list(inf.kinds)
    changed = 0
    for j, k in enumerate(kinds):
        if k == TEXT and isinstance(row[j], str) and (
                (j in marker_columns and marker_shaped(row[j]))
                or (j in value_columns and missing_phrase(row[j]))
                or (j in limit_columns and j in value_columns and limit_cell(row[j]))):
            kinds[j] = VALUE
            changed += 1
    if not changed:
        return inf
    return RowInfo(tuple(kinds), inf.n, inf.n_text - changed, inf.n_value + changed)


def _data_like(p: RowInfo, cur: RowInfo) -> bool:
    """Row p (above cur) is data too: it holds values, and no label sits over a column of values."""
    if not p.n_value or agreement(p, cur) < 0.5:
        return False
    for j, k in enumerate(cur.kinds):
        if k == VALUE and j < len(p.kinds) and p.kinds[j] == TEXT:
            return False
    return True


def column_kinds(infos: Iterable[RowInfo]) -> list[int]:
    """The kind most filled cells of each column hold (EMPTY where none is filled)."""
    counts: list[list[int]] = []
    for inf in infos:
        for j, k in enumerate(inf.kinds):
            if k != EMPTY:
                while len(counts) <= j:
                    counts.append([0, 0, 0])
                counts[j][k] += 1
    return [EMPTY if not (c[VALUE] or c[TEXT]) else VALUE if c[VALUE] >= c[TEXT] else TEXT for c in counts]


def fit(inf: RowInfo, kinds: Sequence[int]) -> float:
    """Share of the row's filled cells that hold the kind of their column, or sit in a column of
    unknown kind (no filled cell seen); 1.0 for an empty row."""
    same = sum(1 for j, k in enumerate(inf.kinds) if k != EMPTY and (j >= len(kinds) or kinds[j] in (k, EMPTY)))
    return same / inf.n if inf.n else 1.0


def _sparse_data_like(p: RowInfo, kinds: Sequence[int]) -> bool:
    """A sparse row of data: some values, and every filled cell of the kind its column holds
    (a header's labels sit over columns of values)."""
    return p.n_value >= 1 and fit(p, kinds) == 1.0


def combine_header_rows(top: Sequence[Any], bottom: Sequence[Any]) -> list[str]:
    """Names for a two-row header: a spanning label above sub-labels ("Estimate" over 2020, 2021)."""
    return unique_names(_combined(top, bottom))


def _combined(top: Sequence[Any], bottom: Sequence[Any]) -> list[str]:
    width = max(len(top), len(bottom))
    names: list[str] = []
    carry = ""
    for j in range(width):
        t = top[j] if j < len(top) else None
        b = bottom[j] if j < len(bottom) else None
        t_s = "" if cell_kind(t) == EMPTY or _rule_cell(t) else _label(t)
        b_s = "" if cell_kind(b) == EMPTY or _rule_cell(b) else _label(b)
        if t_s:
            carry = t_s
        elif b_s and carry:
            t_s = carry  # the top label spans the columns to its right
        names.append(" ".join(dict.fromkeys(p for p in (t_s, b_s) if p)) or f"column_{j}")  # "Line" over "Line": once
    return names


_RULE_CELL = re.compile(r"^\s*:?[-=_]{3,}:?\s*$")  # "-----", markdown's ":---:"


def _rule_cell(v: Any) -> bool:
    """A cell that rules the header off from the data: no part of a name."""
    return isinstance(v, str) and bool(_RULE_CELL.match(v))


def _tells_apart(top: Sequence[Any], bottom: Sequence[Any]) -> bool:
    """`top` is a row of group labels over repeated `bottom` labels (site names over the same
    measures, each written once over its columns): combined, the repeated names become distinct."""
    labels = [cell_text(v) for v in bottom]
    filled = [t for t in labels if t]
    if len(set(filled)) == len(filled):
        return False
    combined = _combined(top, bottom)
    repeated = {t for t in filled if filled.count(t) > 1}
    groups = [c for c, t in zip(combined, labels) if t in repeated]
    return len(set(groups)) == len(groups)


# RDB's width and type ("5s", "14n"), or a type as databases and dataframes name it ("int", "varchar(20)", "float64")
_FIELD_DEFINITION = re.compile(
    r"^(?:\d+[sdn]|(?:u?int|integer|bigint|smallint|tinyint|long|short|float|double|real|decimal|numeric|number|string|"
    r"str|text|char|varchar|nvarchar|date|datetime|timestamp|time|bool|boolean|object|category|categorical)"
    r"(?:8|16|32|64)?(?:\s*\(\s*\d+(?:\s*,\s*\d+)?\s*\))?)$", re.IGNORECASE)


_KEYED_ID = re.compile(r"^([A-Za-z][\w]*):\d*$")
_NUMERIC_TYPE = re.compile(r"^(?:\d+n|(?:u?int|integer|bigint|smallint|tinyint|long|short|float|double|real|decimal|numeric|"
                           r"number)(?:8|16|32|64)?(?:\s*\(\s*\d+(?:\s*,\s*\d+)?\s*\))?)$", re.IGNORECASE)


def declared_numeric(grid: Grid, b: Block) -> frozenset[int]:
    """The positions of the fields a row of field types among the block's header rows declares
    numbers ("14n" in an RDB file, "float" in a database export)."""
    for r in b.header_rows:
        row = grid.row(r)
        if _field_definitions(row):
            return frozenset(j for j, v in enumerate(row) if _NUMERIC_TYPE.match(cell_text(v).strip()))
    return frozenset()


def _field_definitions(row: Sequence[Any]) -> bool:
    """A row of field types under a header: RDB's widths and types ("5s", "14n", "20d"), or a
    database export's ("int", "varchar(20)", "float")."""
    filled = [cell_text(v) for v in row if cell_kind(v) != EMPTY]
    if filled and filled[0].startswith("#"):  # a directive naming the row ("#q2:types", QIIME 2's metadata)
        filled = filled[1:]
    if len(filled) < 2:
        return False
    ids = [_KEYED_ID.match(t) for t in filled]
    if all(ids) and len({m.group(1) for m in ids}) == 1:
        return True  # each field's id in a registry, under one key ("CDE_ID:2003301", TCGA's clinical files)
    return all(_FIELD_DEFINITION.match(t) for t in filled)


_UNIT_MARK = re.compile(r"[/%°()\[\]^µ]")
# what is given to the unit parser: no operator that raises to a power ("9**9**9" would never end)
_UNIT_TEXT = re.compile(r"^[^\W\d_][\w .µ°Ω-]{0,15}$")


@cache
def _unit_registry():
    import pint  # only where two rows of labels head a table

    return pint.UnitRegistry(cache_folder=None)


@lru_cache(maxsize=4096)
def _unit(text: str) -> bool:
    """Written as units are: with a mark ("m3/s", "%", "(ppm)"), or a unit pint knows ("degC", "hPa")."""
    if _UNIT_MARK.search(text):
        return True
    if not _UNIT_TEXT.match(text):
        return False
    try:
        _unit_registry().parse_units(text)
    except Exception:  # noqa: BLE001 - pint raises several kinds for text that names no unit
        return False
    return True


def units_like(row: Sequence[Any]) -> bool:
    """A row of short labels, two thirds of them units, under a row that names them: they join its
    names ("temperature degC"). Other short labels under a row of labels are a header under a title
    split at its commas ("Readings, provisional" over "date, pm25")."""
    filled = [cell_text(v) for v in row if cell_kind(v) != EMPTY]
    return (len(filled) >= 2 and all(len(t) <= 16 and len(t.split()) <= 2 for t in filled)
            and sum(map(_unit, filled)) >= 2 / 3 * len(filled))


def _shape(text: str) -> str:
    """How a cell is written: runs of letters as "a", of digits as "9" ("AB-012" -> "a-9")."""
    return re.sub(r"[^\W\d_]+", "a", re.sub(r"\d+", "9", text))


def _label(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return " ".join(str(v).split())


class ColumnSlice:
    """Columns [start, stop) of a grid (to its end for None), as a grid of their own (a table set
    beside another)."""

    def __init__(self, grid: Grid, start: int, stop: int | None) -> None:
        self.grid, self.start, self.stop = grid, start, stop
        self.blank = [all(cell_kind(v) == EMPTY for v in self.row(i)) for i in range(len(grid))]

    def __len__(self) -> int:
        return len(self.grid)

    def is_blank(self, i: int) -> bool:
        return self.blank[i]

    def row(self, i: int) -> Sequence[Any]:
        return self.grid.row(i)[self.start:self.stop]


def empty_leading_columns(grid: Grid, b: Block) -> int:
    """How many columns on the left of block `b` are empty in its header and every data row (a
    sheet's table that starts in column C)."""
    if b.header is None:
        return 0
    header = grid.row(b.header)
    j = 0
    while j < len(header) - 1 and cell_kind(header[j]) == EMPTY and not any(
            _filled(grid, i, j, j + 1) for i in _data_rows(grid, b)):
        j += 1
    return j


def _data_rows(grid: Grid, b: Block) -> range:
    return range(b.data_start, (b.data_end if b.data_end is not None else len(grid) - 1) + 1)


def _filled(grid: Grid, i: int, start: int, stop: int) -> bool:
    """Row `i` holds something in columns [start, stop)."""
    return any(cell_kind(v) != EMPTY for v in grid.row(i)[start:stop])


def side_by_side(grid: Grid, b: Block) -> list[tuple[int, int]]:
    """The column ranges [start, stop) of tables set side by side in block `b`, apart by empty
    columns (a paper's supplementary sheet: genes on the left, proteins on the right); [] for one table.

    Each part has two columns or more and a name over every column. An empty column inside one
    table (a spacer between groups of measures of the same rows) is not a split: the parts must
    end on different rows, or each start with a column of labels (its own key).
    """
    if b.header is None or b.names:
        return []
    header = grid.row(b.header)
    named = [cell_kind(v) != EMPTY for v in header]
    while named and not named[-1]:
        named.pop()
    gaps = [j for j in range(len(named)) if not named[j]]
    if not gaps:  # the common case: a name over every column, decided without reading the data
        return []
    data = _data_rows(grid, b)
    if any(_filled(grid, i, j, j + 1) for j in gaps for i in data):
        return []  # a column without a name holds data: one table, an unnamed column
    parts, start = [], None
    for j, f in enumerate([*named, False]):
        if f and start is None:
            start = j
        elif not f and start is not None:
            parts.append((start, j))
            start = None
    if len(parts) < 2 or any(z - a < 2 for a, z in parts):
        return []

    def last_row(a: int, z: int) -> int:
        return next((i for i in reversed(data) if _filled(grid, i, a, z)), -1)

    def keyed(a: int) -> bool:
        cells = [v for i in data[:200] if a < len(r := grid.row(i)) and cell_kind(v := r[a]) != EMPTY]
        return bool(cells) and sum(cell_kind(v) == TEXT for v in cells) >= 0.8 * len(cells)

    if len({last_row(a, z) for a, z in parts}) > 1 or all(keyed(a) for a, _ in parts):
        return parts
    return []


def find_blocks(grid: Grid, *, complete: bool = True, probe: int = 12, head_probe: int = HEAD_PROBE) -> list[Block]:
    """Tables in the grid, top to bottom. `complete`: the grid holds the whole source."""
    an = _Analyzer(grid, probe, head_probe)
    segs = an.segments()
    if not segs:
        return []
    width = an.set_width(segs)
    blocks: list[Block] = []
    pending: list[int] = []  # note rows not yet attached to a block
    cur: Block | None = None
    first_header_text: tuple[str, ...] | None = None

    for seg in segs:
        lay = an.layout_segment(seg, cur is None, width)
        # (a segment with a header of its own starts a table: key/value lines over a blank line over it
        # were a header-only block that its rows "continued"; unless a row taken for its title or header
        # holds a number no title or header holds, as a group's first row does: a census household)
        if (cur is not None and cur.data_end is not None
                and (not lay.strong_header or any(map(an.numbered_row, lay.titles + lay.header_rows)))
                and an.continues(cur, seg, lay, width, first_header_text)):
            # Rows after blank lines that fit the table's columns, with no header of their own:
            # the table goes on (a sparse table has rows of empty cells). A header with no rows
            # yet (an empty row of index names under it, as pandas writes one) starts its data here.
            if cur.data_start > cur.data_end:
                cur.data_start = seg.start
            else:
                cur.has_blank_rows = True
            cur.data_end = lay.data_end if lay.data_end is not None else seg.end
            cur.footnote_rows = list(lay.footnotes) if lay.data_end is not None else []
            pending = []
            continue
        if lay.data_start is None:
            pending.extend(lay.titles)
            continue
        detached = an.detached_header(pending, seg, lay, width)
        if detached is not None:
            # A header (a line, or groups over names), then blank lines, then its data: the table starts at the header.
            rows, names = detached
            for r in rows:
                pending.remove(r)
            lay = dataclasses.replace(lay, header_rows=rows, names=names, strong_header=True)
        header_text = tuple(str(v).strip() for v in grid.row(lay.header_rows[-1])) if lay.header_rows else None
        starts_new = (
            cur is None
            or lay.strong_header
            or (lay.header_rows and (lay.titles or header_text == first_header_text))
        )
        if not starts_new and cur is not None and cur.data_end is not None:
            # Rows after blank lines continue the table only if they look like its rows.
            new_rows = range(lay.data_start, min(lay.data_start + 3, (lay.data_end or lay.data_start) + 1))
            old_rows = range(max(cur.data_start, cur.data_end - 2), cur.data_end + 1)
            best = max((agreement(an.info(a), an.info(b)) for a in new_rows for b in old_rows), default=0.0)
            starts_new = best < 0.8
        if starts_new:
            if cur is not None:
                cur.footnote_rows.extend(pending)
                pending = []
                blocks.append(cur)
            cur = Block(
                title_rows=pending + lay.titles,
                header_rows=lay.header_rows,
                data_start=lay.data_start,
                data_end=lay.data_end,
                footnote_rows=list(lay.footnotes),
                names=lay.names,
                has_blank_rows=detached is not None,
            )
            if first_header_text is None:
                first_header_text = header_text
            pending = []
        else:
            # More rows of the current table after blank lines (notes in between stay in the data).
            assert cur is not None
            cur.has_blank_rows = True
            cur.footnote_rows = list(lay.footnotes)
            cur.data_end = lay.data_end
            pending = []
    if cur is not None:
        cur.footnote_rows.extend(pending)
        blocks.append(cur)
    if not complete and blocks:
        # The source goes on past the rows seen: the last table's end is not known here.
        blocks[-1].data_end = None
        blocks[-1].footnote_rows = []

    for b in blocks:
        b.width = max((an.info(i).n for i in b.header_rows), default=0) or an.info(b.data_start).n
        if b.data_end is not None and b.data_end < b.data_start:
            b.data_end = b.data_start - 1  # header only
    blocks = _merge_small_leading_blocks(blocks, grid)
    for b in blocks:
        an.find_footers(b)
        _skip_column_numbers(grid, b)
    return _fold_trailing_summary(blocks, an)


_COLUMN_NUMBER = re.compile(r"^[(\[]\d{1,3}[)\]]$")


def _skip_column_numbers(grid: Grid, b: Block) -> None:
    """A row that numbers the columns under the header ("(1)", "(2)" … as statistical tables
    print them, IRS SOI's): neither names nor data. The names are the header's; the row is skipped."""
    if b.header is None or b.data_end is not None and b.data_end <= b.data_start:
        return
    cells = [cell_text(v) for v in grid.row(b.data_start) if cell_kind(v) != EMPTY]
    if len(cells) < 2 or not all(_COLUMN_NUMBER.match(c) for c in cells):
        return
    if not b.names:
        b.names = unique_names([cell_text(v) or f"Unnamed: {j}" for j, v in enumerate(grid.row(b.header))])
    b.data_start += 1


def summary_label(v: Any, words: frozenset[str] = SUMMARY_WORDS) -> bool:
    """A cell that labels a summary of the rows above it: "Total", "Average:", "MAX." ... (or one
    of other `words`), compared without case, spacing or trailing punctuation."""
    if not isinstance(v, str) or len(v) > 24:
        return False
    return " ".join(v.lower().split()).rstrip(" :.*=") in words


def _footer_row(inf: RowInfo, row: Sequence[Any], kinds: Sequence[int], adds_up: Callable[[], bool]) -> bool:
    """A summary row under a table: its first cell is a summary word, or a label without digits
    in a column of values whose numbers add up the rows above it ("United States" under states).
    (An "Avg 1991-2020" under years has a summary word; a "2021p" is data; a last row named
    otherwise than the codes above it, whose numbers are its own, is data: a transit feed's
    station under its stops.)"""
    # The table's first column: sheets may leave the columns left of a table empty.
    j = next((j for j, k in enumerate(kinds) if k != EMPTY), 0)
    if not inf.n or _first_filled(inf) != j or inf.kinds[j] != TEXT:
        return False
    first = row[j]
    if summary_label(first):
        return True
    if kinds[j] != VALUE or inf.n_value < 1 or any(ch.isdigit() for ch in str(first)):
        return False
    return bool(_SUMMARY_WORD_SET & label_words(str(first))) or adds_up()


_SUMMARY_WORD_SET = frozenset(w for w in SUMMARY_WORDS if " " not in w) - {"count", "sum"}


def label_words(text: str) -> set[str]:
    """The lower-case words of a label ("Date/Time Ordered" -> date, time, ordered)."""
    return set(re.findall(r"[a-z]+", text.lower()))


_SPREAD_WORDS = frozenset({"sd", "s.d", "stdev", "st dev", "sem", "s.e.m", "se", "cv", "cv %", "cv%"})


_TOTAL_WORDS = frozenset({"total", "totals", "subtotal", "subtotals"})
MAX_TOTALS_NOTED = 8


def totals_among_rows(grid: Grid, b: Block, stop: int) -> str | None:
    """A note naming the rows among a table's data that total others ("Statewide Total", "Eastern
    Area subtotal", "U.S. total"): kept as data, they double a sum over the column. Only where the
    first column labels its rows one by one (a dimension whose "Total" is one of its categories,
    as long tables repeat it, is no such row) and the totals are a few of them."""
    labels: list[tuple[int, str, bool]] = []  # (row, its first cell, it holds a number)
    for i in range(b.data_start, stop):
        if not grid.is_blank(i):
            row = grid.row(i)
            first = next((cell_text(v) for v in row if cell_kind(v) != EMPTY), "")
            labels.append((i, first, any(cell_kind(v) == VALUE for v in row)))
    texts = [t for _, t, _ in labels if t]
    if len(texts) < 5 or len(set(texts)) < 0.9 * len(texts):
        return None
    # words, not a variable's name ("total_fire_region" in a list of variables)
    totals = [(i, t) for i, t, valued in labels
              if valued and "_" not in t and _TOTAL_WORDS & label_words(t)]
    if not totals or len(totals) > 0.1 * len(labels):
        return None
    shown = "; ".join(f"{value_text(t, 60)!r} (row {i - b.data_start + 1})" for i, t in totals[:MAX_TOTALS_NOTED])
    more = f" and {len(totals) - MAX_TOTALS_NOTED} more" if len(totals) > MAX_TOTALS_NOTED else ""
    return (f"rows that total others, kept as data: {shown}{more}; leave them out before summing a column")


def _spread_row(inf: RowInfo, row: Sequence[Any]) -> bool:
    """A row labelled by a measure of spread ("SD", "SEM", "CV %"), under a summary row."""
    j = _first_filled(inf)
    return j >= 0 and inf.kinds[j] == TEXT and inf.n_value >= 1 and summary_label(row[j], _SPREAD_WORDS)


def _row_label(row: Sequence[Any]) -> str:
    """The first filled cell of a row, as text without case or spacing ("" for a blank row)."""
    return next((" ".join(str(v).split()).lower() for v in row if cell_kind(v) != EMPTY), "")


def _first_filled(inf: RowInfo) -> int:
    return next((j for j, k in enumerate(inf.kinds) if k != EMPTY), -1)


def _fold_trailing_summary(blocks: list[Block], an: _Analyzer) -> list[Block]:
    """A few lines after the last table, without a header, each labelled in its first cell, that
    leave some of its columns empty or do not fit them ("Number of reports, 2,600,678" under a
    table of six columns; "18% of total" in a column of amounts), are its footer, not a table."""
    if len(blocks) < 2:
        return blocks
    last, prev = blocks[-1], blocks[-2]
    if last.header_rows or last.data_end is None or last.data_end - last.data_start + 1 > MAX_FOOTER_ROWS // 2:
        return blocks
    rows = [i for i in range(last.data_start, last.data_end + 1) if not an.grid.is_blank(i)]
    if not rows or not all(an.info(i).kinds[_first_filled(an.info(i))] == TEXT for i in rows):
        return blocks
    kinds = an.block_kinds(prev)
    if all(an.info(i).n >= prev.width and fit(an.info(i), kinds) == 1.0 for i in rows):
        return blocks
    prev.footer_rows += rows
    prev.footnote_rows += last.title_rows + last.footnote_rows
    return blocks[:-1]


def _merge_small_leading_blocks(blocks: list[Block], grid: Grid) -> list[Block]:
    """A few narrow key/value lines above the main table are metadata, not a table of their own."""
    if len(blocks) < 2:
        return blocks
    main_width = max(b.width for b in blocks)
    out: list[Block] = []
    carry: list[int] = []
    for b in blocks:
        n_rows = (b.data_end - b.data_start + 1) if b.data_end is not None else 10**9
        if b.width * 2 <= main_width and n_rows <= 5 and b is not blocks[-1]:
            last = b.data_end if b.data_end is not None else b.data_start
            carry.extend(b.title_rows + b.header_rows + list(range(b.data_start, last + 1)) + b.footnote_rows)
            continue
        if carry:
            b.title_rows = carry + b.title_rows
            carry = []
        out.append(b)
    return out


def trailing_notes(rows: Sequence[Sequence[Any]]) -> int:
    """How many lines at the end of `rows` are notes, blank lines or summary rows (Total, Average
    ...) after the last data row."""
    infos = [row_info(r) for r in rows]
    width = max((i.n for i in infos), default=0)
    k = 0
    for inf, r in zip(reversed(infos), reversed(rows)):
        if inf.n == 0:
            k += 1
            continue
        first = _first_filled(inf)
        if _note_line(inf, r, width) or (first >= 0 and summary_label(r[first]) and k < MAX_FOOTER_ROWS):
            k += 1
            continue
        break
    # Only blank lines: nothing to skip.
    if all(inf.n == 0 for inf in infos[len(infos) - k :]):
        return 0
    return k


def cell_text(v: Any) -> str:
    return "" if cell_kind(v) == EMPTY else _label(v)


def row_text(row: Sequence[Any]) -> str:
    """A note row as one line of text."""
    return " ".join(t for t in (cell_text(v) for v in row) if t)
