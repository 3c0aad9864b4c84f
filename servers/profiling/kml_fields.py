"""Numbers a KML file leaves empty, which GDAL reads as 0.

ArcGIS writes a KML's attributes as `<SimpleData>` typed by a `<Schema>`; where a feature has no
value, its element is empty, and GDAL's KML drivers give an integer or real field 0 there (a fire
"0% contained" that was never reported). The profile and the loader read those cells as missing.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

_NUMERIC_FIELD = re.compile(r'<SimpleField\b[^>]*?\bname="([^"]+)"[^>]*?\btype="(?:u?int|short|ushort|float|double)"'
                            r'|<SimpleField\b[^>]*?\btype="(?:u?int|short|ushort|float|double)"[^>]*?\bname="([^"]+)"')
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


def numbers_left_empty(path: Path) -> list[str]:
    """The numeric fields of the file's schema that some placemark leaves empty."""
    if path.stat().st_size > MAX_KML_BYTES:
        return []
    text = kml_text(path)
    fields = [a or b for a, b in _NUMERIC_FIELD.findall(text)]
    return [c for c, flags in empty_cells(text, fields).items() if any(flags)]
