"""Classic NetCDF files (format 1 and 2, the `CDF\\x01` and `CDF\\x02` signatures) via scipy: global
attributes, variables with dimensions, units and first values. The data are memory-mapped, so
a large variable is never read whole. (NetCDF-4 files are HDF5 files: hdf5.py reads them.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lakeboard.schemas.profiles import ArrayProfile, FileProfile
from lakeboard.servers.profiling.column_stats import attribute_text, json_value, value_text
from lakeboard.servers.profiling.detect import Detection

SAMPLE_VALUES = 8
MAX_ARRAYS = 200
MAX_ATTRIBUTES = 60


def profile(path: Path, prof: FileProfile, det: Detection) -> None:
    from scipy.io import netcdf_file

    prof.kind = "array"
    prof.format = "netcdf"
    try:
        f = netcdf_file(path, "r", mmap=True)
    except (OSError, ValueError, TypeError, IndexError) as e:  # scipy raises what its parsing meets
        prof.status, prof.reason = "unreadable", f"not a readable NetCDF file (truncated or corrupt?): {value_text(str(e), 200)}"
        return
    try:
        prof.attributes.update(_attributes(f._attributes))
        names = list(f.variables)
        for name in names[:MAX_ARRAYS]:
            prof.arrays.append(_variable(name, f.variables[name]))
        dims = ", ".join(f"{k}={v if v is not None else 'unlimited'}" for k, v in list(f.dimensions.items())[:20])
        if dims:
            prof.attributes["dimensions"] = dims
    finally:
        f.close()
    if len(names) > MAX_ARRAYS:
        prof.attributes["variables"] = f"{len(names)} (first {MAX_ARRAYS} profiled)"
    if not names:
        prof.status, prof.reason = "empty", "the NetCDF file holds no variables"
        return
    title = prof.attributes.get("title") or prof.attributes.get("Title") or ""
    desc = ", ".join(a.heading for a in prof.arrays[:10])
    more = f", ... (+{len(names) - 10})" if len(names) > 10 else ""
    prof.summary = f"NetCDF file{' (' + title[:100] + ')' if title else ''} with {len(names)} variables: {desc}{more}"


def _attributes(attrs: dict[str, Any]) -> dict[str, str]:
    return {str(key): attribute_text(value, 300) for key, value in list(attrs.items())[:MAX_ATTRIBUTES]}


def _variable(name: str, var: Any) -> ArrayProfile:
    import numpy as np

    # classic NetCDF is big-endian: the type as a reader of the values sees it
    ap = ArrayProfile(name=name, shape=[int(s) for s in var.shape], dtype=str(var.data.dtype.newbyteorder("=")))
    ap.attributes.update(_attributes(var._attributes))
    if var.dimensions:
        ap.attributes["dimensions"] = ", ".join(var.dimensions)
    data = var.data
    if data.size:
        first = np.array(data.reshape(-1)[:SAMPLE_VALUES] if data.ndim else data.reshape(1))  # a copy, off the map
        if first.dtype.kind == "S":
            ap.sample = [attribute_text(v, 80) for v in first.tolist()]
        else:
            ap.sample = [json_value(v) for v in first.tolist()]
    return ap
