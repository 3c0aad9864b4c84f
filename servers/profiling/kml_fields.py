"""Numbers and flags a KML file leaves empty, which GDAL reads as 0 and False.

ArcGIS writes a KML's attributes as `<SimpleData>` typed by a `<Schema>`; where a feature has no
value, its element is empty, and GDAL's KML drivers give an integer or real field 0 there (a fire
"0% contained" that was never reported), a bool field False. The profile and the loader read
those cells as missing.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

_TYPED_FIELD = re.compile(r'<SimpleField\b[^>]*>')
_NUMBER_TYPES = {"int", "uint", "short", "ushort", "float", "double"}
MAX_KML_BYTES = 64 << 20  # larger files are not scanned (their empty numbers stay GDAL's 0)


def kml_text(path: Path) -> str:
    """The KML document of a .kml file or of a .kmz archive (its first .kml member)."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            name = next((n for n in z.namelist() if n.lower().endswith(".kml")), None)
            return z.read(name).decode("utf-8", "replace") if name else ""
    return path.read_text(encoding="utf-8", errors="replace")


def empty_cells(text: str, columns: list[str]) -> dict[str, list[bool]]:
    """Per column, one flag per placemark in the document's order: its `<SimpleData>` is empty."""
    placemarks = re.findall(r"<Placemark\b.*?</Placemark>", text, flags=re.S)
    out = {}
    for column in columns:
        empty = re.compile(r'<SimpleData name="' + re.escape(column) + r'"\s*(?:/>|>\s*</SimpleData>)')
        out[column] = [bool(empty.search(p)) for p in placemarks]
    return out


def typed_fields(text: str) -> dict[str, str]:
    """The schema's fields that GDAL reads as numbers or flags, by name, with the dtype that holds a
    gap in them ("float64" for a number, "object" for a flag)."""
    out = {}
    for tag in _TYPED_FIELD.findall(text):
        name, kind = re.search(r'\bname="([^"]+)"', tag), re.search(r'\btype="([^"]+)"', tag)
        if name and kind and (kind.group(1) in _NUMBER_TYPES or kind.group(1) == "bool"):
            out[name.group(1)] = "float64" if kind.group(1) in _NUMBER_TYPES else "object"
    return out


def left_empty(path: Path) -> dict[str, tuple[str, list[bool]]]:
    """The schema's numeric and bool fields that some placemark leaves empty: the dtype that holds
    their gaps, and one flag per placemark."""
    if path.stat().st_size > MAX_KML_BYTES:
        return {}
    text = kml_text(path)
    fields = typed_fields(text)
    return {c: (fields[c], flags) for c, flags in empty_cells(text, list(fields)).items() if any(flags)}
