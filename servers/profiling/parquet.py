"""Parquet (and Arrow/Feather): schema and row count from metadata, statistics from the first batch."""

from __future__ import annotations

import json
from pathlib import Path

from lakeboard.schemas.profiles import FileProfile, TableProfile
from lakeboard.servers.profiling.column_stats import STATS_ROWS, profile_values, string_dtype
from lakeboard.servers.profiling.detect import Detection
from lakeboard.servers.profiling.geo import wkt_examples



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
    big = path.stat().st_size > 64 << 20
    try:
        # Big files: stream column chunks in small buffers, so the first rows cost little memory.
        pf = pq.ParquetFile(path, pre_buffer=False, buffer_size=(1 << 20) if big else 0)
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
        named = _named_index(kv[b"pandas"], schema.names)
        if named:  # read_parquet makes them the index; the loader makes them columns again
            tp.options["index_columns"] = named
    batch = None
    if meta.num_rows and meta.num_row_groups:
        try:
            batch = next(pf.iter_batches(batch_size=STATS_ROWS, use_threads=False), None)
        except (pa.ArrowException, OSError) as e:
            tp.notes.append(f"the first rows could not be read ({e}); schema only")
    _profile_arrow(tp, schema, batch)
    prof.tables = [tp]
    cols = ", ".join(f.name for f in list(schema)[:8]) + (", ..." if len(schema) > 8 else "")
    prof.summary = f"Parquet table, {meta.num_rows} rows x {len(schema)} columns ({cols})"
    if geometry := _geometry_columns(kv.get(b"geo")):
        # GeoParquet: geopandas reads its WKB columns as shapes, in the CRS its metadata gives
        tp.options["geometry_columns"] = geometry
        for c in tp.columns:
            if c.name in geometry:
                raw = batch.column(c.name).to_pylist()[:3] if batch is not None else []
                c.dtype, c.examples, c.top_values = "geometry", wkt_examples([v for v in raw if v is not None]), []
        for row in tp.sample_rows:
            for name in geometry:
                row.pop(name, None)
        prof.kind = "geo"
        prof.summary = f"GeoParquet table, {meta.num_rows} rows x {len(schema)} columns ({cols})"


def _geometry_columns(geo: bytes | None) -> list[str]:
    """The geometry columns GeoParquet's "geo" metadata names (none where it is absent or damaged)."""
    if not geo:
        return []
    try:
        columns = json.loads(geo).get("columns") or {}
    except (ValueError, AttributeError):
        return []
    return [str(c) for c in columns] if isinstance(columns, dict) else []


def _named_index(pandas_meta: bytes, names: list[str]) -> list[str]:
    """The named index columns pandas saved with the frame (not `__index_level_0__`, which it
    saves for an unnamed index, nor a range index, which it saves as metadata only)."""
    try:
        listed = json.loads(pandas_meta).get("index_columns", [])
    except (ValueError, AttributeError):
        return []
    return [c for c in listed if isinstance(c, str) and c in names and not c.startswith("__index_level_")]


def arrow_dtype(t, has_nulls: bool) -> str:
    """The dtype pandas gives an Arrow column (to_pandas), without converting it."""
    import pyarrow as pa

    if pa.types.is_integer(t):
        return "float64" if has_nulls else str(t.to_pandas_dtype().__name__)
    if pa.types.is_floating(t):
        return str(t.to_pandas_dtype().__name__)
    if pa.types.is_boolean(t):
        return "object" if has_nulls else "bool"
    if pa.types.is_string(t) or pa.types.is_large_string(t) or getattr(pa.types, "is_string_view", lambda _: False)(t):
        return string_dtype()
    if pa.types.is_timestamp(t):
        return f"datetime64[{t.unit}, {t.tz}]" if t.tz else f"datetime64[{t.unit}]"
    if pa.types.is_dictionary(t):
        return "category"
    return "object"


def _profile_arrow(tp: TableProfile, schema, batch) -> None:
    """Columns and first rows from a record batch (Arrow to Python lists, no pandas)."""
    names, dtypes, columns = [], [], []
    for i, field in enumerate(schema):
        if field.name.startswith("__index_level_"):
            continue  # a pandas index saved with the frame: read_parquet restores it as the index
        col = batch.column(i) if batch is not None else None
        names.append(field.name)
        dtypes.append(arrow_dtype(field.type, bool(col is not None and col.null_count)))
        columns.append(col.to_pylist() if col is not None else [])
    tp.columns, tp.sample_rows = profile_values(names, dtypes, columns)


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
    tp = TableProfile(n_rows=n, n_rows_exact=True)
    _profile_arrow(tp, reader.schema, first.slice(0, STATS_ROWS) if first is not None else None)
    prof.tables = [tp]
    cols = ", ".join(reader.schema.names[:8])
    prof.summary = f"Arrow/Feather table, {n} rows x {len(reader.schema)} columns ({cols})"
