"""JSON and JSON lines: structure, keys, first objects, and the record list to normalise."""

from __future__ import annotations

import json
from itertools import chain
from pathlib import Path
from typing import Any

from lakeboard.schemas.profiles import FileProfile, TableProfile
from lakeboard.servers.profiling.column_stats import (
    STATS_ROWS,
    fill_values_of,
    is_number_text,
    profile_typed,
    spread_indices,
    unique_names,
    value_text,
    without_numbers,
)
from lakeboard.servers.profiling.detect import Detection
from lakeboard.servers.profiling.nested_records import meta_fields, nested_rows, nested_table
from lakeboard.servers.profiling.text_sample import HEAD_BYTES, detect_encoding, read_text_sample

FULL_BYTES = 8 << 20  # JSON documents up to this size are parsed whole

import orjson

# orjson turns integers beyond 64 bits into floats instead of failing: documents with a run
# of 19+ digits (found by mapping every digit to "0", in C) go to the standard module.
# One translated copy answers both checks: digits become 0 (long numbers), { becomes [ (depth).
_SAFETY_FOLD = bytes.maketrans(b"123456789{", b"000000000[")
_LONG_NUMBER = b"0" * 19
# orjson recurses on the C stack and crashes the process beyond ~100k nesting levels; the
# count of brackets bounds the depth (json raises RecursionError instead).
_ORJSON_MAX_BRACKETS = 20_000


def profile(path: Path, prof: FileProfile, det: Detection) -> None:
    if det.format == "jsonl":
        _jsonl(path, prof, det)
    elif det.format == "yaml":
        _yaml(path, prof, det)
    else:
        _json(path, prof, det)


_YAML_ALIASES = 100  # references (*name) a YAML document may hold: each may copy a whole subtree


def _yaml(path: Path, prof: FileProfile, det: Detection) -> None:
    """A YAML document read as JSON is (a config with a list of runs, a dataset's card): its
    record lists are tables. `yaml.safe_load` builds plain values only, never objects the file
    names. Too big, too many references (a "billion laughs" bomb), or not YAML: a text document."""
    import yaml

    from lakeboard.servers.profiling.text_documents import profile_plain_text

    sample = read_text_sample(path, head_bytes=FULL_BYTES, compression=det.compression)
    obj = None
    if sample.complete and sample.text.count("*") <= _YAML_ALIASES:
        try:
            docs = list(yaml.safe_load_all(sample.text))
        except yaml.YAMLError:
            docs = []
        obj = docs[0] if len(docs) == 1 else docs or None
    if not isinstance(obj, (dict, list)):
        profile_plain_text(path, prof, sample, fmt="text")
        return
    prof.attributes["documents"] = str(len(docs))
    _describe(prof, obj, True, 0, 0, det)
    prof.format = "yaml"
    prof.encoding = sample.encoding
    prof.summary = "YAML" + prof.summary.removeprefix("JSON")


# -- JSON documents -----------------------------------------------------------------
def _json(path: Path, prof: FileProfile, det: Detection) -> None:
    prof.format = "json"
    size = path.stat().st_size
    complete = size <= FULL_BYTES and not det.compression
    consumed = 0
    if complete:
        raw = path.read_bytes()
        try:
            obj, enc = parse_document(raw)
        except json.JSONDecodeError as e:
            if e.msg == "Extra data" and _jsonl(path, prof, det, quiet=True):
                prof.attributes["note"] = "one JSON value per line (JSON lines), although not named .jsonl"
                return
            prof.status = "unreadable"
            prof.kind = "structured"
            prof.reason = f"invalid JSON: {e.msg} at line {e.lineno} column {e.colno}"
            return
    else:
        sample = read_text_sample(path, head_bytes=HEAD_BYTES, compression=det.compression)
        enc = sample.encoding
        obj, consumed = _partial(sample.text)
        if obj is None:
            prof.status, prof.kind = "unreadable", "structured"
            prof.reason = "could not parse the beginning of this large JSON file"
            return
    prof.encoding = enc if enc not in ("utf-8", "ascii") else "utf-8"
    _describe(prof, obj, complete, consumed, size, det)


