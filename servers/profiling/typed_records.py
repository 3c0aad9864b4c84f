"""Delimited lines of several record types in one file, each line led by its type's tag.

GPS logs (`$GPGGA,...` and `$GPRMC,...` sentences), instrument and flight logs interleave records
of different layouts, told apart by their first field. Read as one table they make nonsense
(rows of one type taken for another's header). Each type is a table of its own, named by its tag;
its columns are numbered (the file names none).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from lakeboard.schemas.profiles import FileProfile, TableProfile
from lakeboard.servers.profiling.column_stats import as_numbers, profile_frame
from lakeboard.servers.profiling.table_layout import TEXT, cell_kind
from lakeboard.servers.profiling.text_sample import TextSample

MAX_TYPES = 20  # more tags than this are values, not record types
MIN_LINES = 20
MAX_TAG = 16  # characters in a type's tag ($GPGGA, HFDTE, P): a longer first field is data
COVERED = 0.95  # share of the lines that the types with a steady layout must hold
PROBE_LINES = 50  # lines whose first fields are looked at before all the lines are


def record_types(lines: list[str], delim: str) -> dict[str, int] | None:
    """Each record type's tag and its field count, when `lines` interleave several types of
    different layouts that their first field names; None otherwise."""
    lines = [ln for ln in lines if ln.strip()]
    if len(lines) < MIN_LINES:
        return None
    # the first fields alone first, of the first lines before all: most tables fail there
    for head in (lines[:PROBE_LINES], lines):
        tags = Counter(ln.split(delim, 1)[0].strip() for ln in head)
        if len(tags) > MAX_TYPES or not all(t and len(t) <= MAX_TAG and cell_kind(t) == TEXT for t in tags):
            return None
    if len(tags) < 2:
        return None
    if any('"' in ln for ln in lines):
        return None  # quoted fields may hold the delimiter: splitting would miscount them
    rows = [ln.split(delim) for ln in lines]
    widths: dict[str, int] = {}
    covered = 0
    for tag in tags:
        counts = Counter(len(r) for r in rows if r[0].strip() == tag)
        width, n = counts.most_common(1)[0]
        if n >= 0.9 * tags[tag] and tags[tag] >= 2:
            widths[tag] = width
            covered += tags[tag]
    # a steady layout for nearly every line, and at least two layouts (else one table holds them all)
    if covered < COVERED * len(rows) or len(set(widths.values())) < 2:
        return None
    return dict(sorted(widths.items(), key=lambda kv: -tags[kv[0]]))


def profile(prof: FileProfile, sample: TextSample, lines: list[str], delim: str, types: dict[str, int]) -> None:
    """One table per record type, from the sample's lines of that type."""
    import pandas as pd

    prof.kind, prof.format = "table", "csv"
    tables = []
    for tag, width in types.items():
        # a line of the type with another number of fields is left out, by the loader too
        own = [fields for ln in lines if (fields := ln.split(delim))[0].strip() == tag and len(fields) == width]
        df = _typed(pd.DataFrame(own, columns=range(width), dtype=object))
        tp = TableProfile(name=tag, delimiter=delim, options={"record_type": tag, "sep": delim, "width": width})
        if sample.complete:
            tp.n_rows, tp.n_rows_exact = len(own), True
        else:
            tp.n_rows, tp.n_rows_exact = int(len(own) * sample.size / max(1, len(sample.text))), False
        tp.columns, tp.sample_rows = profile_frame(df.head(2000))
        tables.append(tp)
    prof.tables = tables
    parts = ", ".join(f"{t.name} ({t.n_rows if t.n_rows_exact else f'~{t.n_rows}'} rows x {len(t.columns)})"
                      for t in tables[:6])
    prof.summary = f"{len(tables)} record types in one file, each line led by its type: {parts}"


def _typed(df: Any) -> Any:
    """Numbers where every non-empty value of a column reads as one; empty fields missing."""
    import pandas as pd

    return as_numbers(df.replace("", pd.NA))
