"""Vector geodata (GeoPackage, GeoJSON, Shapefile, ...) via pyogrio: layers, CRS, fields, first features."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from lakeboard.schemas.profiles import ColumnProfile, FileProfile, TableProfile
from lakeboard.servers.profiling.column_stats import profile_frame
from lakeboard.servers.profiling.detect import Detection
from lakeboard.servers.profiling.kml_fields import empty_cells, kml_text, numbers_left_empty

SAMPLE_FEATURES = 500
MAX_LAYERS = 50


def profile(path: Path, prof: FileProfile, det: Detection) -> None:
    import pyogrio

    prof.kind = "geo"
    prof.format = "geo"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # GDAL's chatter about damaged files; the reason says it
        _profile(path, prof, pyogrio)


def _profile(path: Path, prof: FileProfile, pyogrio: Any) -> None:
    try:
        layers = pyogrio.list_layers(str(path))
    except Exception as e:  # noqa: BLE001 - GDAL errors come in many classes
        prof.status = "unreadable"
        prof.reason = f"not readable as geographic data (GDAL: {str(e)[:300]})"
        return
    if not len(layers):
        prof.status = "empty"
        prof.reason = "the file holds no layers"
        return
    for name, geom_type in list(layers)[:MAX_LAYERS]:
        prof.tables.append(_layer(path, str(name), geom_type, prof))
    if len(layers) > MAX_LAYERS:
        prof.attributes["layers"] = f"{len(layers)} (first {MAX_LAYERS} profiled)"
    parts = []
    for t in prof.tables[:5]:
        cols = ", ".join(c.name for c in t.columns[:6] if c.name != "geometry")
        parts.append(f"{t.options.get('layer')} ({t.n_rows} {t.options.get('geometry_type') or ''} features; {cols})")
    crs = prof.attributes.get("crs", "no CRS")
    driver = prof.attributes.get("driver", "")
    prof.summary = f"{driver or 'geographic'} data, {len(layers)} layer(s), {crs}: " + "; ".join(parts)


def _layer(path: Path, name: str, geom_type: Any, prof: FileProfile) -> TableProfile:
    import pandas as pd
    import pyogrio

    info = pyogrio.read_info(str(path), layer=name)
    tp = TableProfile(name=name)
    tp.options = {"layer": name}
    if geom_type:
        tp.options["geometry_type"] = str(geom_type)
    crs = info.get("crs")
    if crs and "crs" not in prof.attributes:
        prof.attributes["crs"] = str(crs)
    if info.get("driver"):
        prof.attributes["driver"] = str(info["driver"])
    bounds = info.get("total_bounds")
    if bounds is not None and len(bounds) == 4:
        tp.notes.append("bounds (minx, miny, maxx, maxy): " + ", ".join(f"{b:.6g}" for b in bounds))
    if crs:
        tp.notes.append(f"CRS: {crs}")
    n = int(info.get("features", -1))
    tp.n_rows, tp.n_rows_exact = (n, True) if n >= 0 else (None, False)
    meta, _fids, geoms, fields = pyogrio.raw.read(str(path), layer=name, max_features=SAMPLE_FEATURES)
    df = pd.DataFrame({str(c): v for c, v in zip(meta["fields"], fields)})
    if "KML" in str(info.get("driver", "")) and len(pyogrio.list_layers(str(path))) == 1:
        # numbers a placemark leaves empty: GDAL's 0, read as missing (one layer: its features are the placemarks)
        empty = [c for c in numbers_left_empty(path) if c in df.columns]
        if empty:
            tp.options["kml_empty"] = empty
            for column, flags in empty_cells(kml_text(path), empty).items():
                if len(flags) == n:
                    df[column] = df[column].astype("float64").mask(flags[: len(df)])
            tp.notes.append("numbers left empty in the KML read as missing (GDAL reads them as 0): " + ", ".join(empty))
    tp.columns, tp.sample_rows = profile_frame(df)
    if geoms is not None:
        wkt = _wkt(geoms[:20])
        for row, g in zip(tp.sample_rows, wkt):
            row["geometry"] = g
        tp.columns.append(
            ColumnProfile(name="geometry", dtype="geometry", examples=wkt[:3], n_unique=None, null_fraction=None)
        )
    return tp


def _wkt(geoms: Any) -> list[str]:
    try:
        import shapely

        out = []
        for g in shapely.from_wkb(geoms):
            t = g.wkt if g is not None else ""
            out.append(t if len(t) <= 80 else t[:79] + "…")
        return out
    except Exception:  # noqa: BLE001 - a preview only
        return [f"<{len(g)} bytes WKB>" if g is not None else "" for g in geoms]
