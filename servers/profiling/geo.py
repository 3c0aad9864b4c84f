"""Vector geodata (GeoPackage, GeoJSON, Shapefile, ...) via pyogrio: layers, CRS, fields, first features."""

from __future__ import annotations

import warnings
import zipfile
from pathlib import Path
from typing import Any

from lakeboard.schemas.profiles import ColumnProfile, FileProfile, TableProfile
from lakeboard.servers.profiling.column_stats import profile_frame
from lakeboard.servers.profiling.detect import Detection
from lakeboard.servers.profiling.kml_fields import left_empty

SAMPLE_FEATURES = 500
MAX_LAYERS = 50


def profile(path: Path, prof: FileProfile, det: Detection) -> None:
    import pyogrio

    prof.kind = "geo"
    prof.format = "geo"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # GDAL's chatter about damaged files; the reason says it
        _profile(path, prof, pyogrio)


def source_of(path: Path) -> tuple[str, str | None]:
    """What GDAL opens for `path`, and the member of a zip it names: a shapefile in a folder of a
    zip (as city portals pack them) is opened through /vsizip/ by its path in the archive."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            shapes = [n for n in z.namelist() if n.lower().endswith(".shp")]
        if shapes and "/" in shapes[0]:
            return f"/vsizip/{path}/{shapes[0]}", shapes[0]
    return str(path), None


def _profile(path: Path, prof: FileProfile, pyogrio: Any) -> None:
    source, member = source_of(path)
    try:
        layers = pyogrio.list_layers(source)
    except Exception as e:  # noqa: BLE001 - GDAL errors come in many classes
        prof.status = "unreadable"
        prof.reason = f"not readable as geographic data (GDAL: {str(e)[:300]})"
        return
    if member:
        prof.attributes["member"] = member
    if not len(layers):
        prof.status = "empty"
        prof.reason = "the file holds no layers"
        return
    for name, geom_type in list(layers)[:MAX_LAYERS]:
        prof.tables.append(_layer(path, source, str(name), geom_type, prof, len(layers)))
    if len(layers) > MAX_LAYERS:
        prof.attributes["layers"] = f"{len(layers)} (first {MAX_LAYERS} profiled)"
    parts = []
    for t in prof.tables[:5]:
        cols = ", ".join(c.name for c in t.columns[:6] if c.name != "geometry")
        count = f"{t.n_rows} " if t.n_rows is not None else ""  # OpenStreetMap's layers are not counted
        parts.append(f"{t.options.get('layer')} ({count}{t.options.get('geometry_type') or ''} features; {cols})")
    crs = prof.attributes.get("crs", "no CRS")
    driver = prof.attributes.get("driver", "")
    prof.summary = f"{driver or 'geographic'} data, {len(layers)} layer(s), {crs}: " + "; ".join(parts)


def _layer(path: Path, source: str, name: str, geom_type: Any, prof: FileProfile, n_layers: int) -> TableProfile:
    import pandas as pd
    import pyogrio

    info = pyogrio.read_info(source, layer=name)
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
    meta, _fids, geoms, fields = pyogrio.raw.read(source, layer=name, max_features=SAMPLE_FEATURES)
    df = pd.DataFrame({str(c): v for c, v in zip(meta["fields"], fields)})
    if "KML" in str(info.get("driver", "")) and n_layers == 1:
        # values a placemark leaves empty: GDAL's 0 or False, read as missing (one layer: its features are the placemarks)
        empty = {c: found for c, found in left_empty(path).items() if c in df.columns}
        if empty:
            tp.options["kml_empty"] = {c: dtype for c, (dtype, _) in empty.items()}
            for column, (dtype, flags) in empty.items():
                if len(flags) == n:
                    df[column] = df[column].astype(dtype).mask(flags[: len(df)])
            tp.notes.append("values left empty in the KML read as missing (GDAL reads them as 0 or False): "
                            + ", ".join(empty))
    tp.columns, tp.sample_rows = profile_frame(df)
    if geoms is not None:
        wkt = wkt_examples(geoms[:20])
        for row, g in zip(tp.sample_rows, wkt):
            row["geometry"] = g
        tp.columns.append(
            ColumnProfile(name="geometry", dtype="geometry", examples=wkt[:3], n_unique=None, null_fraction=None)
        )
    return tp


def wkt_examples(geoms: Any) -> list[str]:
    """Shapes written as WKB, as short WKT (examples of a geometry column)."""
    try:
        import shapely

        out = []
        for g in shapely.from_wkb(geoms):
            t = g.wkt if g is not None else ""
            out.append(t if len(t) <= 80 else t[:79] + "…")
        return out
    except Exception:  # noqa: BLE001 - a preview only
        return [f"<{len(g)} bytes WKB>" if g is not None else "" for g in geoms]
