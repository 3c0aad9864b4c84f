"""Two-line element sets (TLE): satellites' orbits as space agencies publish them.

Each satellite is two fixed-column lines of 69 characters, "1 ..." and "2 ...", often after a
line with its name. Read as text they are nothing; read by their columns they are one row per
satellite: its catalog number, the epoch of the elements and the orbit (inclination, right
ascension of the ascending node, eccentricity, argument of perigee, mean anomaly, mean motion).
`read_tle` is also the loader's parser (`text_records`).
"""

from __future__ import annotations

from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.profiling.text_records import records_table
from lakeboard.servers.profiling.text_sample import TextSample

MIN_SETS = 2  # element sets in the first lines for a file to be read as TLE
HEAD_LINES = 30
COVERED = 0.8  # share of the first lines that element sets and their names must hold


def read_tle(lines):
    """One dict per element set of `lines` (two-line or three-line format, the columns of the
    NORAD standard); lines that do not fit are skipped."""
    from datetime import datetime, timedelta

    def implied(text):  # " 10270-3" means 0.10270e-3: the point and the exponent's "e" are implied
        text = text.replace(" ", "")
        if not text.strip("+-0"):
            return 0.0
        sign = -1.0 if text[0] == "-" else 1.0
        text = text.lstrip("+-")
        return sign * float("0." + text[:-2] + "e" + text[-2:])

    rows, name, first = [], None, None
    for line in (ln.rstrip() for ln in lines):
        if not line.strip():
            continue
        if line.startswith("1 ") and len(line) >= 64:
            first = line
        elif line.startswith("2 ") and len(line) >= 63 and first is not None and first[2:7] == line[2:7]:
            try:
                year = int(first[18:20])
                epoch = datetime(year + (1900 if year >= 57 else 2000), 1, 1) + timedelta(days=float(first[20:32]) - 1)
                rows.append({
                    "name": name,
                    "catalog_number": int(first[2:7]),
                    "classification": first[7].strip(),
                    "international_designator": first[9:17].strip(),
                    "epoch": epoch,
                    "mean_motion_dot": float(first[33:43]),
                    "mean_motion_ddot": implied(first[44:52]),
                    "bstar": implied(first[53:61]),
                    "element_set_number": int(first[64:68]) if first[64:68].strip() else None,
                    "inclination_deg": float(line[8:16]),
                    "raan_deg": float(line[17:25]),
                    "eccentricity": float("0." + line[26:33].strip()),
                    "arg_perigee_deg": float(line[34:42]),
                    "mean_anomaly_deg": float(line[43:51]),
                    "mean_motion_rev_per_day": float(line[52:63]),
                    "revolution_number": int(line[63:68]) if line[63:68].strip() else None,
                })
            except ValueError:
                pass
            name, first = None, None
        else:  # a three-line set's name line ("0 NAME" in some catalogs)
            name, first = (line[2:] if line.startswith("0 ") else line).strip(), None
    return rows


def looks_like(lines: list[str]) -> bool:
    """The first lines are element sets (and their names), at least MIN_SETS of them."""
    head = [ln for ln in lines[: HEAD_LINES * 2] if ln.strip()][:HEAD_LINES]
    sets = len(read_tle(head))
    # each set is two lines, and at most one name line before it
    return sets >= MIN_SETS and 3 * sets >= COVERED * (len(head) - 2)


def profile(prof: FileProfile, sample: TextSample, lines: list[str]) -> None:
    rows = read_tle(lines)
    names = list(rows[0]) if rows else []
    tp = records_table(prof, sample, "tle", rows, names, "satellites' orbital elements: two-line element sets (TLE)")
    named = sum(1 for r in rows if r["name"])
    epochs = [r["epoch"] for r in rows]
    span = f", epochs {min(epochs):%Y-%m-%d} to {max(epochs):%Y-%m-%d}" if epochs else ""
    prof.summary = (f"two-line element sets (TLE): {tp.n_rows} satellites' orbital elements"
                    f"{' with names' if named else ''}{span} ({', '.join(names[:8])}, ...)")
