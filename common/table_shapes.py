"""`table_shapes`: the tables in a loaded value, as plain dicts (the fields of `TableShape`).

Self-contained on purpose (its imports inside, nothing else of this module used): the indexer
calls it in its profiling worker (`lakeboard.common.loaded_tables.shapes_of`), and `ask` sends
its source to the kernel, which has no Lakeboard to import, so both measure loaded data with
this one function.
"""


def table_shapes(data):
    """The tables in what a loader returned: a DataFrame (or GeoDataFrame) is one table; a dict
    (sheets, stacked tables, layers) or a list of them gives one per frame or array, named by
    its key or position; an array is a table of `len` rows and no columns. Text, None and other
    values hold no table: []. Each table: name, columns, numeric columns, rows, and data rows
    that repeat the column names (a header read as data)."""
    from collections.abc import Mapping

    import numpy as np

    def is_frame(value):
        return hasattr(value, "columns") and hasattr(value, "dtypes") and hasattr(value, "iloc")

    def is_array(value):
        return hasattr(value, "shape") and hasattr(value, "dtype") and not hasattr(value, "columns")

    def header_rows(frame, names, types):
        # Rows whose cells mostly equal their own column names: a repeated header of files stacked
        # into one, or a header row the loader did not skip. Only text columns can hold a name.
        if not len(frame) or not names:
            return 0
        hits = np.zeros(len(frame), dtype=np.int32)
        for i, name in enumerate(names):
            dtype = frame.iloc[:, i].dtype
            if types.is_numeric_dtype(dtype) or types.is_bool_dtype(dtype) or types.is_datetime64_any_dtype(dtype):
                continue
            cells = frame.iloc[:, i].to_numpy(dtype=object)
            try:
                hits += np.asarray(cells == name, dtype=bool)
            except ValueError:  # cells that are arrays (a Parquet list column) compare element-wise
                hits += np.fromiter((isinstance(v, str) and v == name for v in cells), dtype=bool, count=len(cells))
        # more than half the row's cells, and two of them when the table is wider than one column
        needed = max(len(names) // 2 + 1, min(2, len(names)))
        return int((hits >= needed).sum())

    def shape(name, value):
        if not is_frame(value):
            dims = tuple(value.shape)
            return {"name": name, "rows": int(dims[0]) if dims else 1}
        import pandas.api.types as types

        # a multi-row header pandas kept as levels is named by its parts
        names = [" ".join(str(p) for p in c) if isinstance(c, tuple) else str(c) for c in value.columns]
        numeric = [n for n, dtype in zip(names, value.dtypes)
                   if types.is_numeric_dtype(dtype) and not types.is_bool_dtype(dtype)]
        return {"name": name, "columns": names, "numeric": numeric, "rows": int(len(value)),
                "header_rows_in_data": header_rows(value, names, types)}

    if is_frame(data) or is_array(data):
        return [shape(None, data)]
    if isinstance(data, Mapping):
        items = data.items()
    elif isinstance(data, (list, tuple)):
        items = enumerate(data)
    else:
        return []
    return [shape(str(key), value) for key, value in items if is_frame(value) or is_array(value)]
