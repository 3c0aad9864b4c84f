"""Values that mean "no data", as the lake's own text declares them.

A format description says it in a sentence: "missing values are coded as -9999", "fill value
1e30", "-999 = no data", "values shown as 'M' are missing". `declared_fill_values` reads such
sentences; the readers apply what a note in the file itself declares, and
`fill_declarations` finds what a document beside the files declares (a README,
notes, a data dictionary whose row for a column says it), once the whole lake is profiled.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from lakeboard.common.file_names import README_NAMES
from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.profiling.column_stats import marker_shaped, missing_word
from lakeboard.servers.profiling.declarations import Declarations

_KEY = (
    r"(?:missing|no[ _-]?data|nodata|fill[ _-]?values?|_fillvalue|not\s+available|unavailable|"
    r"not\s+(?:measured|recorded|reported|computed|calculated|determined)|absent|null|undefined|unknown)"
)
_KEY_WORD = re.compile(_KEY, re.IGNORECASE)
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
# An unquoted token is taken only when shaped like a marker: "M", "NA", "n.a.", "n/a", "#VALUE!", "-", "..".
_TOKEN = r"(?:#[A-Za-z0-9/!?]{1,8}|\b[A-Za-z]{1,2}(?:[./][A-Za-z]{1,2})?\.?(?![\w/])|[^\s\w,;:=\"'()]{1,3})"
_VALUE = rf"(?:{_NUMBER}(?![\w.]*\w)|\"[^\"\s]{{1,10}}\"|'[^'\s]{{1,10}}'|“[^”\s]{{1,10}}”|{_TOKEN})"
_MORE = rf"(?:\s*(?:,|/|\bor\b|\band\b)\s*{_VALUE})*"
# "missing values are coded as -9999", "fill value: 1e30", "NODATA_value -9999"
_KEY_FIRST = re.compile(
    rf"\b{_KEY}\w*(?:\s+[A-Za-z]+)?"  # "missing values", "missing counts"
    r"(?:\s+(?:is|are|was|were|have\s+been|has\s+been))?"
    r"(?:\s+(?:coded|given|recorded|represented|indicated|denoted|marked|set|flagged|shown|reported|stored|"
    r"encoded|filled|written|replaced|entered))?"
    rf"(?:\s+(?:as|by|with|to|using))?\s*[:=]?\s*(?P<values>{_VALUE}{_MORE})",
    re.IGNORECASE,
)
# "-9999 = missing", "a value of 99999.9 means no data", "'M' indicates missing"
_VALUE_FIRST = re.compile(
    rf"(?<![\w.])(?P<values>{_VALUE}{_MORE})\s*(?:=|:|\bmeans?\b|\bindicates?\b|\bdenotes?\b|\brepresents?\b|"
    r"\bsignif(?:y|ies)\b|\bstands?\s+for\b|\b(?:is|are)\s+used\s+(?:for|to\s+(?:indicate|mark|denote))\b)"
    rf"\s*(?:[A-Za-z]+\s+){{0,2}}{_KEY}",
    re.IGNORECASE,
)
# "Missing data values: Density and Speed = -9999.9, Temp. = -1.00e+05": a value per label
_KEY_LABELLED = re.compile(
    rf"\b{_KEY}\w*(?:\s+[A-Za-z]+){{0,2}}\s*:\s*(?P<pairs>(?:[A-Za-z][\w .()/]*?\s*=\s*{_NUMBER}\s*(?:[,;]\s*|$))+)$",
    re.IGNORECASE,
)
_LABELLED_VALUE = re.compile(rf"=\s*({_NUMBER})")
# "The value for missing source data that cannot be computed ...: -999": a sentence about the value
# for missing data that ends with it (a count, "missing days: 12", names no value and is not taken)
_VALUE_AT_END = re.compile(
    rf"^(?=.*\b{_KEY})(?=.*\bvalues?\b).*[:=]\s*(?P<value>{_NUMBER})\s*\.?\s*$", re.IGNORECASE)
# a line that is the key and the value, nothing else: "MISSING VALUE 99900.000" (PODAAC's headers)
_KEY_AND_VALUE = re.compile(rf"^\W*(?:missing|fill)[ _-]?values?\s+(?P<value>{_NUMBER})\s*$", re.IGNORECASE)
_A_QUANTITY = re.compile(
    r"^\W*(?:the\s+)?(?:number|count|percent(?:age)?|share|fraction|proportion|rate|total|amount|sum)\s+of\b",
    re.IGNORECASE)
_LINK_END = (r"[:=]$|\b(?:as|by|with|to|using|is|are|coded|given|recorded|represented|indicated|denoted|marked|"
             r"set|flagged|shown|reported|stored|encoded|filled|written|replaced|entered)$")
_SPLIT = re.compile(rf"\s*(?:,|/|\bor\b|\band\b)\s*(?={_VALUE})", re.IGNORECASE)
_SLASHED_WORD = re.compile(r"(?<![\w/])[A-Za-z]/[A-Za-z](?![\w/])")
_BARE_KEYS = re.compile(r"^(?:fill|nodata|no[ _-]?data|_fillvalue)", re.IGNORECASE)


_CODE = re.compile(r"(?<![\w.-])\d\s*=")  # "9 = …": one digit coding a state


def declared_fill_values(text: str) -> list[str]:
    """The values a sentence of `text` declares as meaning "no data", in order, without repeats.

    Numbers as written ("-9999", "1e30"), and short tokens ("M", "n.a.") when they are quoted or
    read as a missing marker. A number needs a linking word ("coded as", "=", "means") between it
    and the key word, so "missing 12 stations" declares nothing; a fill value or nodata key may be
    followed by its value directly ("NODATA_value -9999").
    """
    found: list[str] = []
    for sentence in re.split(r"\n|(?<=[.;!?])\s+(?=[A-Z(])", text):
        if _A_QUANTITY.match(sentence):
            continue  # "Number of missing values: 3" counts the gaps; it names no value that marks one
        if len(_CODE.findall(sentence)) >= 2:
            continue  # a status column's codes ("0 = nominal, 1 to 8 = bad record, 9 = no data"): its 9 is
            # no fill value, and dropped everywhere it would take every day 9 and every September
        for m in _KEY_FIRST.finditer(sentence):
            linked = m.group(0)[: m.start("values") - m.start()].strip()
            if not re.search(_LINK_END, linked, re.IGNORECASE) and not (
                _BARE_KEYS.match(linked)
            ):
                continue
            found.extend(_values(m.group("values")))
        for m in _VALUE_FIRST.finditer(sentence):
            found.extend(_values(m.group("values")))
        for m in _KEY_LABELLED.finditer(sentence):
            found.extend(v for raw in _LABELLED_VALUE.findall(m.group("pairs")) for v in _values(raw))
        if m := _VALUE_AT_END.match(sentence.strip()) or _KEY_AND_VALUE.match(sentence.strip()):
            found.extend(_values(m.group("value")))
    return list(dict.fromkeys(found))


def _values(group: str) -> list[str]:
    out = []
    # "n/a" is one marker, not "n" and "a": its slash is kept from the split
    group = _SLASHED_WORD.sub(lambda m: m.group(0).replace("/", "\0") if missing_word(m.group(0)) else m.group(0), group)
    for raw in _SPLIT.split(group.strip()):
        v = raw.strip().replace("\0", "/")
        quoted = v[:1] in "\"'“" and len(v) >= 2
        v = v.strip("\"'“”")
        if re.fullmatch(_NUMBER, v):
            out.append(v.removesuffix(".") if v[:-1].replace("-", "").replace("+", "").isdigit() else v)
        elif quoted and v:
            out.append(v)
        else:
            v = v.rstrip(".") if v.count(".") == 1 and v.endswith(".") else v  # a sentence's full stop
            if v and marker_shaped(v):
                out.append(v)
    return out


def as_na_value(token: str) -> str | int | float:
    """A declared token as a value a sheet's cell holds: numbers as numbers (a number cell is
    compared by value), text as written. (read_csv compares numeric na_values by value already.)"""
    if re.fullmatch(_NUMBER, token):
        number = float(token)
        return int(number) if number.is_integer() and abs(number) < 2**53 and "e" not in token.lower() else number
    return token


# -- the lake-level pass ----------------------------------------------------------------------------
_DOC_NAMES = (*README_NAMES, "dictionary")


def fill_declarations(profiles: list[FileProfile]) -> dict[str, Declarations]:
    """The files to profile again with what the lake's documents declare missing for them.

    A text document describes the tables in its folder and below it when its name says it is a
    README (readme, notes, codebook ...), and any table whose file name it mentions. A data
    dictionary (`lakeboard.servers.relevance.dictionaries`) declares per column: its row naming the
    column says "-9999 = missing". A file that a document names, or whose profile shows a declared
    value, is profiled again with the declarations (so its reader options, column types, ranges,
    loader and loader check are those of a file that declared them itself); a README's value is not
    applied to a file below it that never shows it.
    """
    by_path = {p.path: p for p in profiles}
    return {path: decl for path, decl in _declarations(profiles).items()
            if decl and by_path[path].status == "ok" and (decl.named or _shows_any(by_path[path], decl))}


def _declarations(profiles: list[FileProfile]) -> dict[str, Declarations]:
    from lakeboard.servers.relevance.dictionaries import link_dictionaries

    tables = [p for p in profiles if p.status == "ok" and p.tables and p.format in ("csv", "tsv", "fwf", "excel")]
    out: dict[str, Declarations] = {}
    docs = [p for p in profiles if p.status == "ok" and p.text and not p.tables]
    for doc in docs:
        values = declared_fill_values(doc.text or "")
        if not values:
            continue
        folder = PurePosixPath(doc.path).parent
        readme = PurePosixPath(doc.path).stem.lower().startswith(_DOC_NAMES)
        text = (doc.text or "").lower()
        for t in tables:
            p = PurePosixPath(t.path)
            inside = folder == PurePosixPath(".") or folder in p.parents
            named = p.name.lower() in text or (len(p.stem) >= 4 and p.stem.lower() in text)
            # A README over a folder speaks of its files in general: a small number it declares
            # ("recorded as 0") is not taken for files it does not name, where 0 is likely a value.
            kept = values if named else [v for v in values if _far_from_data(v)]
            if kept and ((readme and inside) or named):
                decl = out.setdefault(t.path, Declarations())
                decl.everywhere = list(dict.fromkeys(decl.everywhere + kept))
                decl.named = decl.named or named
                decl.sources = list(dict.fromkeys([*decl.sources, doc.path]))
    # Linking dictionaries to data costs seconds on a big lake: only when a table's rows say "missing".
    if not any(_says_missing(p) for p in profiles):
        return out
    by_path = {p.path: p for p in profiles}
    for data_path, dictionaries in link_dictionaries(profiles).closest.items():
        data = by_path.get(data_path)
        if data is None or data.format not in ("csv", "tsv", "fwf", "excel"):
            continue
        names = {c.strip().lower(): c for c in data.column_names}
        for dict_path in dictionaries:
            dictionary = by_path.get(dict_path)
            for table in dictionary.tables if dictionary else []:
                for row in table.sample_rows:
                    cells = [str(v) for v in row.values() if v is not None]
                    column = next((names[c.strip().lower()] for c in cells if c.strip().lower() in names), None)
                    values = [v for c in cells for v in declared_fill_values(c)]
                    if column and values:
                        decl = out.setdefault(data_path, Declarations())
                        decl.by_column[column] = list(dict.fromkeys(decl.by_column.get(column, []) + values))
                        decl.named = True
                        decl.sources = list(dict.fromkeys([*decl.sources, dict_path]))
    return out


def _says_missing(profile: FileProfile) -> bool:
    """A cell of the profile's sampled rows holds a key word of a declaration ("missing", "fill value" ...)."""
    return any(isinstance(v, str) and _KEY_WORD.search(v)
               for t in profile.tables for row in t.sample_rows for v in row.values())