def _describe(prof: FileProfile, obj: Any, complete: bool, consumed: int, size: int, det: Detection) -> None:
    """A parsed document's structure and the tables its record lists make."""
    prof.kind = "structured"
    prof.text = describe(obj)
    if not complete:
        prof.text = "(structure of the first part of a large file) " + prof.text
    tables = _tables_of(obj)
    for path_keys, layout, names, cols, n, *extra in tables:
        name = "/".join(map(str, [*path_keys, *(extra[0]["record_path"] if extra else [])]))
        # a document's tables are named by their paths; a list at the root, beside one nested in it, is "records"
        tp = TableProfile(name=name or ("records" if len(tables) > 1 else None))
        tp.options = {"path": path_keys, "layout": layout, **(extra[0] if extra else {})}
        tp.n_rows, tp.n_rows_exact = n, complete
        if consumed and not complete and not det.compression:
            tp.n_rows = int(n * size / consumed)  # records seen, scaled by the bytes they took
        numeric = [j for j, col in enumerate(cols) if _numbers_as_text(col)]
        if numeric:  # the loader converts them (pd.to_numeric), as the profile reads them
            tp.options["numeric_text"] = [str(names[j]) for j in numeric]
            cols = [[None if v is None else _number(v) for v in col] if j in numeric else col for j, col in enumerate(cols)]
        cols = _without_fills(tp, names, cols)
        tp.columns, tp.sample_rows = profile_typed(names, cols)
        prof.tables.append(tp)
        if layout in ("records", "nested_records", "index", "columns", "rows", "header_rows"):
            prof.kind = "table"
    if isinstance(obj, dict):
        prof.attributes["keys"] = ", ".join(list(map(str, obj))[:50])
    if len(tables) > 1:
        prof.summary = f"JSON with {len(tables)} tables: " + "; ".join(_summary(obj, t) for t in tables)
    else:
        prof.summary = "JSON " + _summary(obj, tables[0] if tables else None)


def _without_fills(tp: TableProfile, names: list[Any], cols: list[list[Any]]) -> list[list[Any]]:
    """`cols` with the fill values no value could be (`fill_values_of`) as None, as the loader
    masks them (the option `fill_values`); every suspected one noted."""
    fills: dict[str, list[float]] = {}
    out = []
    for name, col in zip(names, cols):
        numbers = [v for v in col if isinstance(v, (int, float)) and not isinstance(v, bool)]
        found, notes = fill_values_of(str(name), str(name), numbers) if numbers and len(numbers) == sum(
            v is not None for v in col) else ([], [])
        tp.notes += notes
        if found:
            fills[str(name)] = found
            col = without_numbers("float64", col, found)[1]
        out.append(col)
    if fills:
        tp.options["fill_values"] = fills
    return out


def _numbers_as_text(col: list[Any]) -> bool:
    """Every value a string that spells a number ("4.21", "389"), as some feeds and APIs write
    their numbers; a string that pads a code with zeros ("01001") stays text."""
    present = [v for v in col if v is not None]
    return bool(present) and all(
        isinstance(v, str) and is_number_text(v.strip()) and not (len(v) > 1 and v[0] == "0" and v[1:2].isdigit())
        for v in present)


def _number(text: str) -> int | float:
    v = float(text)
    return int(v) if v.is_integer() and "." not in text and "e" not in text.lower() else v


def parse_document(raw: bytes) -> tuple[Any, str]:
    """The JSON value in these bytes and the encoding of their text; json.JSONDecodeError if invalid.

    orjson parses UTF-8 bytes 2-3x faster than json. It rejects what the standard module
    reads (NaN/Infinity tokens, 1e400, BOMs, other encodings, lone surrogates), and any
    document it accepts is valid UTF-8 without BOM or NUL bytes, which detect_encoding calls
    "utf-8": the standard module, on the decoded text, is the fallback and gives the errors.
    """
    if _orjson_safe(raw):
        try:
            return orjson.loads(raw), "utf-8"
        except orjson.JSONDecodeError:
            pass
    enc = detect_encoding(raw)
    return json.loads(raw.decode(enc, errors="replace")), enc


