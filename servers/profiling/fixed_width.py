"""Tables aligned with spaces (.txt/.dat exports, instrument logs): whitespace or fixed-width columns."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path
from typing import Any

from schemas.profiles import FileProfile, TableProfile
from servers.profiling.column_stats import profile_columns, sample_records
from servers.profiling.detect import Detection
from servers.profiling.table_layout import TEXT, VALUE, cell_kind
from servers.profiling.text_sample import TextSample, normalise_newlines, read_text_sample

SAMPLE_ROWS = 2000


def profile(path: Path, prof: FileProfile, det: Detection) -> None:
    """Entry for files named as fixed-width; falls back to the delimited reader."""
    sample = read_text_sample(path, compression=det.compression)
    prof.encoding = sample.encoding
    lines = normalise_newlines(sample.text).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not profile_lines(path, prof, sample, lines):
        from servers.profiling import delimited

        delimited.profile(path, prof, det)


def _data_run(lines: list[str], modal: int) -> tuple[int, int] | None:
    """First run of >= 3 non-blank lines that split into `modal` fields (start, end inclusive)."""
    start = None
    count = 0
    for i, ln in enumerate(lines[:2000]):
        ok = ln.strip() and len(ln.split()) == modal
        if ok:
            if start is None:
                start, count = i, 0
            count += 1
        elif ln.strip():
            if start is not None and count >= 3:
                return start, i - 1
            start, count = None, 0
    if start is not None and count >= 3:
        end = start + count - 1
        return start, end
    return None


def _gaps(lines: list[str]) -> list[tuple[int, int]]:
    """Column spans from character positions that are blank in every line."""
    width = max(len(ln) for ln in lines)
    filled = [False] * width
    for ln in lines:
        for j, ch in enumerate(ln):
            if ch not in " \t":
                filled[j] = True
    spans: list[tuple[int, int]] = []
    start = None
    for j, f in enumerate(filled + [False]):
        if f and start is None:
            start = j
        elif not f and start is not None:
            spans.append((start, j))
            start = None
    return spans


def profile_lines(path: Path, prof: FileProfile, sample: TextSample, lines: list[str]) -> bool:
    """Profile `lines` as a space-aligned table; False when they are not one."""
    non_blank = [ln for ln in lines[:400] if ln.strip()]
    if len(non_blank) < 3:
        return False
    counts = Counter(len(ln.split()) for ln in non_blank)
    modal, freq = counts.most_common(1)[0]
    if modal < 2 or freq < 0.6 * len(non_blank) or sum(map(len, non_blank)) / len(non_blank) > 400:
        return False
    run = _data_run(lines, modal)
    if run is None:
        return False
    first, last = run
    # The header is the first line of the run when it is words over numbers.
    head_cells = lines[first].split()
    next_cells = lines[first + 1].split() if first + 1 < len(lines) else []
    head_is_text = sum(cell_kind(c) == TEXT for c in head_cells) > len(head_cells) / 2
    data_has_values = any(cell_kind(c) == VALUE for ln in lines[first + 1 : first + 20] for c in ln.split())
    if not data_has_values and not head_is_text:
        return False
    if not any(cell_kind(c) == VALUE for c in next_cells) and not data_has_values:
        return False
    header = first if head_is_text else None
    data_start = first + 1 if header is not None else first

    opts: dict[str, Any] = {}
    if sample.encoding not in ("utf-8", "ascii"):
        opts["encoding"] = sample.encoding
    if not sample.complete:
        opts["encoding_errors"] = "replace"
    skip = header if header is not None else data_start
    # Whitespace-separated when every data line splits cleanly; else fixed-width column spans.
    data_lines = [ln for ln in lines[data_start : data_start + 500] if ln.strip()]
    clean = all(len(ln.split()) == modal for ln in data_lines)
    fmt = "fwf"
    if clean:
        reader = "read_csv"
        opts["sep"] = r"\s+"
    else:
        reader = "read_fwf"
        spans = _gaps([lines[i] for i in range(first, min(len(lines), first + 500)) if lines[i].strip()])
        opts["colspecs"] = [list(s) for s in spans]
    if skip:
        opts["skiprows"] = skip
    if header is None:
        opts["header"] = None
    trailing = [ln for ln in lines[last + 1 :] if ln.strip()]
    n_rows = sum(1 for ln in lines[data_start : last + 1] if ln.strip())
    if trailing and sample.complete and len(trailing) <= 20:
        opts["nrows"] = n_rows
    elif trailing and sample.complete:
        n_rows = sum(1 for ln in lines[data_start:] if ln.strip())

    import pandas as pd

    kw = {k: v for k, v in opts.items() if k not in ("encoding", "encoding_errors")}
    kw["nrows"] = min(kw.get("nrows", SAMPLE_ROWS), SAMPLE_ROWS)
    text = "\n".join(lines) + "\n"
    try:
        df = pd.read_fwf(io.StringIO(text), **kw) if reader == "read_fwf" else pd.read_csv(io.StringIO(text), **kw)
    except Exception:  # noqa: BLE001 - a failed guess means: not this kind of table
        return False
    if df.empty or df.shape[1] < 2:
        return False
    tp = TableProfile(header_row=header, delimiter="whitespace" if clean else "fixed-width", options=opts)
    tp.notes = [" ".join(ln.split()) for ln in lines[:skip] if ln.strip()][:20]
    if trailing and "nrows" in opts:
        tp.notes += [" ".join(ln.split()) for ln in trailing][:20]
    if sample.complete:
        tp.n_rows, tp.n_rows_exact = n_rows, True
    else:
        seen = sum(1 for ln in lines[data_start:] if ln.strip())
        chars = sum(len(ln) + 1 for ln in lines[data_start:])
        tp.n_rows, tp.n_rows_exact = int(sample.size / max(1.0, chars / max(1, seen))), False
    tp.columns = profile_columns(df)
    tp.sample_rows = sample_records(df)
    prof.kind, prof.format = "table", fmt
    prof.tables = [tp]
    cols = ", ".join(c.name for c in tp.columns[:8])
    rows = f"{tp.n_rows}" if tp.n_rows_exact else f"~{tp.n_rows}"
    how = "whitespace-separated" if clean else "fixed-width"
    prof.summary = f"{how} text table: {rows} rows x {len(tp.columns)} columns ({cols})"
    return True
