"""Writing a file agent's response from profiles: loaders, explanation, sample, steps.

Everything comes from the profiles of the chosen files, so a response never reopens a
file. The loaders are typed (`lakeboard.schemas.messages.Loader`); the response's `code` is their
rendering (`lakeboard.common.loader_programs`), for a person or a model to read.
"""

from __future__ import annotations

import ast
import sys

from lakeboard.common.loaded_tables import expected_shapes
from lakeboard.schemas.families import TimeCoverage
from lakeboard.schemas.messages import Loader
from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.profiling.column_stats import FILL_VALUE_NOTE
from lakeboard.servers.profiling.families import layout_signature
from lakeboard.servers.profiling.loader_code import make_loader

_SAMPLE_ROWS = 5
_SAMPLE_CHARS = 1500


def loaders(profiles: list[FileProfile], families: dict[str, list[str]], groups: dict[str, str | None]) -> list[Loader]:
    """One loader per profile. `families` maps a file that stands for its family to every member
    it loads (itself first); `groups` maps a file to its family's key."""
    out = []
    for p in profiles:
        loader = make_loader(p)
        out.append(loader.model_copy(update={"paths": families.get(p.path) or [p.path], "family": groups.get(p.path),
                                             "check": p.loader_check, "expects": expected_shapes(p)}))
    return out


def sharing_key(p: FileProfile) -> str:
    """Files of one family with equal keys can share one loader: their loaders are the same code
    (comments and the function's name aside) and their layouts (sheets, columns, header offset)
    are the same. A member whose key differs from its family's file gets a loader of its own."""
    loader = make_loader(p)
    function = ast.parse(loader.source).body[0]
    assert isinstance(function, ast.FunctionDef)  # the Loader contract: one function
    function.name = "load"
    return "\n".join([*loader.imports, ast.unparse(function), layout_signature(p)])


def libraries(loaders: list[Loader]) -> list[str]:
    """The modules outside the standard library that the loaders import (their functions included)."""
    modules = set()
    for loader in loaders:
        for tree in [ast.parse(s) for s in loader.imports] + [ast.parse(loader.source)]:
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    modules.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    modules.add(node.module.split(".")[0])
    return sorted(m for m in modules if m not in sys.stdlib_module_names)


def explanation(
    p: FileProfile, role: str = "data", describes: list[str] | None = None, coverage: TimeCoverage | None = None,
    copies: list[str] | None = None,
) -> str:
    lines = [f"{p.path} ({p.format}, {p.size_bytes:,} bytes): {p.summary}"]
    if copies:
        lines.append(f"  The same bytes are also at: {', '.join(copies)} (one file, not two datasets).")
    if coverage is not None:
        where = "its name" if coverage.source == "name" else "its date columns, as far as sampled"
        lines.append(f"  It covers {coverage.start} to {coverage.end} (from {where}).")
    if role == "dictionary" and describes:
        lines.append(f"  It documents {', '.join(describes)}: a data dictionary of its columns, or a text beside it.")
    if role == "template":
        lines.append("  It holds no data: every column is a key or empty or one placeholder value (0, 0.5, blank), "
                     "the form an answer takes (a sample submission or an output template).")
    for t in p.tables:
        head = f"  table {t.name!r}" if t.name else "  table"
        rows = f"{t.n_rows:,}{'' if t.n_rows_exact else ' (estimated)'} rows" if t.n_rows is not None else "rows unknown"
        cols = ", ".join(f"{c.name} ({c.dtype})" for c in t.columns[:30])
        more = f" ... and {len(t.columns) - 30} more" if len(t.columns) > 30 else ""
        lines.append(f"{head}: {rows}; columns: {cols}{more}")
        for note in t.notes[:4]:
            lines.append(f"    note: {note}")
    for a in p.arrays[:10]:
        units = f", units {a.units}" if a.units else ""
        said = f": {'; '.join(a.descriptions[:2])}" if a.descriptions else ""
        lines.append(f"  array {a.name}: shape {a.shape}, dtype {a.dtype}{units}{said}")
    if p.attributes:
        lines.append("  attributes: " + "; ".join(f"{k}={v}" for k, v in list(p.attributes.items())[:8]))
    if p.text and not p.tables:
        lines.append(f"  begins: {p.text[:300]!r}")
    if p.loader_check is not None and not p.loader_check.verified:
        lines.append(f"  Its loader is {p.loader_check.sentence()}")
    return "\n".join(lines)