def _orjson_safe(raw: bytes) -> bool:
    folded = raw.translate(_SAFETY_FOLD)
    return folded.count(b"[") <= _ORJSON_MAX_BRACKETS and _LONG_NUMBER not in folded


def _partial(text: str) -> tuple[Any, int]:
    """The values at the start of a big JSON document (a top-level array, or the first array
    under an object), and how many characters of the text they took."""
    dec = json.JSONDecoder()
    s = text.lstrip("\ufeff \t\r\n")
    if s.startswith("["):
        return _array_prefix(s, 1, dec)
    if not s.startswith("{"):
        return None, 0
    out: dict[str, Any] = {}
    i = 1
    while i < len(s):
        while i < len(s) and s[i] in " \t\r\n,":
            i += 1
        if i >= len(s) or s[i] == "}":
            break
        try:
            key, i = dec.raw_decode(s, i)
        except json.JSONDecodeError:
            break
        while i < len(s) and s[i] in " \t\r\n:":
            i += 1
        if i < len(s) and s[i] == "[":
            out[str(key)], i = _array_prefix(s, i + 1, dec)
            break  # the rest of the sample is this array
        try:
            val, i = dec.raw_decode(s, i)
        except json.JSONDecodeError:
            break
        out[str(key)] = val
    return (out or None), i


def _array_prefix(s: str, i: int, dec: json.JSONDecoder) -> tuple[list[Any], int]:
    items: list[Any] = []
    while i < len(s) and len(items) < STATS_ROWS:
        while i < len(s) and s[i] in " \t\r\n,":
            i += 1
        if i >= len(s) or s[i] == "]":
            break
        try:
            v, i = dec.raw_decode(s, i)
        except json.JSONDecodeError:
            break
        items.append(v)
    return items, i


def describe(obj: Any, depth: int = 0, max_keys: int = 25) -> str:
    """A compact type sketch: {"meta": {3 keys}, "data": [1200 x {id, name, ...}]}."""
    if isinstance(obj, dict):
        if depth >= 3:
            return f"{{{len(obj)} keys}}"
        items = list(obj.items())
        parts = [f'"{k}": {describe(v, depth + 1, max_keys=10)}' for k, v in items[:max_keys]]
        more = f", ... (+{len(items) - max_keys} keys)" if len(items) > max_keys else ""
        return "{" + ", ".join(parts) + more + "}"
    if isinstance(obj, list):
        if not obj:
            return "[]"
        first = obj[0]
        if isinstance(first, dict):
            keys = list(first)[:12]
            more = ", ..." if len(first) > 12 else ""
            return f"[{len(obj)} x {{{', '.join(map(str, keys))}{more}}}]"
        return f"[{len(obj)} x {describe(first, depth + 1)}]"
    if isinstance(obj, str):
        return f'"{value_text(obj, 40)}"'
    return json.dumps(obj) if isinstance(obj, (int, float, bool)) or obj is None else type(obj).__name__


def _records_candidates(obj: Any, path: list[Any], depth: int, out: list[tuple[list[Any], list[Any]]]) -> None:
    if isinstance(obj, list) and obj:
        if sum(isinstance(x, dict) for x in obj[:50]) >= 0.8 * min(len(obj), 50):
            out.append((path, obj))
            return
        if all(isinstance(x, list) for x in obj[:50]) and len({len(x) for x in obj[:50]}) == 1 and len(obj[0]) > 1:
            out.append((path, obj))
            return
    if isinstance(obj, dict) and depth < 3:
        for k, v in list(obj.items())[:200]:
            _records_candidates(v, path + [k], depth + 1, out)


