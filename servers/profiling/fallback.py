"""Files no reader handles: the first lines of text, or a notice of what the binary content is."""

from __future__ import annotations

from pathlib import Path

from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.profiling.detect import Detection
from lakeboard.servers.profiling.text_sample import looks_binary, read_head, read_text_sample

FIRST_LINES = 20
MAX_SQLITE_TABLES = 50
# Formats known by their first bytes that no reader here reads: what they hold, and what reads them.
UNREAD_FORMATS = {
    "grib": ("GRIB (gridded weather and climate model fields)", "cfgrib with xarray, or eccodes"),
    "bufr": ("BUFR (meteorological observations)", "eccodes, or pybufrkit"),
    "hdf4": ("HDF4 (often satellite products, such as MODIS)", "pyhdf, or GDAL"),
    "las": ("LAS (a lidar point cloud)", "laspy"),
}


def profile(path: Path, prof: FileProfile, det: Detection) -> None:
    if det.format == "sqlite":
        _sqlite(path, prof)
        return
    if det.format in UNREAD_FORMATS:
        what, readers = UNREAD_FORMATS[det.format]
        prof.kind, prof.status = "binary", "skipped"
        prof.reason = f"a {what} file: not read here; {readers} reads it"
        prof.summary = f"{what} file, {path.stat().st_size:,} bytes, not read here ({readers} reads it)"
        return
    if det.format == "pickle":
        prof.kind, prof.format, prof.status = "binary", "pickle", "skipped"
        prof.reason = ("a Python pickle: not read, because loading a pickle runs whatever code it holds; "
                       "ask for its data in another format (CSV, Parquet)")
        prof.summary = f"Python pickle, {path.stat().st_size:,} bytes, not read (loading it would run its code)"
        return
    head = read_head(path, 8192)
    if det.format == "binary" or looks_binary(head):
        prof.kind, prof.format, prof.status = "binary", "binary", "skipped"
        if det.compression and det.note:  # compressed data that cannot be read as it is: the note says why
            prof.status, prof.reason = "unreadable", det.note
            prof.summary = f"{det.compression}-compressed file, {path.stat().st_size:,} bytes: {det.note}"
            return
        what = f"; {det.note}" if det.note else ""
        prof.reason = f"binary content of no known data format (first bytes {head[:8].hex(' ')}){what}"
        if det.note:
            prof.status = "unreadable"
        prof.summary = f"binary file, {path.stat().st_size:,} bytes, format unknown"
        return
    sample = read_text_sample(path, head_bytes=64 << 10, compression=det.compression)
    lines = sample.text.splitlines()[:FIRST_LINES]
    prof.kind, prof.format = "document", "text"
    prof.encoding = sample.encoding
    prof.text = "\n".join(lines)
    if not prof.text.strip():
        prof.status, prof.reason = "empty", "the file holds only whitespace"
        return
    first = next((ln.strip() for ln in lines if ln.strip()), "")
    prof.summary = f"text file ({path.suffix or 'no extension'}); starts: {first[:120]}"


def _sqlite(path: Path, prof: FileProfile) -> None:
    """An SQLite database: each table's columns from its first rows; row counts from max(rowid)."""
    import sqlite3

    import pandas as pd

    from lakeboard.schemas.profiles import TableProfile
    from lakeboard.servers.profiling.column_stats import profile_frame

    prof.kind, prof.format = "table", "sqlite"
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as e:
        prof.status, prof.reason = "unreadable", f"SQLite database that cannot be opened: {e}"
        return
    try:
        try:
            names = sorted(r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
        except sqlite3.Error as e:
            prof.status, prof.reason = "unreadable", f"SQLite database that cannot be read: {e}"
            return
        for name in [n for n in names if not n.startswith("sqlite_")][:MAX_SQLITE_TABLES]:
            quoted = '"' + name.replace('"', '""') + '"'
            tp = TableProfile(name=name, options={"table": name})
            try:
                df = pd.read_sql_query(f"select * from {quoted} limit 2000", con)
                try:
                    n = con.execute(f"select max(rowid) from {quoted}").fetchone()[0]
                    tp.n_rows, tp.n_rows_exact = int(n or 0), False
                except sqlite3.Error:
                    tp.n_rows, tp.n_rows_exact = None, False
            except (sqlite3.Error, pd.errors.DatabaseError) as e:
                tp.notes.append(f"could not read this table: {e}")
                df = pd.DataFrame()
            tp.columns, tp.sample_rows = profile_frame(df)
            prof.tables.append(tp)
    finally:
        con.close()
    prof.attributes["tables"] = ", ".join(t.name or "" for t in prof.tables)
    if not prof.tables:
        prof.status, prof.reason = "empty", "the SQLite database holds no tables"
        return
    desc = "; ".join(
        f"{t.name} (~{t.n_rows} rows: {', '.join(c.name for c in t.columns[:5])})" for t in prof.tables[:5]
    )
    prof.summary = f"SQLite database with {len(prof.tables)} tables: {desc}"
