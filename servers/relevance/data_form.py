"""Words for the form of a file's data, which names and columns rarely state.

A layer of polygons is a map of boundaries; rows one day apart are daily data. Requests
say "boundary polygons" or "daily readings"; these words let them meet such files.
"""

from __future__ import annotations

import statistics
from datetime import date

from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.time_coverage import DATE_IN_NAME
from lakeboard.servers.time_vocabulary import GRANULARITIES

_GEOMETRY_WORDS = {
    "POLYGON": "polygon polygons boundary boundaries area areas region regions map geometry shape spatial",
    "MULTIPOLYGON": "polygon polygons boundary boundaries area areas region regions map geometry shape spatial",
    "POINT": "point points location locations coordinates map geometry spatial",
    "MULTIPOINT": "point points location locations coordinates map geometry spatial",
    "LINESTRING": "line lines route routes path network map geometry spatial",
    "MULTILINESTRING": "line lines route routes path network map geometry spatial",
}


def geometry_words(profile: FileProfile) -> str:
    kinds = set()
    for table in profile.tables:
        for row in table.sample_rows[:20]:
            for value in row.values():
                if isinstance(value, str) and value[:20].split(" (")[0].upper() in _GEOMETRY_WORDS:
                    kinds.add(value.split(" (")[0].upper())
    return " ".join(_GEOMETRY_WORDS[k] for k in sorted(kinds))


def _dates(values: list[object]) -> list[date]:
    out = []
    for v in values:
        if not isinstance(v, str) or len(v) < 8:
            continue
        m = DATE_IN_NAME.search(v[:10])
        if m:
            try:
                out.append(date(int(m.group(1)), int(m.group(3)), int(m.group(4))))
            except ValueError:
                continue
    return out


def granularity_words(profile: FileProfile) -> str:
    """How far apart the rows of a dated table are, as words ("daily day")."""
    for table in profile.tables:
        for col in table.columns:
            seen = _dates([r.get(col.name) for r in table.sample_rows])
            # a time series: rows in date order (install dates of an inventory are not)
            if len(set(seen)) < 3 or seen != sorted(seen):
                continue
            days = sorted(set(seen))
            gap = statistics.median((b - a).days for a, b in zip(days, days[1:]))
            fits = next((g for g in GRANULARITIES if gap <= g.max_gap_days), None)
            return " ".join((*fits.adjectives, fits.unit)) if fits else ""
    return ""