MAX_TABLES = 10  # record lists of one document profiled as tables, the longest first


def _tables_of(obj: Any) -> list[tuple]:
    """(path, layout, column names, columns, n_rows) for each table in a JSON value: its record
    lists (the longest, and the others of two records or more), else the value itself as a mapping,
    an object of objects or of columns.

    Columns come out as pandas.json_normalize / DataFrame would make them, but as plain lists.
    """
    cands: list[tuple[list[Any], list[Any]]] = []
    _records_candidates(obj, [], 0, cands)
    cands.sort(key=lambda c: -len(c[1]))
    if cands:
        # besides the longest list, those of two records or more that are not a schema's list of columns
        main, *rest = cands
        rest = [(path, recs) for path, recs in rest if len(recs) >= 2 and not _names_key(path[-1] if path else "")]
        tables = [_records_table(obj, path, recs) for path, recs in [main, *rest][:MAX_TABLES]]
        nested = [t for path, recs in [main, *rest][:MAX_TABLES] if (t := _nested_table(path, recs)) is not None]
        # a list nested in the records (a site's measurements) longer than every list is the main table
        return sorted(nested + tables, key=lambda t: -t[4])[:MAX_TABLES] if nested else tables
    if isinstance(obj, dict) and obj:
        # an object of objects below the root with more entries than the root (a time series keyed by
        # date beside a "Meta Data" object): that is the table
        nested = _largest_index(obj, [], 0)
        if nested is not None and len(nested[1]) > len(obj):
            return [_index_table(*nested)]
        items = list(obj.items())[:STATS_ROWS]
        values = list(obj.values())
        if all(not isinstance(v, (dict, list)) for v in values):
            return [([], "mapping", ["key", "value"], [[k for k, _ in items], [v for _, v in items]], len(obj))]
        if len(values) >= 2 and all(isinstance(v, dict) for v in values):
            return [_columns_table(obj) if _keyed_by_column(obj) else _index_table([], obj)]
        if all(isinstance(v, list) for v in values) and len({len(v) for v in values}) == 1 and len(values[0]):
            return [([], "columns", [str(k) for k, _ in items], [v[:STATS_ROWS] for _, v in items], len(values[0]))]
    return []


def _index_table(path: list[Any], obj: dict) -> tuple:
    """An object of objects as a table: a row per key (pandas' orient="index")."""
    items = list(obj.items())[:STATS_ROWS]
    names = list(dict.fromkeys(str(k) for _, inner in items if isinstance(inner, dict) for k in inner))
    cols = [[inner.get(k) if isinstance(inner, dict) else None for _, inner in items] for k in names]
    return path, "index", names, cols, len(obj)


def _kind(v: Any) -> str | None:
    if v is None:
        return None
    if isinstance(v, bool):
        return "bool"
    return "number" if isinstance(v, (int, float)) else type(v).__name__


def _keyed_by_column(obj: dict) -> bool:
    """An object of objects keyed by column, then by row ({"age": {"0": 30, "1": 40}}: pandas'
    default to_json) rather than by row, then by column (records keyed by an id). Its inner keys
    are row numbers; or each column's values are of one kind while a row's are of several."""
    inner = list(obj.values())[:50]
    row_keys = [k for v in inner for k in list(v)[:200]]
    if row_keys and all(str(k).isdigit() for k in row_keys) and not all(str(k).isdigit() for k in obj):
        return True
    kinds_of_column = [{_kind(x) for x in list(v.values())[:200]} - {None} for v in inner]
    if any(len(k) > 1 for k in kinds_of_column):
        return False
    rows: dict[Any, set[str | None]] = {}
    for v in inner:
        for k, x in list(v.items())[:200]:
            rows.setdefault(k, set()).add(_kind(x))
    return any(len(k - {None}) > 1 for k in rows.values())


