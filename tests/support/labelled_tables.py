"""The labelled set of messy files: each file's expected table, and the check of a loader against it.

The labels live in `tests/servers/profiling/labelled_tables.json`, written by hand from each raw
file. The test (`tests/servers/profiling/test_labelled_loaders.py`) and the benchmark
(`benchmarks/bench_loaders.py`) both run loader programs through `run_programs` (one Python
process for all of them, each program bounded in time) and judge what they loaded with `problems`.

How a loaded table is compared with its label:
- The table is `data` itself when it is a DataFrame; from a dict of tables, the labelled sheet
  (or the only table when the label names none).
- Column names are compared stripped; a MultiIndex header is joined "top bottom" with one space
  (levels named "Unnamed: ..." left out); a pandas de-duplication suffix (".1") is dropped when
  the bare name came earlier; an unnamed column that is entirely empty is ignored. A named index
  counts as a column.
- Rows: rows with at least one value (blank rows are ignored wherever they are). A label gives
  an exact count, or [low, high] where the raw file leaves room.
- `numeric`: those columns have a numeric dtype. `markers`: no cell still holds the token (text
  cells compared stripped; a marker that is a number is looked for in numeric cells too).
- `first` / `last`: spot values of the first and last data row, by column.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
LABELS = REPO / "tests" / "servers" / "profiling" / "labelled_tables.json"
LAKE_ROOTS: dict[str, Path] = {
    "kramabench/archeology": SHARED / "kramabench" / "archeology" / "input",
    "kramabench/legal": SHARED / "kramabench" / "legal" / "input",
    "kramabench/wildfire": SHARED / "kramabench" / "wildfire" / "input",
    "dabench": SHARED / "dabench" / "input",
    "demo": REPO / "lakes" / "demo",
    "general": REPO / "lakes" / "general",
}
EXCEL_SUFFIXES = {".xlsx", ".xlsm", ".xls"}


@dataclass(frozen=True)
class Case:
    lake: str
    path: str
    table: str | None
    columns: list[str]
    rows: int | list[int]
    numeric: list[str] = field(default_factory=list)
    markers: list[str] = field(default_factory=list)
    n_columns: int | None = None  # set for wide tables: `columns` is then the first few names
    first: dict[str, Any] = field(default_factory=dict)
    last: dict[str, Any] = field(default_factory=dict)
    why: str = ""

    @property
    def id(self) -> str:
        return f"{self.lake}:{self.path}"

    @property
    def root(self) -> Path:
        return LAKE_ROOTS[self.lake]

    @property
    def file(self) -> Path:
        return self.root / self.path

    @property
    def available(self) -> bool:
        return self.root.is_dir() and self.file.is_file()


def load_cases(path: Path = LABELS) -> list[Case]:
    return [Case(**item) for item in json.loads(path.read_text(encoding="utf-8"))["cases"]]


def pandas_default_program(case: Case) -> str:
    """What a user gets from pandas with no options: read_csv, or read_excel of every sheet."""
    if case.file.suffix.lower() in EXCEL_SUFFIXES:
        return f"import pandas as pd\ndata = pd.read_excel({str(case.file)!r}, sheet_name=None)\n"
    return f"import pandas as pd\ndata = pd.read_csv({str(case.file)!r})\n"


# Runs each program in its own namespace, picks the labelled table from its `data` and
# summarises it as JSON (names, dtypes, marker cells, row count, first and last row), so the
# parent compares typed data and one failing program does not stop the others.
RUNNER = r"""
import json, signal, sys
import numpy as np
import pandas as pd

def on_alarm(signum, frame):
    raise TimeoutError("the program ran longer than %d s" % LIMIT)

def name_of(c):
    if isinstance(c, tuple):
        parts = [str(p).strip() for p in c if p is not None and str(p).strip() and str(p) != "nan"
                 and not str(p).startswith("Unnamed:")]
        return " ".join(parts)
    return "" if c is None else str(c).strip()

def cell(v):
    try:
        if v is None or (not isinstance(v, (str, bytes)) and pd.isna(v)):
            return None
    except (TypeError, ValueError):
        pass
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, float, np.integer, np.floating)):
        return float(v)
    return str(v)

def pick(data, table):
    if isinstance(data, pd.DataFrame):
        return data
    if isinstance(data, dict):
        if table is not None:
            if table not in data:
                raise LookupError("no table %r; the program returned %s" % (table, list(data)[:10]))
            value = data[table]
        elif len(data) == 1:
            value = next(iter(data.values()))
        else:
            raise LookupError("%d tables and the label names none: %s" % (len(data), list(data)[:10]))
        if isinstance(value, pd.DataFrame):
            return value
        raise TypeError("table %r is a %s, not a DataFrame" % (table, type(value).__name__))
    raise TypeError("data is a %s, not a DataFrame or a dict of them" % type(data).__name__)

