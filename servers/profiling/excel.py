"""Excel workbooks (.xlsx via openpyxl read-only, .xls via xlrd): every sheet and every table in it."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from itertools import zip_longest
from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

from lakeboard.schemas.profiles import FileProfile, TableProfile
from lakeboard.servers.profiling.column_stats import (
    PANDAS_NA,
    STATS_ROWS,
    censored_note,
    fill_values_of,
    missing_markers,
    numbers_and_tokens,
    profile_values,
    spread_indices,
    string_dtype,
    table_markers,
    text_markers,
    typed_dtype,
    unique_names,
    value_text,
    without_numbers,
    zero_padded_codes,
)
from lakeboard.servers.profiling.declarations import declared
from lakeboard.servers.profiling.fill_values import add_na_values, as_na_value, declared_fill_values
from lakeboard.servers.profiling.signed_numbers import signed_column, signed_dtype, signed_number
from lakeboard.servers.profiling.detect import Detection
from lakeboard.servers.profiling.table_layout import (
    EMPTY,
    TEXT,
    Block,
    ColumnSlice,
    cell_kind,
    cell_text,
    empty_leading_columns,
    find_blocks,
    label_words,
    row_text,
    side_by_side,
    totals_among_rows,
)

MAX_ROWS = 2000  # rows read per sheet
CALAMINE_MAX_SHEET_BYTES = 64 << 20  # uncompressed sheet XML that calamine may load whole
MAX_COLS = 256


class RowsGrid:
    """Sheet rows; rows straight from calamine are converted cell by cell only when looked at."""

    def __init__(self, rows: list[Sequence[Any]], raw: bool = False) -> None:
        self.rows = rows
        self._raw = raw
        self._converted: dict[int, tuple] = {}
        self._widths: list[int] | None = None  # width_to, once asked
        if raw:  # calamine marks empty cells with ""
            self.blank = [r.count("") == len(r) for r in rows]
        else:
            self.blank = [all(v is None or (isinstance(v, str) and not v.strip()) for v in r) for r in rows]

    def __len__(self) -> int:
        return len(self.rows)

    def is_blank(self, i: int) -> bool:
        return self.blank[i]

    def width_to(self, i: int) -> int:
        """The most cells up to the last filled one, over rows 0 to i: the width pandas gives every row
        it reads there (it reads the rows a table skips too)."""
        if self._widths is None:
            empty = "" if self._raw else None
            widest, self._widths = 0, []
            for r in self.rows:
                last = len(r)
                while last > widest and r[last - 1] == empty:
                    last -= 1
                widest = max(widest, last)
                self._widths.append(widest)
        return self._widths[min(i, len(self._widths) - 1)] if self._widths else 0

    def row(self, i: int) -> Sequence[Any]:
        if not self._raw:
            return self.rows[i]
        r = self._converted.get(i)
        if r is None:
            r = self._converted[i] = tuple(map(_cell, self.rows[i]))
        return r


def profile(path: Path, prof: FileProfile, det: Detection) -> None:
    prof.kind = "table"
    prof.format = "excel"
    with path.open("rb") as f:
        head = f.read(8)
    if head.startswith(b"\xd0\xcf\x11\xe0"):
        prof.attributes["engine"] = "xlrd"
        sheets = _calamine_sheets(path) or _xls_sheets(path)
    elif head.startswith(b"PK"):
        import zipfile

        try:
            with zipfile.ZipFile(path) as z:
                infos = z.infolist()
        except zipfile.BadZipFile as e:
            _unreadable(prof, f"not a valid Excel workbook: the zip container is damaged ({e})")
            return
        names = {i.filename for i in infos}
        if "content.xml" in names and "xl/workbook.xml" not in names:
            prof.attributes["engine"] = "calamine"  # OpenDocument spreadsheet
        elif any(n.startswith("xl/") and n.endswith(".bin") and "workbook" in n for n in names):
            prof.attributes["engine"] = "calamine"  # binary workbook (.xlsb)
        else:
            prof.attributes["engine"] = "openpyxl"
        # calamine (Rust) reads a sheet whole: fast, but only bounded for sheets of modest size.
        biggest = max((i.file_size for i in infos if i.filename.startswith("xl/worksheets/")), default=0)
        sheets = _calamine_sheets(path) if biggest <= CALAMINE_MAX_SHEET_BYTES else None
        if sheets is None:
            if prof.attributes["engine"] == "calamine":
                _unreadable(prof, "this spreadsheet format needs the python-calamine package")
                return
            sheets = _xlsx_sheets(path)
        else:
            # the loader reads with calamine too: the same frames as openpyxl on every workbook of the
            # real lakes and the bench lake, 5-10x faster (benchmarks/bench_profiling.py's checks)
            prof.attributes["engine"] = "calamine"
    else:
        _unreadable(prof, "not an Excel workbook: the content is neither an .xlsx (zip) nor an .xls (OLE2) file")
        return
    empty: list[str] = []
    sheet_names: list[str] = []
    at_least: set[int] = set()  # tables whose row count is only a lower bound
    for name, rows, truncated, max_row, raw in sheets:
        sheet_names.append(name)
        grid = RowsGrid(rows, raw)
        blocks = find_blocks(grid, complete=not truncated)
        if not blocks:
            empty.append(name)
            continue
        parts = [part for b in blocks for part in _beside(grid, b)]
        for bi, (view, b, offset, above) in enumerate(parts):
            tp = _table(name, view, b, truncated, max_row)
            width = len(tp.columns)
            if offset is not None:  # one of tables side by side, or one right of empty columns: its columns only
                tp.options["usecols"] = list(range(offset, offset + width))
            elif not b.names and 0 < width < grid.width_to(len(grid) - 1):
                # a wider table or note anywhere in the sheet: calamine pads every row to the sheet's width
                tp.options["usecols"] = list(range(width))
            titles = [t for i in reversed(b.title_rows) if len(t := row_text(above.row(i))) <= 100]
            if tp.title is None and (title := next((t for t in titles if len(t) >= 3), None)):
                tp.title = title  # over the gap on its left
                tp.notes.insert(0, title)
            if len(parts) > 1:
                tp.name = f"{name}: {next(iter(titles), '') or f'table {bi + 1}'}"
            if truncated and max_row is None:
                at_least.add(len(prof.tables))
            prof.tables.append(tp)
    prof.attributes["sheets"] = ", ".join(sheet_names)
    if empty:
        prof.attributes["empty_sheets"] = ", ".join(empty)
    if not prof.tables:
        prof.status = "empty"
        prof.reason = "every sheet of the workbook is empty"
        return
    parts = []
    for i, t in enumerate(prof.tables[:5]):
        rows_s = f"at least {t.n_rows}" if i in at_least else f"{t.n_rows}" if t.n_rows_exact else f"~{t.n_rows}"
        cols = ", ".join(c.name for c in t.columns[:6]) + (", ..." if len(t.columns) > 6 else "")
        off = f", header at row {t.header_row + 1}" if t.header_row else ""
        parts.append(f"{t.name} ({rows_s} rows x {len(t.columns)} columns{off}: {cols})")
    more = f" (+{len(prof.tables) - 5} more)" if len(prof.tables) > 5 else ""
    prof.summary = f"Excel workbook, {len(sheet_names)} sheet(s): " + "; ".join(parts) + more


def _unreadable(prof: FileProfile, reason: str) -> None:
    prof.status = "unreadable"
    prof.reason = reason


def _xlsx_sheets(path: Path):
    import warnings

    import openpyxl

    # From an open file: given a path, openpyxl refuses any name but .xlsx and .xlsm (a workbook named .xls).
    with path.open("rb") as source:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            wb = openpyxl.load_workbook(source, read_only=True, data_only=True)
        try:
            out = []
            for ws in wb.worksheets:
                # The sheet's <dimension> gives its size without reading it; it may be missing, or
                # understate the sheet (some writers say A1): rows and columns are read past it.
                declared_rows = ws.max_row
                ws.reset_dimensions()
                rows: list[tuple] = []
                truncated = False
                for r in ws.iter_rows(values_only=True, max_col=MAX_COLS):
                    if len(rows) >= MAX_ROWS:
                        truncated = True
                        break
                    rows.append(r)
                total: int | None = len(rows)
                if truncated:  # the dimension when it holds what was read, else unknown
                    total = declared_rows if declared_rows is not None and declared_rows > len(rows) else None
                while rows and all(v is None for v in rows[-1]):
                    rows.pop()
                width = max((_filled_width(r) for r in rows), default=0)
                out.append((ws.title, [r[:width] for r in rows], truncated, total, False))
            return out
        finally:
            wb.close()


def _filled_width(row: tuple) -> int:
    """The number of columns up to the last filled cell of `row`."""
    width = len(row)
    while width and row[width - 1] is None:
        width -= 1
    return width


def _calamine_sheets(path: Path):
    """Sheets via python-calamine, or None when it is not installed or cannot read the file."""
    try:
        import python_calamine
    except ImportError:
        return None
    try:
        wb = python_calamine.CalamineWorkbook.from_path(str(path))
    except Exception:  # noqa: BLE001 - let the other readers produce their own error
        return None
    out = []
    try:
        for name in wb.sheet_names:
            try:
                sh = wb.get_sheet_by_name(name)
            except Exception:  # noqa: BLE001 - chart sheets and the like
                continue
            raw = sh.to_python(skip_empty_area=False, nrows=MAX_ROWS + 1)
            truncated = len(raw) > MAX_ROWS
            rows = [r[:MAX_COLS] for r in raw[:MAX_ROWS]]
            while rows and rows[-1].count("") == len(rows[-1]):
                rows.pop()
            total = (sh.end[0] + 1) if sh.end else len(rows)
            out.append((name, rows, truncated, total, True))
    finally:
        try:
            wb.close()
        except Exception:  # noqa: BLE001
            pass
    return out


def _cell(v: Any) -> Any:
    """calamine cells as openpyxl gives them: None for empty, int for whole numbers."""
    t = type(v)  # calamine gives exact builtin types: dispatch on them, the sampled rows are many cells
    if t is str:
        return None if v == "" else v
    if t is float:
        return int(v) if v.is_integer() and abs(v) < 2**53 else v
    if t is date:
        return datetime(v.year, v.month, v.day)  # pandas reads date cells as datetime64
    return v


def _xls_sheets(path: Path):
    import xlrd

    book = xlrd.open_workbook(str(path), on_demand=True)
    out = []
    try:
        for idx in range(book.nsheets):
            sh = book.sheet_by_index(idx)
            n = min(sh.nrows, MAX_ROWS)
            rows = []
            for i in range(n):
                vals = []
                for c in sh.row(i)[:MAX_COLS]:
                    if c.ctype in (xlrd.XL_CELL_EMPTY, xlrd.XL_CELL_BLANK):
                        vals.append(None)
                    elif c.ctype == xlrd.XL_CELL_DATE:
                        try:
                            vals.append(xlrd.xldate.xldate_as_datetime(c.value, book.datemode))
                        except Exception:  # noqa: BLE001 - keep the raw serial number
                            vals.append(c.value)
                    elif c.ctype == xlrd.XL_CELL_NUMBER and float(c.value).is_integer():
                        vals.append(int(c.value))
                    else:
                        vals.append(c.value)
                rows.append(tuple(vals))
            while rows and all(v is None for v in rows[-1]):
                rows.pop()
            out.append((sh.name, rows, sh.nrows > MAX_ROWS, sh.nrows, False))
            book.unload_sheet(idx)
    finally:
        book.release_resources()
    return out


def _pandas_names(header: Sequence[Any], width: int) -> list[str]:
    """Column labels as pandas.read_excel makes them (Unnamed: j, duplicates suffixed)."""
    names = []
    for j in range(width):
        v = header[j] if j < len(header) else None
        t = cell_text(v) if v is not None else ""
        if isinstance(v, str):
            t = v  # pandas keeps the label as written
        names.append(t if t != "" else f"Unnamed: {j}")
    return unique_names(names)


# a table's grid, its block, its first column when not the sheet's, and the grid its titles are read in
_Part = tuple[RowsGrid | ColumnSlice, Block, int | None, RowsGrid | ColumnSlice]


def _beside(grid: RowsGrid, b: Block) -> list[_Part]:
    """Block `b` as one table, or as the tables set side by side in it (`side_by_side`): each read
    from its own columns, down to its own last row. Each comes with the columns its titles may be
    in: from the end of the table on its left (a title often starts over the gap)."""
    parts = side_by_side(grid, b)
    if not parts:
        lead = empty_leading_columns(grid, b)
        return [(ColumnSlice(grid, lead, None), b, lead, grid) if lead else (grid, b, None, grid)]
    out: list[_Part] = []
    end = b.data_end if b.data_end is not None else len(grid) - 1
    for k, (a, z) in enumerate(parts):
        view = ColumnSlice(grid, a, z)
        last = max((i for i in range(b.data_start, end + 1) if not view.blank[i]), default=b.data_start)
        blank = any(view.blank[i] for i in range(b.data_start, last + 1))
        # a part that ends above the block's end stops there (nrows); past the rows seen, it runs on
        data_end = last if b.data_end is not None or last < end else None
        part = replace(b, data_end=data_end, has_blank_rows=blank or b.has_blank_rows)
        out.append((view, part, a, ColumnSlice(grid, parts[k - 1][1] if k else 0, z)))
    return out


def _merged_down(grid: RowsGrid | ColumnSlice, b: Block) -> Block:
    """A header whose first cells are empty under labels in the row above it: labels merged down
    two rows ("Protein", "Gene") beside groups over their columns ("Tumour (T)" over T1 … T6),
    as supplementary tables are laid out. Those columns were 'Unnamed: 0'; they take the label
    above, the others keep their own names (the groups stay a note)."""
    if b.names or len(b.header_rows) != 1 or b.header - 1 not in b.title_rows:
        return b
    header, above = grid.row(b.header), grid.row(b.header - 1)
    empty = [j for j, v in enumerate(header) if cell_kind(v) == EMPTY]
    filled = len(header) - len(empty)
    if not empty or filled < 2 or any(j >= len(above) or cell_kind(above[j]) != TEXT for j in empty):
        return b
    named = [j for j, v in enumerate(header) if cell_kind(v) != EMPTY]
    if max(empty) > min(named):
        return b  # only leading columns: a gap among the names is another layout
    if not any(j < len(above) and cell_kind(above[j]) == TEXT for j in named):
        return b  # no group over the named columns: the row above is a title ("Plate 1 layout" over a corner cell)
    names = [cell_text(above[j]) if j in empty else cell_text(v) for j, v in enumerate(header)]
    return replace(b, names=unique_names(names))


def _table(sheet: str, grid: RowsGrid | ColumnSlice, b: Block, truncated: bool, max_row: int | None) -> TableProfile:
    b = _merged_down(grid, b)
    n_rows = len(grid)
    tp = TableProfile(name=sheet)
    opts: dict[str, Any] = {"sheet_name": sheet}
    end = b.data_end if b.data_end is not None else n_rows - 1
    picks = spread_indices(end + 1 - b.data_start, STATS_ROWS)
    data = [list(grid.row(b.data_start + i)) for i in picks]
    width = 0
    for r in data + [grid.row(i) for i in b.header_rows]:
        last = len(r)
        while last > width and r[last - 1] is None:
            last -= 1
        width = max(width, last)
    if b.names:
        names = b.names[:width] + [f"column_{j}" for j in range(len(b.names), width)]
        opts.update(header=None, skiprows=b.data_start, names=names, usecols=list(range(len(names))))
        tp.header_row = b.header_rows[0]
    elif b.header is not None:
        names = _pandas_names(grid.row(b.header), width)
        if b.header:
            opts["skiprows"] = b.header
        tp.header_row = b.header
    else:
        names = [str(j) for j in range(width)]
        opts["header"] = None
        if b.data_start:
            opts["skiprows"] = b.data_start
    titles = [row_text(grid.row(i)) for i in b.title_rows]
    tp.title = next((t for t in titles if 3 <= len(t) <= 200 and any(ch.isalpha() for ch in t)), None)
    notes = titles + [row_text(grid.row(i)) for i in b.footnote_rows]
    notes += [f"summary row under the data, left out: {row_text(grid.row(i))}" for i in b.footer_rows]
    if not truncated and (totals := totals_among_rows(grid, b, (b.data_end if b.data_end is not None else n_rows - 1) + 1)):
        notes.append(totals)
    tp.notes = [n for n in notes if n]
    if b.data_end is not None:
        tp.n_rows = sum(1 for i in range(b.data_start, b.data_end + 1) if not grid.blank[i])
        tp.n_rows_exact = True
        if b.data_end < n_rows - 1:
            first_record = b.header + 1 if b.header is not None and not b.names else b.data_start
            opts["nrows"] = b.data_end - first_record + 1  # pandas counts blank rows too
    else:
        total = max_row if max_row else n_rows
        tp.n_rows, tp.n_rows_exact = max(0, total - b.data_start), not truncated
        if truncated:
            tp.drop_blank_rows = True  # trailing blank/footnote rows were not checked
    if b.has_blank_rows:
        tp.drop_blank_rows = True
    tp.options = opts
    fixed = [(r + [None] * width)[:width] for r in data]
    if tp.drop_blank_rows:
        fixed = [r for r in fixed if any(v is not None for v in r)]
    columns = [[r[j] for r in fixed] for j in range(width)]
    mixed, marked = _missing_values(tp, grid, b, end, list(names[:width]), columns)
    opts = tp.options
    if (b.header is not None and not b.names and b.data_start == b.header + 1
            and any(isinstance(opts.get(k), dict) for k in ("na_values", "fill_values"))
            and any(v is not None and not isinstance(v, str) for v in grid.row(b.header))):
        # a header of numbers (years): pandas labels those columns 2022, but options stored as JSON
        # name them "2022" and match nothing. Read by names, which are text.
        opts.update(header=None, skiprows=b.data_start, names=list(names[:width]), usecols=list(range(width)))
    typed = [typed_dtype(c) for c in columns]
    labels: list[Any] = list(range(width)) if opts.get("header", 0) is None and "names" not in opts else list(names[:width])
    signed, codes, serial = [], {}, []
    for j, (dtype, values) in enumerate(typed):
        if j in mixed:
            continue
        if j in marked:
            read = [None if v is None else signed_number(v) for v in values]
            typed[j] = (signed_dtype(read), read)
            signed.append([labels[j], "."])
            continue
        if dtype in ("float64", "int64") and serial_dates(str(names[j]), values):
            typed[j] = ("datetime64[ns]", [None if v is None else _SERIAL_ORIGIN + timedelta(seconds=round(v * 86400)) for v in values])
            serial.append(labels[j])
        # numbers a sheet holds as text ("$1,317.68", "13%", "76,678"), with no gaps to declare: the
        # loader converts them. pandas reads text like "1985" as a number itself, and would take
        # codes written as text ("01001") for numbers too: they are read as text.
        if dtype != string_dtype():
            continue
        if zero_padded_codes(values):
            codes[labels[j]] = "str"
            continue
        grouped = any("," in v for v in values if isinstance(v, str))
        if (read := signed_column(values, frozenset())) or (grouped and (read := signed_column(values, frozenset(), plain=True))):
            if not read[2]:
                typed[j] = (signed_dtype(read[0]), read[0])
                signed.append([labels[j], read[1]])
    if signed:
        opts["signed_numbers"] = signed
    if serial:
        opts["serial_dates"] = serial
    if codes:
        opts["dtype"] = codes
    # A column of numbers with text cells past the sample loads as objects (numbers and text).
    dtypes = ["object" if j in mixed else dtype for j, (dtype, _) in enumerate(typed)]
    tp.columns, tp.sample_rows = profile_values(list(names[:width]), dtypes, [values for _, values in typed])
    tp.notes += [note for j in sorted(mixed) if (note := censored_note(str(names[j]), columns[j]))]
    return tp


_SERIAL_ORIGIN = datetime(1899, 12, 30)  # day 0 of Excel's serial dates (1900 system, past its leap-year bug)
_SERIAL_SPAN = (18264, 73051)  # 1950-01-01 to 2099-12-31 as serial days
_DATE_WORDS = frozenset({"date", "time", "datetime", "timestamp"})


def serial_dates(name: str, values: list[Any]) -> bool:
    """A column named for dates whose every number is a day of 1950-2099 in Excel's count: dates kept
    in cells formatted General ("44435.8021" under "Date/Time Ordered"), which pandas reads as numbers."""
    numbers = [v for v in values if v is not None]
    return (bool(_DATE_WORDS & label_words(name)) and bool(numbers)
            and all(isinstance(v, (int, float)) and _SERIAL_SPAN[0] <= v <= _SERIAL_SPAN[1] for v in numbers))


def _missing_values(tp: TableProfile, grid: RowsGrid, b: Block, end: int, names: list[str],
                    columns: list[list[Any]]) -> tuple[set[int], set[int]]:
    """Missing values of a sheet's table: declared in its notes or by the lake's documents, and text
    markers found in its numeric columns (every row read, not only the sample). They go into the
    reader options, and the sampled `columns` are updated in place to read as the loader reads them.
    Returns the columns of numbers that hold other text too (they load as objects), and those
    whose text cells are numbers written with a mark or a sign (the loader converts them)."""
    mixed: set[int] = set()
    signed: set[int] = set()
    opts = tp.options
    labels: list[Any] = list(range(len(names))) if opts.get("header", 0) is None and not b.names else names
    said = declared()
    everywhere = [v for note in tp.notes for v in declared_fill_values(note)] + said.everywhere
    by_label: dict[Any, list[str]] = {}
    # Every row the sheet was read to (a marker the sample missed would leave the column text).
    every = list(zip_longest(*(grid.row(i) for i in range(b.data_start, end + 1))))
    owns = [list(said.by_column.get(name, [])) for name in names]
    found = []
    for j, own in enumerate(owns):
        whole = list(every[j]) if j < len(every) else []
        n_numbers, n_distinct, tokens = numbers_and_tokens(whole, PANDAS_NA | frozenset(everywhere + own))
        found.append((n_numbers, n_distinct, tokens, missing_markers(n_numbers, n_distinct, tokens)))
    in_table = table_markers(found)
    for j, (name, label, own) in enumerate(zip(names, labels, owns)):
        gone = frozenset(everywhere + own)
        n_numbers, n_distinct, tokens, markers = found[j]
        markers = markers or in_table(n_numbers, n_distinct, tokens) or ([] if n_numbers else text_markers(tokens))
        if n_numbers and tokens and not markers:
            # "3.4*" (an estimate), "$16,560.00" among a sheet's number cells; not "(1.13)", which a
            # sheet writes as text for a standard error under its estimate (a negative is a number cell)
            if sum(tokens.values()) <= n_numbers and all(
                    signed_number(t) is not None and not t.strip().startswith(("(", "-", "\u2212")) for t in tokens):
                signed.add(j)
            else:
                mixed.add(j)
        if own or markers:
            by_label[label] = own + markers
        texts = gone | frozenset(markers)
        numbers = frozenset(float(as_na_value(v)) for v in gone if not isinstance(as_na_value(v), str))
        columns[j] = [
            None if (isinstance(v, str) and v in texts)
            or (isinstance(v, (int, float)) and not isinstance(v, bool) and float(v) in numbers)
            else v
            for v in columns[j]
        ]
        values = [v for v in columns[j] if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if values and len(values) == sum(v is not None for v in columns[j]):
            fills, notes = fill_values_of(name, label, values)  # sentinels far outside
            tp.notes += notes
            if fills:
                by_label[label] = by_label.get(label, []) + [value_text(v) for v in fills]
                columns[j] = without_numbers("float64", columns[j], fills)[1]
    if everywhere or by_label:
        add_na_values(opts, labels, everywhere, by_label, excel=True)
    return mixed, signed