def _columns_table(obj: dict) -> tuple:
    """An object of objects keyed by column: pandas.DataFrame(obj), a row per inner key."""
    rows = list(dict.fromkeys(k for inner in obj.values() for k in inner))
    cols = [[inner.get(k) for k in rows[:STATS_ROWS]] for inner in obj.values()]
    return [], "columns", [str(k) for k in obj], cols, len(rows)


_MIN_INDEX_ROWS = 5  # entries of a nested object of objects for it to be a table


def _largest_index(obj: Any, path: list[Any], depth: int) -> tuple[list[Any], dict] | None:
    """The object of objects (at least _MIN_INDEX_ROWS, all objects) with the most entries below `obj`."""
    best = None
    if not isinstance(obj, dict) or depth > 3:
        return None
    for k, v in list(obj.items())[:200]:
        if isinstance(v, dict) and len(v) >= _MIN_INDEX_ROWS and all(isinstance(x, dict) for x in list(v.values())[:50]):
            found = (path + [k], v)
        else:
            found = _largest_index(v, path + [k], depth + 1)
        if found is not None and (best is None or len(found[1]) > len(best[1])):
            best = found
    return best


def _header_row(rows: list[Any]) -> bool:
    """The first of these rows names the columns of the others (an API's list of lists: census
    tables, solar wind feeds): distinct words, none a number, over a column of numbers."""
    first, rest = rows[0], [r for r in rows[1:] if isinstance(r, list)]
    if not rest or not all(isinstance(c, str) and c.strip() and not is_number_text(c) for c in first):
        return False
    if len(set(first)) < len(first):
        return False
    for j in range(len(first)):
        cells = [r[j] for r in rest if j < len(r) and r[j] not in (None, "")]
        if cells and sum(isinstance(c, (int, float)) or isinstance(c, str) and is_number_text(c) for c in cells) >= 0.5 * len(cells):
            return True
    return False


def _records_table(obj: Any, path: list[Any], recs: list[Any]) -> tuple:
    sample = [recs[i] for i in spread_indices(len(recs), STATS_ROWS)]
    if isinstance(recs[0], list):
        width = max(len(r) for r in sample if isinstance(r, list))
        names = _listed_names(obj, width)
        layout = "rows"
        if names is None and len(recs[0]) == width and _header_row(recs[:STATS_ROWS]):
            layout, names, recs = "header_rows", unique_names(recs[0]), recs[1:]
            sample = [recs[i] for i in spread_indices(len(recs), STATS_ROWS)]
        cols = [[r[j] if isinstance(r, list) and j < len(r) else None for r in sample] for j in range(width)]
        return path, layout, names or [str(j) for j in range(width)], cols, len(recs)
    names, cols = records_columns([r if isinstance(r, dict) else {"value": r} for r in sample])
    return path, "records", names, cols, len(recs)


def _nested_table(path: list[Any], recs: list[Any]) -> tuple | None:
    """The records nested in `recs` as a table of their own (`nested_records`), with their parents'
    identifying fields beside them; None where the records hold no such list."""
    found = nested_table(recs)
    if found is None:
        return None
    record_path, n = found
    rows = nested_rows(recs, record_path, [])
    meta = meta_fields(recs, set(records_columns(rows[:STATS_ROWS])[0]))
    rows = nested_rows(recs, record_path, meta)
    names, cols = records_columns([rows[i] for i in spread_indices(len(rows), STATS_ROWS)])
    return path, "nested_records", names, cols, n, {"record_path": record_path, "meta": meta}


_NAME_LIST_KEYS = ("column", "field", "header", "name")  # what a key that lists the names is called


def _names_key(key: Any) -> bool:
    return any(w in str(key).lower() for w in _NAME_LIST_KEYS)


