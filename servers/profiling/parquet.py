"""Parquet (and Arrow/Feather): schema and row count from metadata, statistics from the first batch."""

from __future__ import annotations

from pathlib import Path

from schemas.profiles import FileProfile, TableProfile
from servers.profiling.column_stats import profile_columns, sample_records
from servers.profiling.detect import Detection

SAMPLE_ROWS = 2000


def profile(path: Path, prof: FileProfile, det: Detection) -> None:
    prof.kind = "table"
    if det.format == "feather":
        _feather(path, prof)
    else:
        _parquet(path, prof)


def _parquet(path: Path, prof: FileProfile) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    prof.format = "parquet"
    try:
        pf = pq.ParquetFile(path, pre_buffer=False)
    except (pa.ArrowInvalid, pa.ArrowIOError, OSError) as e:
        prof.status = "unreadable"
        msg = str(e)
        if "magic bytes" in msg.lower() or "footer" in msg.lower() or "size" in msg.lower():
            prof.reason = f"the Parquet file is truncated or corrupt: its footer (the schema) is missing ({msg})"
        else:
            prof.reason = f"could not read the Parquet file: {msg}"
        return
    meta = pf.metadata
    schema = pf.schema_arrow
    tp = TableProfile(n_rows=meta.num_rows, n_rows_exact=True)
    prof.attributes["row_groups"] = str(meta.num_row_groups)
    if meta.created_by:
        prof.attributes["created_by"] = meta.created_by[:100]
    kv = schema.metadata or {}
    if b"pandas" in kv:
        prof.attributes["written_by"] = "pandas"
    df = None
    if meta.num_rows and meta.num_row_groups:
        try:
            batch = next(pf.iter_batches(batch_size=SAMPLE_ROWS, use_threads=False), None)
            if batch is not None:
                df = pa.Table.from_batches([batch]).to_pandas()
        except (pa.ArrowException, OSError) as e:
            tp.notes.append(f"the first rows could not be read ({e}); schema only")
    if df is None:
        import pandas as pd

        df = schema.empty_table().to_pandas() if len(schema) else pd.DataFrame()
    tp.columns = profile_columns(df)
    tp.sample_rows = sample_records(df)
    types = {f.name: str(f.type) for f in schema}
    for c in tp.columns:
        c.dtype = c.dtype if c.name not in types or c.dtype != "object" else types[c.name]
    prof.tables = [tp]
    cols = ", ".join(f.name for f in list(schema)[:8]) + (", ..." if len(schema) > 8 else "")
    prof.summary = f"Parquet table, {meta.num_rows} rows x {len(schema)} columns ({cols})"


def _feather(path: Path, prof: FileProfile) -> None:
    import pyarrow as pa
    import pyarrow.ipc as ipc

    prof.format = "feather"
    try:
        reader = ipc.open_file(pa.memory_map(str(path), "r"))
    except (pa.ArrowInvalid, OSError) as e:
        prof.status = "unreadable"
        prof.reason = f"could not read the Arrow/Feather file (truncated or corrupt?): {e}"
        return
    n = sum(reader.get_batch(i).num_rows for i in range(reader.num_record_batches))
    first = reader.get_batch(0) if reader.num_record_batches else None
    df = pa.Table.from_batches([first.slice(0, SAMPLE_ROWS)]).to_pandas() if first is not None else reader.schema.empty_table().to_pandas()
    tp = TableProfile(n_rows=n, n_rows_exact=True)
    tp.columns = profile_columns(df)
    tp.sample_rows = sample_records(df)
    prof.tables = [tp]
    cols = ", ".join(reader.schema.names[:8])
    prof.summary = f"Arrow/Feather table, {n} rows x {len(reader.schema)} columns ({cols})"
