"""GHCN-Daily station files (.dly): NOAA's daily weather records, one line per station, month and
element, 31 days across.

Each line is fixed columns: the station id (11 characters), the year, the month, the element
(TMAX, TMIN, PRCP, SNOW, ...), then for each day a value of 5 characters and three one-letter
flags (measurement, quality, source). Read as text it is a wall of digits; read by its columns it
is one row per station, day and element, the value a number (-9999, no value, is None) in the
element's units (tenths of °C, tenths of mm, mm). `read_ghcn_daily` is also the loader's parser
(`text_records`).
"""

from __future__ import annotations

import re

from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.profiling.text_records import records_table
from lakeboard.servers.profiling.text_sample import TextSample

HEAD_LINES = 20
COVERED = 0.8  # share of the first lines that must be such records
_LINE = re.compile(r"^[A-Z]{2}[A-Z0-9]{9}\d{4}(?:0[1-9]|1[0-2])[A-Z0-9]{4}[ \d-]{5}")


def read_ghcn_daily(lines):
    """One dict per day and element of `lines` (the .dly columns); days a month does not have are
    left out, and -9999 (no value) is None. Lines that do not fit are skipped."""
    import calendar

    rows = []
    for line in lines:
        line = line.rstrip("\r\n")
        if len(line) < 29 or not line[11:17].isdigit():
            continue
        station, year, month, element = line[:11], int(line[11:15]), int(line[15:17]), line[17:21]
        if not 1 <= month <= 12:
            continue
        for day in range(1, calendar.monthrange(year, month)[1] + 1):
            at = 21 + (day - 1) * 8
            field = line[at:at + 8].ljust(8)
            try:
                value = int(field[:5])
            except ValueError:
                continue
            rows.append({
                "station": station, "date": f"{year:04d}-{month:02d}-{day:02d}", "element": element,
                "value": None if value == -9999 else value,
                "mflag": field[5].strip() or None, "qflag": field[6].strip() or None, "sflag": field[7].strip() or None,
            })
    return rows


def looks_like(lines: list[str]) -> bool:
    head = [ln for ln in lines[: HEAD_LINES * 2] if ln.strip()][:HEAD_LINES]
    return len(head) >= 2 and sum(1 for ln in head if _LINE.match(ln)) >= COVERED * len(head)


def profile(prof: FileProfile, sample: TextSample, lines: list[str]) -> None:
    rows = read_ghcn_daily(lines)
    names = ["station", "date", "element", "value", "mflag", "qflag", "sflag"]
    tp = records_table(prof, sample, "ghcn_daily", rows, names,
                       "GHCN-Daily station records: one row per day and element (TMAX, TMIN, PRCP, SNOW ...), "
                       "values in tenths of °C and tenths of mm, -9999 as missing")
    elements = sorted({r["element"] for r in rows})
    dates = [r["date"] for r in rows]
    span = f", {min(dates)} to {max(dates)}" if dates else ""
    prof.summary = (f"GHCN-Daily station file: {tp.n_rows:,} daily values of {', '.join(elements[:8])}{span} "
                    f"({', '.join(names)})")