def _listed_names(obj: Any, width: int, depth: int = 0) -> list[str] | None:
    """The names of rows of `width` values, where the document lists them under a key that says so:
    `width` strings (pandas' split layout: "columns"), or `width` objects with a "name" each (an
    open-data portal's export: meta/view/columns)."""
    if not isinstance(obj, dict) or depth > 3:
        return None
    for k, v in list(obj.items())[:200]:
        if isinstance(v, list) and len(v) == width and _names_key(k):
            if all(isinstance(x, str) for x in v):
                return unique_names(v)
            if all(isinstance(x, dict) and isinstance(x.get("name"), str) for x in v):
                return unique_names([x["name"] for x in v])
    for v in list(obj.values())[:200]:
        found = _listed_names(v, width, depth + 1)
        if found:
            return found
    return None


def _flatten(rec: dict, prefix: str, out: dict) -> dict:
    for k, v in rec.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and v:
            _flatten(v, key + ".", out)
        else:
            out[key] = v
    return out


def records_columns(records: list[dict]) -> tuple[list[str], list[list[Any]]]:
    """Columns of a record list as pd.json_normalize makes them (nested keys joined with ".")."""
    flat = [_flatten(r, "", {}) if dict in map(type, r.values()) else r for r in records]  # parsed JSON: plain dicts
    names = list(dict.fromkeys(chain.from_iterable(flat)))
    rows = [list(map(r.get, names)) for r in flat]
    return [str(n) for n in names], [list(column) for column in zip(*rows)] if rows else [[] for _ in names]


def _summary(obj: Any, table) -> str:
    if table is None:
        kind = "object" if isinstance(obj, dict) else "array" if isinstance(obj, list) else type(obj).__name__
        n = f" with {len(obj)} {'keys' if isinstance(obj, dict) else 'items'}" if isinstance(obj, (dict, list)) else ""
        return f"{kind}{n}: {describe(obj)[:200]}"
    path, layout, names, _cols, n = table[:5]
    path = [*path, *(table[5]["record_path"] if len(table) > 5 else [])]
    where = f" under {'/'.join(map(str, path))}" if path else ""
    if layout == "mapping":
        ex = ", ".join(f"{k}: {value_text(v, 30)}" for k, v in list(obj.items())[:4])
        return f"object mapping {n} keys to values (e.g. {ex})"
    fields = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
    return f"{n} records{where} with fields {fields}"


# -- JSON lines ---------------------------------------------------------------------
def _jsonl(path: Path, prof: FileProfile, det: Detection, quiet: bool = False) -> bool:
    sample = read_text_sample(path, compression=det.compression)
    lines = [ln for ln in sample.text.splitlines() if ln.strip()]
    if not sample.complete and lines:
        lines.pop()  # the head was cut: its last line may be half a record
    records: list[Any] = []
    bad = 0
    for i in spread_indices(len(lines), STATS_ROWS):
        ln = lines[i]
        try:
            records.append(json.loads(ln))
        except json.JSONDecodeError:
            bad += 1
    if not records or bad > max(1, len(records) // 10):
        if quiet:
            return False
        prof.status, prof.kind = "unreadable", "structured"
        prof.reason = "not JSON lines: most lines are not valid JSON values"
        return False
    prof.format = "jsonl"
    prof.kind = "table"
    prof.encoding = sample.encoding
    names, cols = records_columns([r if isinstance(r, dict) else {"value": r} for r in records])
    tp = TableProfile(options={"layout": "lines"})
    if sample.complete:
        tp.n_rows, tp.n_rows_exact = len(lines), True
    else:
        per_line = len(sample.text) / max(1, len(lines))
        tp.n_rows, tp.n_rows_exact = (int(sample.size / per_line) if not sample.compression else None), False
    if bad:
        tp.notes.append(f"{bad} of the first {min(len(lines), STATS_ROWS)} lines are not valid JSON")
    tp.columns, tp.sample_rows = profile_typed(names, cols)
    prof.tables = [tp]
    prof.text = describe(records[:50])
    rows = f"{tp.n_rows}" if tp.n_rows_exact else f"~{tp.n_rows}"
    fields = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
    prof.summary = f"JSON lines, {rows} records with fields {fields}"
    return True