def sample(p: FileProfile) -> str:
    """The first rows of each table (or the leading text), for a person to eyeball."""
    parts = []
    for t in p.tables[:3]:
        if not t.sample_rows:
            continue
        cols = list(t.sample_rows[0].keys())
        rows = [" | ".join(cols)] + [
            " | ".join(str(r.get(c, ""))[:40] for c in cols) for r in t.sample_rows[:_SAMPLE_ROWS]
        ]
        parts.append((f"[{t.name}]\n" if t.name else "") + "\n".join(rows))
    for a in p.arrays[:3]:
        parts.append(f"{a.name}: {a.sample[:10]}")
    if not parts and p.text:
        parts.append(p.text[:600])
    return f"== {p.path}\n" + ("\n".join(parts) if parts else "(no sample)")


def samples(profiles: list[FileProfile]) -> str:
    text = "\n\n".join(sample(p) for p in profiles)
    return text if len(text) <= _SAMPLE_CHARS * max(1, len(profiles)) else text[: _SAMPLE_CHARS * len(profiles)] + "\n..."


def necessary_steps(profiles: list[FileProfile]) -> list[str]:
    """What a data scientist must do to use these files correctly, from their profiles."""
    steps: list[str] = []
    for p in profiles:
        for t in p.tables:
            where = f"{p.path}" + (f" [{t.name}]" if t.name else "")
            if t.header_row:
                steps.append(f"{where}: the header is on row {t.header_row} (0-based); skip the {t.header_row} lines above it.")
            if t.delimiter and t.delimiter not in (",",):
                steps.append(f"{where}: fields are separated by {t.delimiter!r}.")
            opts = t.options or {}
            if opts.get("thousands"):
                steps.append(f"{where}: numbers use {opts['thousands']!r} as thousands separator; parse with thousands={opts['thousands']!r}.")
            if opts.get("nrows") or opts.get("skipfooter"):
                steps.append(f"{where}: notes follow the data; read only the data rows (see the loading code).")
            for option, what in (("na_values", "missing markers"), ("fill_values", "fill values")):
                if opts.get(option):
                    steps.append(f"{where}: {what} {_tokens(opts[option])} mean no data; the loader reads them as missing.")
            steps += [f"{where}: {note}." for note in t.notes if note.startswith(FILL_VALUE_NOTE)][:3]
        if p.encoding and p.encoding.lower() not in ("utf-8", "ascii", "utf_8"):
            steps.append(f"{p.path}: the text encoding is {p.encoding}.")
        if len(p.tables) > 1 and p.format in ("excel", "xlsx", "xls"):
            steps.append(f"{p.path}: the workbook has {len(p.tables)} sheets: {', '.join(str(t.name) for t in p.tables)}.")
    steps.extend(_join_hints(profiles))
    return steps


def _tokens(option: list | dict) -> str:
    """A reader's missing-value option in a few words: `'M', 'n.a.'` or `'M' in 'temp'; ...`."""
    if isinstance(option, dict):
        return "; ".join(f"{', '.join(map(repr, v))} in {k!r}" for k, v in list(option.items())[:4]) + (
            f"; and in {len(option) - 4} more columns" if len(option) > 4 else "")
    return ", ".join(map(repr, option[:6]))


def _join_hints(profiles: list[FileProfile]) -> list[str]:
    hints = []
    for i, a in enumerate(profiles):
        for b in profiles[i + 1 :]:
            shared = sorted({c.lower() for c in a.column_names} & {c.lower() for c in b.column_names})
            shared = [c for c in shared if not c.startswith("unnamed")]
            if shared:
                hints.append(f"{a.path} and {b.path} share columns {', '.join(shared[:5])}: candidates to join on.")
    return hints
