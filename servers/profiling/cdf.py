"""NASA CDF files via cdflib: global attributes, variables with shape, type, units and first values."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lakeboard.schemas.profiles import ArrayProfile, FileProfile
from lakeboard.servers.profiling.column_stats import json_value, value_text
from lakeboard.servers.profiling.detect import Detection

SAMPLE_RECORDS = 3
MAX_VARIABLES = 200
_VAR_ATTRS = ("UNITS", "CATDESC", "FIELDNAM", "LABLAXIS", "VAR_TYPE", "DEPEND_0", "FILLVAL", "VALIDMIN", "VALIDMAX")


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