def summarize(df, markers):
    if df.index.name is not None or isinstance(df.index, pd.MultiIndex):
        df = df.reset_index()
    blank = pd.DataFrame(False, index=df.index, columns=range(df.shape[1]))
    columns = []
    for j in range(df.shape[1]):
        s = df.iloc[:, j]
        numeric = bool(pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s))
        texts = None if numeric else s.map(lambda v: v.strip() if isinstance(v, str) else None)
        blank[j] = s.isna() | (texts.eq("") if texts is not None else False)
        hits = 0
        for m in markers:
            if texts is not None:
                hits += int(texts.eq(m).sum())
            else:
                try:
                    hits += int((s == float(m)).sum())
                except ValueError:
                    pass
        columns.append({"name": name_of(df.columns[j]), "numeric": numeric, "dtype": str(s.dtype),
                        "empty": bool(blank[j].all()), "marker_cells": hits})
    kept = df[~blank.all(axis=1).to_numpy()]
    row = lambda i: [cell(v) for v in kept.iloc[i]] if len(kept) else None
    return {"columns": columns, "rows": int(len(kept)), "first": row(0), "last": row(-1)}

LIMIT = int(sys.argv[1])
signal.signal(signal.SIGALRM, on_alarm)
results = {}
for job in json.load(sys.stdin):
    ns = {}
    signal.alarm(LIMIT)
    try:
        exec(compile(job["code"], job["key"], "exec"), ns)
        if "data" not in ns:
            raise NameError("the program binds no `data`")
        results[job["key"]] = {"error": None, "table": summarize(pick(ns["data"], job["table"]), job["markers"])}
    except BaseException as e:
        results[job["key"]] = {"error": ("%s: %s" % (type(e).__name__, e))[:300], "table": None}
    finally:
        signal.alarm(0)
json.dump(results, sys.stdout)
"""


def run_programs(jobs: list[dict[str, Any]], limit_s: int = 60, timeout_s: float = 900) -> dict[str, dict[str, Any]]:
    """Runs every job ({key, code, table, markers}) in one fresh Python process; key -> {error, table}."""
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER, str(limit_s)],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"the loader runner died: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def job(key: str, code: str | None, case: Case) -> dict[str, Any]:
    """One program to run for `case`; a missing program fails as such."""
    code = code or "raise RuntimeError('no program')"
    return {"key": key, "code": code, "table": case.table, "markers": case.markers}


_SUFFIX = re.compile(r"^(.*)\.(\d+)$")


def _names(columns: list[dict[str, Any]]) -> list[str]:
    names: list[str] = []
    for c in columns:
        m = _SUFFIX.match(c["name"])
        names.append(m.group(1) if m and m.group(1) in names else c["name"])
    return names


def _unnamed(name: str) -> bool:
    return name in ("", "nan", "None") or name.startswith("Unnamed:")


def _same(expected: Any, got: Any) -> bool:
    if expected is None:
        return got is None
    if isinstance(expected, (int, float)) and not isinstance(expected, bool):
        if isinstance(got, str):
            try:
                got = float(got.strip())
            except ValueError:
                return False
        return isinstance(got, float) and math.isclose(got, float(expected), rel_tol=1e-9, abs_tol=1e-9)
    return isinstance(got, str) and got.strip() == str(expected).strip()


def problems(case: Case, result: dict[str, Any]) -> list[str]:
    """Where the loaded table disagrees with the label, one short sentence each (empty: it agrees)."""
    if result.get("error"):
        return [f"the program failed: {result['error']}"]
    table = result["table"]
    index = [i for i, c in enumerate(table["columns"]) if not (c["empty"] and _unnamed(c["name"]))]
    kept = [table["columns"][i] for i in index]
    names = _names(kept)
    out = []
    if case.n_columns is not None:
        if names[: len(case.columns)] != case.columns or len(names) != case.n_columns:
            out.append(f"columns: expected {case.n_columns} starting {case.columns}, got {len(names)}: {names[:8]}")
    elif names != case.columns:
        out.append(f"columns: expected {case.columns}, got {names}")
    low, high = (case.rows, case.rows) if isinstance(case.rows, int) else case.rows
    if not low <= table["rows"] <= high:
        out.append(f"rows: expected {case.rows}, got {table['rows']}")
    by_name: dict[str, list[int]] = {}
    for i, n in enumerate(names):
        by_name.setdefault(n, []).append(i)
    text = {names[i]: kept[i]["dtype"] for n in case.numeric for i in by_name.get(n, []) if not kept[i]["numeric"]}
    if text:
        out.append("not numeric: " + ", ".join(f"{n} ({dtype})" for n, dtype in text.items()))
    marked = [f"{names[i]} ({c['marker_cells']})" for i, c in enumerate(kept) if c["marker_cells"]]
    if marked:
        out.append(f"markers {case.markers} still in: {', '.join(marked)}")
    for which, spots in (("first", case.first), ("last", case.last)):
        row = table[which]
        for column, expected in spots.items():
            if column not in by_name or row is None:
                continue  # a missing column is reported above
            got = row[index[by_name[column][0]]]
            if not _same(expected, got):
                out.append(f"{which} row: {column} expected {expected!r}, got {got!r}")
    return out
