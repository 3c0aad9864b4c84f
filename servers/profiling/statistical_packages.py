"""Stata (.dta), SPSS (.sav, .zsav, .por) and SAS (.sas7bdat, .xpt) files via pyreadstat.

Their metadata say what the data hold: a label for each variable ("Age of respondent" for
`age`), the file's label, and value labels (1 = "male"). The labels go into the table's notes,
where the search index reads them. Value labels are applied: a coded column reads as its
labels, in the profile and in the loader alike (`with_value_labels`), when every value it holds
has one: a scale labelled only at its ends (0 = "Left", 10 = "Right") keeps its numbers. Only
the first rows are read.
"""

from __future__ import annotations

from pathlib import Path

from lakeboard.schemas.profiles import FileProfile, TableProfile
from lakeboard.servers.profiling.column_stats import is_number_text, profile_frame, value_text
from lakeboard.servers.profiling.detect import Detection
from lakeboard.servers.profiling.fill_values import declared_fill_values

SAMPLE_ROWS = 2000
COUNT_BYTES = 256 << 20  # files whose rows are counted by reading them, where the format does not say
MAX_LABELS = 200

# pyreadstat's reader for each format detect.py found (by content where the file has a signature),
# and for the extensions that tell two kinds of one format apart: SPSS portable files, and SAS
# data sets (the signature found for SAS is the transport file's)
_BY_FORMAT = {"stata": "read_dta", "spss": "read_sav", "sas": "read_xport"}
_BY_EXTENSION = {("spss", ".por"): "read_por", ("sas", ".sas7bdat"): "read_sas7bdat"}
_NAMES = {"stata": "Stata", "spss": "SPSS", "sas": "SAS"}


def reader_of(path: str, fmt: str) -> tuple[str, bool]:
    """pyreadstat's reader for a file of format `fmt`, and whether value labels are applied (SAS
    keeps its formats in a separate catalog file)."""
    reader = _BY_EXTENSION.get((fmt, Path(path).suffix.lower())) or _BY_FORMAT[fmt]
    return reader, fmt != "sas"


def with_value_labels(df, meta):
    """`df` with the value labels of each variable whose every value has one (the codes of a
    category: 1 = "male"), as categories; a variable with values no label names (a scale labelled
    only at its ends, an age with a label for "no answer") keeps its numbers."""
    for name, labels in (meta.variable_value_labels or {}).items():
        if name in df.columns and labels:
            present = set(df[name].dropna().unique())
            if present and present <= set(labels):
                df[name] = df[name].map(labels).astype("category")
    return df


def _declared_codes(df, meta) -> dict[str, list[float]]:
    """Per numeric variable, the numbers its label declares to mean no data ("-99 = missing")."""
    out = {}
    for name, label in zip(meta.column_names, meta.column_labels or []):
        if label and name in df.columns and df[name].dtype.kind in "if":
            codes = [float(v) for v in declared_fill_values(label) if is_number_text(v)]
            if codes:
                out[name] = codes
    return out


def profile(path: Path, prof: FileProfile, det: Detection) -> None:
    import pyreadstat

    prof.kind = "table"
    prof.format = det.format
    reader, labelled = reader_of(prof.path, det.format)
    read = getattr(pyreadstat, reader)
    try:
        df, meta = read(str(path), row_limit=SAMPLE_ROWS)
        if labelled:
            df = with_value_labels(df, meta)
    except Exception as e:  # noqa: BLE001 - pyreadstat raises its own errors and others on damaged files
        prof.status = "unreadable"
        prof.reason = f"not a readable {_NAMES[det.format]} file: {value_text(str(e), 200)}"
        return
    rows = meta.number_rows if meta.number_rows is not None and meta.number_rows >= 0 else None
    if (rows is None or rows == len(df)) and len(df) >= SAMPLE_ROWS and path.stat().st_size <= COUNT_BYTES \
            and meta.column_names:
        # SAS transport files do not say how many rows they hold (pyreadstat gives the rows it read):
        # read one variable to count them
        try:
            rows = len(read(str(path), usecols=meta.column_names[:1])[0])
        except Exception:  # noqa: BLE001 - the count stays a lower bound
            rows = None
    exact = rows is not None or len(df) < SAMPLE_ROWS
    tp = TableProfile(n_rows=rows if rows is not None else len(df), n_rows_exact=exact)
    labels = [f"{name}: {label}" for name, label in zip(meta.column_names, meta.column_labels or []) if label]
    if labels:
        tp.notes.append("variable labels: " + "; ".join(labels[:MAX_LABELS]))
    if fills := _declared_codes(df, meta):
        # "Start year (-9 = unknown)": the code a variable's label declares is no year
        tp.options["fill_values"] = fills
        for name, codes in fills.items():
            df[name] = df[name].mask(df[name].isin(codes))
        tp.notes.append("codes the variable labels declare read as missing: "
                        + "; ".join(f"{n} {', '.join(map(str, c))}" for n, c in fills.items()))
    if meta.file_label:
        tp.title = value_text(meta.file_label, 200)
        prof.attributes["file label"] = tp.title
    if getattr(meta, "table_name", None):
        prof.attributes["table name"] = value_text(meta.table_name, 100)
    tp.columns, tp.sample_rows = profile_frame(df)
    prof.tables = [tp]
    if not tp.columns:
        prof.status, prof.reason = "empty", "the file holds no variables"
        return
    what = f" ({tp.title})" if tp.title else ""
    count = f"{tp.n_rows:,}" if exact else f"at least {tp.n_rows:,}"
    prof.summary = (f"{_NAMES[det.format]} data file{what}: {count} rows x {len(tp.columns)} variables "
                    f"({', '.join(c.name for c in tp.columns[:8])}{', ...' if len(tp.columns) > 8 else ''})")

