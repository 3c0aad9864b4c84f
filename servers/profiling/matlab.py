"""MATLAB .mat files: each variable's name, shape and class, and the first values of the small ones.

scipy lists a version 4-7.2 file's variables without loading them (`whosmat`), then loads only
the small numeric ones for their first values. A version 7.3 file is an HDF5 file after a
512-byte header: the HDF5 reader reads it.
"""

from __future__ import annotations

import math
from pathlib import Path

from lakeboard.schemas.profiles import ArrayProfile, FileProfile
from lakeboard.servers.profiling.column_stats import json_value
from lakeboard.servers.profiling.detect import Detection

MAX_VARIABLES = 200
SAMPLE_VALUES = 8
SAMPLED_ELEMENTS = 1_000_000  # a variable is loaded for its first values only up to this many elements
_NUMERIC = frozenset({"double", "single", "logical", "char", "int8", "uint8", "int16", "uint16", "int32", "uint32",
                      "int64", "uint64"})


def profile(path: Path, prof: FileProfile, det: Detection) -> None:
    from scipy.io import loadmat, whosmat

    prof.kind, prof.format = "array", "mat"
    with open(path, "rb") as f:
        version_73 = f.read(19) == b"MATLAB 7.3 MAT-file"
    try:
        listed = [] if version_73 else whosmat(str(path))
    except NotImplementedError:  # version 7.3, said by the header's version field
        version_73 = True
    except Exception as e:  # noqa: BLE001 - scipy raises many kinds for a damaged file (IndexError, ValueError ...)
        prof.status, prof.reason = "unreadable", f"not a MATLAB file scipy can read: {type(e).__name__}: {str(e)[:200]}"
        return
    if version_73:
        from lakeboard.servers.profiling import hdf5

        hdf5.profile(path, prof, Detection("hdf5", "hdf5"))
        prof.attributes["matlab"] = "version 7.3 (HDF5)"
        return
    if not listed:
        prof.status, prof.reason = "empty", "the MATLAB file holds no variables"
        return
    arrays = [ArrayProfile(name=name, shape=list(shape), dtype=kind) for name, shape, kind in listed[:MAX_VARIABLES]]
    small = [a.name for a in arrays if a.dtype in _NUMERIC and math.prod(a.shape) <= SAMPLED_ELEMENTS]
    if small:
        try:
            values = loadmat(str(path), variable_names=small, squeeze_me=True)
        except Exception as e:  # noqa: BLE001 - as above: the listing stands without the values
            prof.attributes["note"] = f"the variables' values could not be read: {type(e).__name__}: {str(e)[:200]}"
            values = {}
        for a in arrays:
            if a.name in values:
                a.sample = _first_values(values[a.name])
    prof.arrays = arrays
    if len(listed) > MAX_VARIABLES:
        prof.attributes["variables"] = f"{len(listed)} (first {MAX_VARIABLES} profiled)"
    desc = ", ".join(f"{a.name} {tuple(a.shape)} {a.dtype}" for a in arrays[:6])
    more = f", ... (+{len(listed) - 6})" if len(listed) > 6 else ""
    prof.summary = f"MATLAB file with {len(listed)} variables: {desc}{more}"


def _first_values(value) -> list:
    import numpy as np

    if isinstance(value, str):
        return [value[:200]]
    flat = np.asarray(value).ravel()[:SAMPLE_VALUES]
    return [json_value(v) for v in flat.tolist()] if flat.dtype != object else []
