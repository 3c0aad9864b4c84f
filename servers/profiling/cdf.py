"""NASA CDF files via cdflib: global attributes, variables with shape, type, units and first values.

A CDF of time series (variables that vary record by record, each DEPEND_0 on an epoch) is
loaded as a DataFrame per epoch: `time_frames` says which variables go in which frame, under
which column names. A vector variable (B in x, y, z) gives a column per component, named by
the labels its LABL_PTR_1 points to.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lakeboard.schemas.profiles import ArrayProfile, FileProfile
from lakeboard.servers.profiling.column_stats import json_value, value_text
from lakeboard.servers.profiling.detect import Detection

SAMPLE_RECORDS = 3
MAX_VARIABLES = 200
_VAR_ATTRS = ("UNITS", "CATDESC", "FIELDNAM", "LABLAXIS", "VAR_TYPE", "DEPEND_0", "LABL_PTR_1", "FILLVAL", "VALIDMIN",
              "VALIDMAX")
_EPOCH_TYPES = ("CDF_EPOCH", "CDF_EPOCH16", "CDF_TIME_TT2000")
MAX_COMPONENTS = 16  # a variable of more values a record (a spectrum, an image) stays out of the frames


def profile(path: Path, prof: FileProfile, det: Detection) -> None:
    import cdflib

    prof.kind = "array"
    prof.format = "cdf"
    try:
        cdf = cdflib.CDF(str(path))
        info = cdf.cdf_info()
    except Exception as e:  # noqa: BLE001 - cdflib raises bare exceptions on damaged files
        prof.status = "unreadable"
        prof.reason = f"not a readable CDF file (truncated or corrupt?): {e}"
        return
    try:
        gattrs = cdf.globalattsget() or {}
    except Exception:  # noqa: BLE001
        gattrs = {}
    for k, v in list(gattrs.items())[:60]:
        vals = v if isinstance(v, list) else [v]
        prof.attributes[str(k)] = value_text(" ".join(value_text(x, 200) for x in vals), 300)
    names = list(info.zVariables) + list(info.rVariables)
    for name in names[:MAX_VARIABLES]:
        prof.arrays.append(_variable(cdf, name))
    if len(names) > MAX_VARIABLES:
        prof.attributes["variables"] = f"{len(names)} (first {MAX_VARIABLES} profiled)"
    if not names:
        prof.status = "empty"
        prof.reason = "the CDF file holds no variables"
        return
    title = next(
        (
            prof.attributes[k]
            for k in ("TITLE", "Title", "Logical_source_description", "Project", "Mission_group")
            if k in prof.attributes
        ),
        "",
    )
    desc = ", ".join(a.heading for a in prof.arrays[:10])
    more = f", ... (+{len(names) - 10})" if len(names) > 10 else ""
    prof.summary = f"CDF file{' (' + title[:100] + ')' if title else ''} with {len(names)} variables: {desc}{more}"


def _variable(cdf: Any, name: str) -> ArrayProfile:
    vi = cdf.varinq(name)
    n_rec = (vi.Last_Rec + 1) if vi.Rec_Vary else 1
    shape = ([n_rec] if vi.Rec_Vary else []) + [int(d) for d in vi.Dim_Sizes]
    ap = ArrayProfile(name=name, shape=shape, dtype=vi.Data_Type_Description)
    if vi.Rec_Vary:
        ap.attributes["records"] = str(n_rec)
    try:
        attrs = cdf.varattsget(name) or {}
    except Exception:  # noqa: BLE001
        attrs = {}
    for k in _VAR_ATTRS:
        if k in attrs:
            ap.attributes[k] = value_text(attrs[k] if not hasattr(attrs[k], "tolist") else attrs[k].tolist(), 200)
    if vi.Last_Rec >= 0:
        try:
            vals = cdf.varget(name, startrec=0, endrec=min(vi.Last_Rec, SAMPLE_RECORDS - 1))
            ap.sample = _flat(vals)
            if "EPOCH" in vi.Data_Type_Description or "TT2000" in vi.Data_Type_Description:
                import cdflib

                enc = cdflib.cdfepoch.encode(vals)
                enc = [enc] if isinstance(enc, str) else list(enc)
                ap.attributes["first_times"] = ", ".join(str(t) for t in enc[:SAMPLE_RECORDS])
        except Exception as e:  # noqa: BLE001 - one bad variable should not hide the others
            ap.attributes["error"] = str(e)[:200]
    return ap


def _flat(vals: Any, limit: int = 8) -> list[Any]:
    import numpy as np

    arr = np.asarray(vals)
    if arr.dtype.kind in ("U", "S", "O"):
        return [value_text(v) for v in arr.ravel()[:limit].tolist()]
    return [json_value(v) for v in arr.ravel()[:limit].tolist()]


@dataclass(frozen=True)
class FrameColumn:
    variable: str
    names: list[str]  # the frame's column per component: one for a variable of one value a record


def time_frames(arrays: list[ArrayProfile]) -> dict[str, list[FrameColumn]]:
    """Per epoch variable, the variables of its DataFrame, from the profile alone: those that vary
    by record, DEPEND_0 on it (or, without DEPEND_0, have its number of records) and hold at most
    MAX_COMPONENTS values a record. Epochs with no such variable are left out; {} when no epoch
    has any."""
    readable = [a for a in arrays if "error" not in a.attributes]
    records = {a.name: a.attributes["records"] for a in readable if "records" in a.attributes}
    epochs = [a.name for a in readable if a.name in records and a.dtype in _EPOCH_TYPES]
    samples = {a.name: a.sample for a in readable}
    frames: dict[str, list[FrameColumn]] = {e: [] for e in epochs}
    taken: dict[str, set[str]] = {e: {e} for e in epochs}
    for a in readable:
        if a.name not in records or a.name in frames:
            continue
        depends = a.attributes.get("DEPEND_0")
        same = [e for e in epochs if records[e] == records[a.name]]
        epoch = depends if depends in frames and records[depends] == records[a.name] else (
            same[0] if depends is None and len(same) == 1 else None)
        dims = a.shape[1:]
        if epoch is None or len(dims) > 1 or (dims and not 0 < dims[0] <= MAX_COMPONENTS):
            continue
        if not dims:
            names = [a.name]
        else:
            labels = [str(x).strip() for x in samples.get(a.attributes.get("LABL_PTR_1", ""), [])]
            names = labels if len(labels) == dims[0] and all(labels) else [f"{a.name}_{i}" for i in range(dims[0])]
        names = [n if n not in taken[epoch] and names.count(n) == 1 else f"{a.name}_{i}" for i, n in enumerate(names)]
        taken[epoch].update(names)
        frames[epoch].append(FrameColumn(a.name, names))
    return {e: cols for e, cols in frames.items() if cols}