def _far_from_data(token: str) -> bool:
    """A text marker, or a number of sentinel size (|v| >= 99: -99, -999, 9999, 1e30)."""
    try:
        return abs(float(token)) >= 99
    except ValueError:
        return True


def _shows_any(prof: FileProfile, decl: Declarations) -> bool:
    """A declared value among a column's sampled values (its range ends, examples or common values)."""
    for table in prof.tables:
        for col in table.columns:
            wanted = decl.everywhere + decl.by_column.get(col.name, [])
            seen = [col.minimum, col.maximum, *col.examples, *col.top_values]
            if any(_same(v, w) for v in seen if v is not None for w in wanted):
                return True
    return False


def _same(seen: str, declared: str) -> bool:
    if seen == declared:
        return True
    try:
        return float(seen) == float(declared)
    except ValueError:
        return False


def add_na_values(
    opts: dict[str, Any], labels: list[Any], everywhere: list[str], by_column: dict[Any, list[str]], *, excel: bool = False
) -> None:
    """Add missing-value tokens to a table's reader options (columns known by their pandas `labels`).

    `na_values` stays a list while every token holds everywhere, and becomes a dict {column:
    tokens} once one holds in some columns only (a dict leaves out the columns it does not name,
    so tokens of every column then go under each label). Spreadsheet readers apply na_values to
    text cells only: a number cell equal to a fill value is masked after reading instead (the
    option `fill_values`, which the loader writes as a `mask`).
    """
    common: list[Any] = list(everywhere)
    per: dict[Any, list[Any]] = {k: list(vs) for k, vs in by_column.items()}
    if excel:
        common = [as_na_value(v) for v in common]
        per = {k: [as_na_value(v) for v in vs] for k, vs in per.items()}
        numbers = _numbers_only(common, per)
        if numbers:
            opts["fill_values"] = _merge(opts.get("fill_values"), labels, *numbers)
        common = [v for v in common if isinstance(v, str)]
        per = {k: [v for v in vs if isinstance(v, str)] for k, vs in per.items()}
    per = {k: vs for k, vs in per.items() if vs}
    if common or per:
        opts["na_values"] = _merge(opts.get("na_values"), labels, common, per)


def _numbers_only(common: list[Any], per: dict[Any, list[Any]]) -> tuple[list[Any], dict[Any, list[Any]]] | None:
    nums = [v for v in common if not isinstance(v, str)]
    per_nums = {k: [v for v in vs if not isinstance(v, str)] for k, vs in per.items()}
    per_nums = {k: vs for k, vs in per_nums.items() if vs}
    return (nums, per_nums) if nums or per_nums else None


def _merge(current: Any, labels: list[Any], common: list[Any], per: dict[Any, list[Any]]) -> list[Any] | dict[Any, list[Any]]:
    if isinstance(current, dict):
        shared: list[Any] = []
        columns = {k: list(v) for k, v in current.items()}
    else:
        shared, columns = list(current or []), {}
    shared = list(dict.fromkeys(shared + common))
    for k, vs in per.items():
        columns[k] = list(dict.fromkeys(columns.get(k, []) + vs))
    if not columns:
        return shared
    if shared:
        for label in labels:
            columns[label] = list(dict.fromkeys(shared + columns.get(label, [])))
    return columns
