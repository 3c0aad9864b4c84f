"""HDF5 and NetCDF-4 files via h5py: groups walked, each dataset's shape, type, attributes and first values.

A NetCDF-4 file is an HDF5 file: its variables are datasets with `units` and `long_name`
attributes. Only what the file itself holds is read. The walk follows hard links only (an
external or soft link can name another file or loop), and neither a virtual dataset nor one
stored in external files is read, since their data lives in other files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lakeboard.schemas.profiles import ArrayProfile, FileProfile
from lakeboard.servers.profiling.column_stats import attribute_text, json_value, value_text
from lakeboard.servers.profiling.detect import Detection

SAMPLE_VALUES = 8
MAX_ARRAYS = 200
MAX_COUNTED = 10_000  # datasets counted at most
MAX_GROUPS = 2000  # groups walked at most: a file of millions of tiny groups ends the walk, not the worker
MAX_ATTRIBUTES = 60
# attributes the HDF5 and NetCDF-4 libraries keep for themselves (dimension bookkeeping)
_INTERNAL = frozenset({"DIMENSION_LIST", "REFERENCE_LIST", "CLASS", "NAME", "_Netcdf4Dimid", "_Netcdf4Coordinates",
                       "_NCProperties", "_nc3_strict"})
_TITLE_KEYS = ("title", "Title", "TITLE", "summary", "description", "source", "institution")


def profile(path: Path, prof: FileProfile, det: Detection) -> None:
    import h5py

    prof.kind = "array"
    prof.format = "hdf5"
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        prof.status, prof.reason = "unreadable", f"not a readable HDF5 file (truncated or corrupt?): {value_text(str(e), 200)}"
        return
    with f:
        prof.attributes.update(_attributes(f.attrs))
        netcdf = "_NCProperties" in f.attrs
        names = 0
        for name, ds in _datasets(f, MAX_GROUPS):
            names += 1
            if len(prof.arrays) < MAX_ARRAYS:
                netcdf = netcdf or "_Netcdf4Dimid" in ds.attrs
                prof.arrays.append(_dataset(name, ds))
            elif names >= MAX_COUNTED:  # a group of a million datasets is not walked to its end
                break
    counted = str(names) if names < MAX_COUNTED else f"at least {MAX_COUNTED}"
    if names > MAX_ARRAYS:
        prof.attributes["datasets"] = f"{counted} (first {MAX_ARRAYS} profiled)"
    if netcdf:
        prof.attributes["layout"] = "NetCDF-4"
    if not prof.arrays:
        prof.status, prof.reason = "empty", "the HDF5 file holds no datasets"
        return
    title = next((prof.attributes[k] for k in _TITLE_KEYS if k in prof.attributes), "")
    desc = ", ".join(a.heading for a in prof.arrays[:10])
    more = f", ... (+{len(prof.arrays) - 10})" if len(prof.arrays) > 10 else ""
    kind = "NetCDF-4 file" if netcdf else "HDF5 file"
    prof.summary = f"{kind}{' (' + title[:100] + ')' if title else ''} with {counted} datasets: {desc}{more}"


def _datasets(group: Any, max_groups: int):
    """(path, dataset) of every dataset reachable by hard links, groups in order, breadth first."""
    import h5py

    queue, seen, walked = [("", group)], set(), 0
    while queue and walked < max_groups:
        prefix, g = queue.pop(0)
        walked += 1
        for key in g:
            link = g.get(key, getlink=True)
            if not isinstance(link, h5py.HardLink):
                continue
            obj = g.get(key)
            name = f"{prefix}{key}"
            if isinstance(obj, h5py.Dataset):
                yield name, obj
            elif isinstance(obj, h5py.Group) and obj not in seen:  # a group hard-linked twice is walked once
                seen.add(obj)  # h5py objects are equal when they are the same object of the file
                queue.append((name + "/", obj))


def _attributes(attrs: Any) -> dict[str, str]:
    import h5py

    out: dict[str, str] = {}
    for key in list(attrs.keys())[:MAX_ATTRIBUTES]:
        if key in _INTERNAL:
            continue
        try:
            value = attrs[key]
        except (OSError, TypeError, ValueError):  # a type h5py cannot read back
            continue
        if isinstance(value, (h5py.Empty, h5py.Reference, h5py.RegionReference)):  # no text a person reads
            continue
        out[str(key)] = attribute_text(value, 300)
    return out


def _dataset(name: str, ds: Any) -> ArrayProfile:
    ap = ArrayProfile(name=name, shape=[int(s) for s in ds.shape or ()], dtype=str(ds.dtype.newbyteorder("=")))
    ap.attributes.update(_attributes(ds.attrs))
    if ds.dtype.names:
        ap.attributes["fields"] = ", ".join(ds.dtype.names)
    if ds.is_virtual or ds.external:
        ap.attributes["note"] = "its data is stored in other files (not read)"
        return ap
    if ds.shape is None:
        ap.attributes["note"] = "no data (an empty dataspace): a placeholder for its attributes"
        return ap
    try:
        ap.sample = _first_values(ds)
    except (OSError, TypeError, ValueError) as e:  # one bad dataset (an unavailable filter) does not hide the others
        ap.attributes["error"] = value_text(str(e), 200)
    return ap


def _first_values(ds: Any) -> list[Any]:
    """The first values along the last axis, at index 0 of the others: a slab of a few values, never the dataset."""
    import numpy as np

    if ds.shape is None or 0 in ds.shape:
        return []
    index = () if not ds.shape else (0,) * (len(ds.shape) - 1) + (slice(0, SAMPLE_VALUES),)
    values = np.atleast_1d(ds[index])
    if values.dtype.names or values.dtype.kind in ("S", "O", "U", "V"):
        return [attribute_text(v, 80) for v in values.tolist()]
    return [json_value(v) for v in values.tolist()]
