"""VOTable, the IVOA's XML for astronomical tables (archive and catalogue query results), via astropy.

Its FIELDs name the columns and give their units and descriptions; its rows are <TR>/<TD>
elements (or binary streams) that an HTML or XML reader cannot name. Each TABLE of the document
is a table of the profile.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from lakeboard.schemas.profiles import FileProfile, TableProfile
from lakeboard.servers.profiling.column_stats import profile_frame, unique_name, value_text
from lakeboard.servers.profiling.detect import Detection

MAX_TABLES = 20


def profile(path: Path, prof: FileProfile, det: Detection) -> None:
    from astropy.io.votable import parse

    prof.format, prof.kind = "votable", "table"
    names: set[str] = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # astropy warns of every departure from the standard
        try:
            document = parse(str(path), verify="ignore")
            tables = list(document.iter_tables())[:MAX_TABLES]
            for i, table in enumerate(tables):
                name = unique_name(str(table.ID or table.name or f"table {i + 1}"), names)
                df = table.to_table().to_pandas()
                tp = TableProfile(name=name, n_rows=len(df), n_rows_exact=True, options={"table": i})
                tp.columns, tp.sample_rows = profile_frame(df)
                tp.title = value_text(str(table.description), 200) if table.description else None
                units = [f"{f.name} {f.unit}" for f in table.fields if f.unit is not None]
                tp.notes = [n for n in (tp.title, "units: " + ", ".join(units) if units else "") if n]
                described = [f"{f.name}: {f.description}" for f in table.fields if f.description]
                tp.notes += [value_text("columns: " + "; ".join(described), 1000)] if described else []
                prof.tables.append(tp)
        except Exception as e:  # noqa: BLE001 - astropy raises many kinds on a damaged document
            prof.status, prof.reason = "unreadable", f"not a readable VOTable: {value_text(str(e), 200)}"
            prof.tables = []
            return
    if not prof.tables:
        prof.status, prof.reason = "empty", "the VOTable holds no table"
        return
    parts = [f"{t.name} ({t.n_rows} rows: {', '.join(c.name for c in t.columns[:6])})" for t in prof.tables[:5]]
    prof.summary = "VOTable: " + "; ".join(parts)

