"""IPAC ASCII tables (NASA archives: the Exoplanet Archive, IRSA, HEASARC), via astropy.

`\\keyword = value` and `\\ comment` lines first, then up to four header lines between pipes
(names, types, units, the text that stands for null) over fixed-width rows. The column
descriptions among the comments, the units and the null text are what a reader needs;
astropy's `ascii.ipac` reader applies them (null cells come out masked, NaN in pandas).
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

from lakeboard.schemas.profiles import FileProfile, TableProfile
from lakeboard.servers.profiling.column_stats import STATS_ROWS, profile_frame, value_text

_KEYWORD = re.compile(r"^\\\w+\s*=")
HEADER_LINES = 4  # names, types, units, nulls


def is_ipac(text: str) -> bool:
    """The start of a file (`text`, whose last line may be cut) is an IPAC table's."""
    lines = text.splitlines()
    lines = lines[:-1] if len(lines) > 1 else lines
    first = next((i for i, ln in enumerate(lines) if not ln.startswith("\\")), len(lines))
    if first == len(lines):  # keywords fill the head (a long list of column descriptions)
        return len(lines) >= 3 and bool(_KEYWORD.match(lines[0]))
    head = lines[first].rstrip()
    if not (head.startswith("|") and head.endswith("|") and head.count("|") >= 3):
        return False
    end = first
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    # rows start under the header's first pipe: never with one (a pipe-delimited table's do)
    return end - first <= HEADER_LINES and (end == len(lines) or not lines[end].lstrip().startswith("|"))


def profile(path: Path, prof: FileProfile, det: object) -> None:
    from astropy.table import Table

    prof.format, prof.kind = "ipac", "table"
    with path.open(encoding="utf-8", errors="replace") as f:
        head = []
        for line in f:
            head.append(line)
            if not line.startswith(("\\", "|")) and len(head) > STATS_ROWS * 4:
                break
        n_rows = len(head) + sum(1 for _ in f)  # counted, not parsed
    comments = [ln[1:].strip() for ln in head if ln.startswith("\\") and not _KEYWORD.match(ln)]
    keywords = [ln[1:].strip() for ln in head if _KEYWORD.match(ln)]
    header = sum(1 for ln in head if ln.startswith(("\\", "|")))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # astropy warns of every departure from the standard
        try:
            table = Table.read(head, format="ascii.ipac")
        except Exception as e:  # noqa: BLE001 - astropy raises many kinds on a damaged table
            prof.status, prof.reason = "unreadable", f"not a readable IPAC table: {value_text(str(e), 200)}"
            return
    df = table.to_pandas()
    tp = TableProfile(n_rows=max(n_rows - header, len(df)), n_rows_exact=True, options={"layout": "ipac"})
    tp.columns, tp.sample_rows = profile_frame(df)
    units = [f"{c.name} {c.unit}" for c in table.columns.values() if c.unit is not None]
    tp.notes = [value_text(n, 300) for n in [*keywords[:10], *[c for c in comments if c][:40]]]
    tp.notes += [value_text("units: " + ", ".join(units), 1000)] if units else []
    prof.tables = [tp]
    if df.empty:
        prof.status, prof.reason = "empty", "the IPAC table holds a header and no rows"
        return
    cols = ", ".join(c.name for c in tp.columns[:8])
    prof.summary = f"IPAC table: {tp.n_rows} rows x {len(tp.columns)} columns ({cols})"
