"""Python that loads a profiled file correctly, generated from its profile alone.

`make_loader` writes a function of the file's path that returns its data (a DataFrame, a
dict of tables, sheets or arrays, text ...), with its imports listed apart. Lake text (the
path, column, sheet and table names, notes, attributes) enters the source only as a literal
or a one-line comment (`lakeboard.common.code_text`). `loader_code` renders one file's loader as a
program that runs as is and binds the data to `data`, the way profiles show it.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lakeboard.common.code_text import comment, identifier, literal
from lakeboard.common.loader_programs import loading_code
from lakeboard.schemas.messages import Loader
from lakeboard.schemas.profiles import FileProfile, TableProfile
from lakeboard.servers.profiling import (ghcn_daily, kml_fields, log_lines, nested_records, orbital_elements,
                                         sdmx_tsv, sequences)
from lakeboard.servers.profiling.cdf import time_frames
from lakeboard.servers.profiling.column_stats import FILL_VALUE_NOTE
from lakeboard.servers.profiling.signed_numbers import FOOTNOTE_MARK, signed_number, signed_numbers
from lakeboard.servers.profiling.statistical_packages import reader_of, with_value_labels
from lakeboard.servers.profiling.text_sample import COMPRESSION_MODULES

_BIG_FILE = 200 << 20
_NAME_CHARS = 60
_NOT_KWARGS = ("index", "flatten_columns", "layer", "geometry_type", "path", "layout", "fill_values", "index_columns",
               "signed_numbers", "strip_text", "citations", "serial_dates")
_PANDAS = "import pandas as pd"
_FLATTEN = (
    '{var}.columns = [" ".join(dict.fromkeys(str(p) for p in c if not str(p).startswith("Unnamed:"))) or str(c[-1])'
    " if isinstance(c, tuple) else c for c in {var}.columns]"
)
# Flattened headers can repeat a name; numbered as the profile numbers them (name, name.1, name.2).
_UNIQUE = (
    "{var}.columns = [f\"{{c}}.{{n}}\" if (n := list({var}.columns[:i]).count(c)) else c"
    " for i, c in enumerate({var}.columns)]"
)


@dataclass
class _Body:
    """A loader's imports and the lines of its function body (unindented)."""

    imports: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)


def loader_code(profile: FileProfile, root: Path) -> str:
    """One file's loader as a program that runs as is: the file's data ends up in `data`."""
    return loading_code([make_loader(profile)], root)


def make_loader(profile: FileProfile) -> Loader:
    """A function that loads `profile`'s file from its path and returns the data (None, with
    the reason in a comment, when the file is not data or its profile cannot make a loader)."""
    function = identifier(profile.path, "load_")[:_NAME_CHARS].rstrip("_")
    if profile.status != "ok" and profile.format != "zip":
        return _as_loader(profile, function, _not_data(profile.status, profile.reason or f"status {profile.status}"))
    try:
        return _as_loader(profile, function, _body(profile))
    except (ValueError, TypeError) as exc:  # options a reader wrote that are not plain keyword arguments
        return _as_loader(profile, function, _not_data(profile.status, f"no loader could be generated: {exc}"))


def _as_loader(profile: FileProfile, function: str, body: _Body) -> Loader:
    lines = [f"    {line}" if line else "" for line in body.lines]
    source = f"def {function}(path):\n" + "\n".join(lines) + "\n"
    return Loader(paths=[profile.path], summary=profile.summary, function=function,
                  imports=list(dict.fromkeys(body.imports)), source=source)


def _body(profile: FileProfile) -> _Body:
    fmt = profile.format
    if fmt in ("csv", "tsv", "fwf"):
        return _typed_records(profile) if _has_record_types(profile) else _delimited(profile)
    if fmt == "excel":
        return _excel(profile)
    if fmt in _PARSED_TEXT:
        return _parsed_text(profile)
    if fmt in ("json", "yaml"):
        return _json(profile)
    if fmt == "jsonl":
        return _jsonl(profile)
    if fmt in ("parquet", "feather"):
        return _Body(["import geopandas as gpd" if _geoparquet(profile) else _PANDAS], [_read_arrow(profile, "path"), "return df"])
    if fmt in ("npy", "npz"):
        return _arrays(profile)
    if fmt == "mat":
        return _Body(["from scipy.io import loadmat"], [
            *[comment(f"{a.name}: shape {tuple(a.shape)}, {a.dtype}") for a in profile.arrays[:12]],
            "mat = loadmat(path, squeeze_me=True)",
            'variables = {name: value for name, value in mat.items() if not name.startswith("__")}',
            "return variables",
        ])
    if fmt == "cdf":
        return _cdf(profile)
    if fmt == "hdf5":
        return _hdf5(profile)
    if fmt == "netcdf":
        return _netcdf(profile)
    if fmt == "fits":
        return _Body(["from astropy.io import fits", "from astropy.table import Table"], _fits(profile))
    if fmt == "ipac":
        return _Body(["from astropy.table import Table"], [
            *(_comment_notes(profile.tables[0]) if profile.tables else []),
            '# null cells (the header\'s null row) come out as NaN; units: Table.read(...)[name].unit',
            'df = Table.read(path, format="ascii.ipac").to_pandas()',
            "return df",
        ])
    if fmt == "votable":
        return _Body(["from astropy.io.votable import parse"], _votable(profile))
    if fmt in ("stata", "spss", "sas"):
        return _statistical(profile)
    if fmt == "geo":
        imports = ["import geopandas as gpd", *(["import re", "import zipfile", "from pathlib import Path"] if any(
            t.options.get("kml_empty") for t in profile.tables) else [])]
        return _Body(imports, _geo(profile))
    if fmt == "html":
        return _html(profile)
    if fmt == "pdf":
        return _Body(["from pypdf import PdfReader"], [
            "reader = PdfReader(path)",
            comment(f"{profile.attributes.get('pages', '?')} pages"),
            'text = "\\n".join(page.extract_text() or "" for page in reader.pages)',
            "return text",
        ])
    if fmt == "docx":
        return _Body(["import re", "import zipfile"], [
            "with zipfile.ZipFile(path) as z:",
            '    xml = z.read("word/document.xml").decode("utf-8", "replace")',
            'paragraphs = ["".join(re.findall(r"<w:t(?: [^>]*)?>([^<]*)</w:t>", p)) for p in re.findall(r"<w:p[ >].*?</w:p>", xml, flags=re.S)]',
            'text = "\\n".join(p for p in paragraphs if p)',
            "return text",
        ])
    if fmt == "image":
        return _Body([], [
            "try:",
            "    from PIL import Image",
            "    image = Image.open(path)",
            "    image.load()",
            "except ImportError:  # Pillow not installed: the raw bytes",
            "    image = path.read_bytes()",
            "return image",
        ])
    if fmt in ("zip", "tar") and profile.members:
        return _archive(profile)
    if fmt == "zip":
        return _Body(["import zipfile"], [
            comment(profile.reason or "zip archive"),
            "with zipfile.ZipFile(path) as z:",
            "    members = z.namelist()  # z.extractall(some_folder) to use them",
            "return members",
        ])
    if fmt == "sqlite":
        return _sqlite(profile)
    if fmt == "xml" and profile.tables:
        return _xml(profile)
    # text, markdown and anything read as text
    return _Body([], [f"text = path.read_text(encoding={literal(profile.encoding or 'utf-8')}, errors=\"replace\")",
                      "return text"])


def _kwargs(opts: dict[str, Any], skip: tuple[str, ...] = _NOT_KWARGS) -> str:
    parts = []
    for k, v in opts.items():
        if k in skip:
            continue
        if not (isinstance(k, str) and k.isidentifier() and k.isascii()):
            raise ValueError(f"reader option {k!r} is not a keyword argument")
        if k == "colspecs":
            v = [tuple(x) for x in v]
        parts.append(f"{k}={literal(v)}")
    return ", ".join(parts)


def _comment_notes(t: TableProfile, indent: str = "") -> list[str]:
    # A suspected fill value is always shown: it changes what the numbers mean.
    fills = [n for n in t.notes if n.startswith(FILL_VALUE_NOTE)]
    others = [n for n in t.notes if not n.startswith(FILL_VALUE_NOTE)]
    out = [comment(f"note: {n}", 150, indent) for n in others[:4]]
    if len(others) > 4:
        out.append(f"{indent}# ... {len(others) - 4} more notes in the profile")
    return out + [comment(n, 300, indent) for n in fills]


def _not_data(status: str, reason: str) -> _Body:
    return _Body([], [
        comment(f"Not loadable as data ({status}): {reason}"),
        f"reason = {literal(reason)}",
        "return None",
    ])


def _read_call(t: TableProfile, source: str = "path") -> str:
    fn = "pd.read_fwf" if t.delimiter == "fixed-width" else "pd.read_csv"
    args = _kwargs(t.options)
    return f"{fn}({source}{', ' + args if args else ''})"


def _big_note(profile: FileProfile) -> list[str]:
    if profile.size_bytes > _BIG_FILE:
        rows = profile.tables[0].n_rows if profile.tables else None
        return [
            f"# {profile.size_bytes / 2**30:.1f} GB file (~{rows} rows): to save memory pass usecols=[...] or chunksize=..."
        ]
    return []


def _delimited(profile: FileProfile, source: str = "path") -> _Body:
    lines = _big_note(profile)
    tables = profile.tables
    imports, helpers = _signed_helpers(tables)
    lines += helpers
    if len(tables) == 1:
        t = tables[0]
        lines += _comment_notes(t)
        lines.append(f"df = {_read_call(t, source)}")
        if t.drop_blank_rows:
            lines.append('df = df.dropna(how="all")  # blank separator rows')
        lines += _column_fixes(t, "df")
        lines.append("return df")
        return _Body(imports, lines)
    lines.append(f"# {len(tables)} tables stacked in one file, each with its own header")
    lines.append("tables = {}")
    for t in tables:
        name = literal(t.name)
        lines += _comment_notes(t)
        lines.append(f"tables[{name}] = {_read_call(t, source)}")
        if t.drop_blank_rows:
            lines.append(f'tables[{name}] = tables[{name}].dropna(how="all")')
        lines += _column_fixes(t, f"tables[{name}]")
    lines.append("return tables")
    return _Body(imports, lines)


def _signed_helpers(tables: list[TableProfile]) -> tuple[list[str], list[str]]:
    """The imports, and the functions that convert numbers written with signs, when a table has them."""
    if not any(t.options.get("signed_numbers") for t in tables):
        return [_PANDAS], []
    return [_PANDAS, "import re"], [f"FOOTNOTE_MARK = {FOOTNOTE_MARK!r}  # a footnote's mark after a number", "",
                                    *inspect.getsource(signed_number).splitlines(), "",
                                    *inspect.getsource(signed_numbers).splitlines(), ""]


def _column_fixes(t: TableProfile, var: str) -> list[str]:
    """The lines that fix `var`'s columns after reading: padding stripped, numbers with signs converted."""
    lines = []
    if cited := t.options.get("citations"):
        lines += [f"for column in {literal(cited)}:  # citation marks after the names (\"Tokyo[1]\")",
                  f"    {var}[column] = {var}[column].str.replace(r\"(?:\\[\\w{{1,3}}\\])+$\", \"\", regex=True)"]
    if padded := t.options.get("strip_text"):
        lines += [f"for column in {literal(padded)}:  # text padded with spaces to a width",
                  f"    {var}[column] = {var}[column].str.strip()"]
    if serial := t.options.get("serial_dates"):
        lines += [f"for column in {literal(serial)}:  # dates a sheet keeps as day numbers (cells formatted General)",
                  f"    {var}[column] = pd.to_datetime({var}[column], unit=\"D\", origin=\"1899-12-30\").dt.round(\"s\")"]
    columns = t.options.get("signed_numbers")
    if not columns:
        return lines
    return lines + [f"for column, decimal in {literal(columns)}:  # numbers written with $, € or % signs, a footnote's mark or a scale letter (a percent stays in percent)",
                    f"    {var}[column] = signed_numbers({var}[column], decimal)"]


def _excel(profile: FileProfile, source: str = "path") -> _Body:
    engine = profile.attributes.get("engine")
    eng = f", engine={literal(engine)}" if engine else ""
    imports, lines = _signed_helpers(profile.tables)
    lines.append("sheets = {}  # every table of every sheet, with its header offset")
    lines.append(f"with pd.ExcelFile({source}{eng}) as xl:")
    for t in profile.tables:
        name = literal(t.name)
        lines += _comment_notes(t, "    ")
        lines.append(f"    sheets[{name}] = xl.parse({_kwargs(t.options)})")
        if t.options.get("fill_values"):  # read_excel's na_values leave number cells alone
            lines.append(f"    sheets[{name}] = sheets[{name}].mask(sheets[{name}].isin({literal(t.options['fill_values'])}))"
                         "  # declared fill values")
        if t.drop_blank_rows:
            lines.append(f'    sheets[{name}] = sheets[{name}].dropna(how="all")')
        lines += ["    " + line for line in _column_fixes(t, f"sheets[{name}]")]
    main = max(profile.tables, key=lambda t: t.n_rows or 0)
    lines.append(comment(f"the largest table: {main.name}"))
    lines.append("return sheets")
    return _Body(imports, lines)


def _json_records(t: TableProfile) -> list[str]:
    lines = _json_frame(t)
    numeric = t.options.get("numeric_text")
    if lines and numeric:  # numbers the source writes as strings ("4.21")
        lines.append(f"df[{literal(numeric)}] = df[{literal(numeric)}].apply(pd.to_numeric, errors=\"coerce\")")
    return lines + _fill_masks(t) if lines else lines


def _fill_masks(t: TableProfile) -> list[str]:
    """The lines that read a table's fill values as missing, column by column (-666666666, -9999, a
    code a variable's label declares)."""
    if not (fills := t.options.get("fill_values")):
        return []
    return [f"for column, fill in {literal(list(fills.items()))}:  # values that mean no data",
            "    df[column] = df[column].mask(df[column].isin(fill))"]


def _json_frame(t: TableProfile) -> list[str]:
    keys = t.options.get("path") or []
    expr = "obj" + "".join(f"[{literal(k)}]" for k in keys)
    layout = t.options.get("layout")
    if layout == "records":
        return [
            f"records = {expr}",
            'df = pd.json_normalize([r if isinstance(r, dict) else {"value": r} for r in records])',
        ]
    if layout == "nested_records":  # a row per nested record, its parent's fields beside it
        return [
            *inspect.getsource(nested_records.nested_rows).splitlines(),
            f"rows = nested_rows({expr}, {literal(t.options['record_path'])}, {literal(t.options['meta'])})",
            "df = pd.json_normalize(rows)",
        ]
    if layout == "rows" and not all(c.name == str(j) for j, c in enumerate(t.columns)):
        return [f"df = pd.DataFrame({expr}, columns={literal([c.name for c in t.columns])})"]
    if layout in ("rows", "columns"):
        return [f"df = pd.DataFrame({expr})"]
    if layout == "header_rows":  # the first row names the columns
        return [f"rows = {expr}", f"df = pd.DataFrame(rows[1:], columns={literal([c.name for c in t.columns])})"]
    if layout == "mapping":
        return [f'df = pd.DataFrame(list({expr}.items()), columns=["key", "value"])']
    if layout == "index":
        return [f'df = pd.DataFrame.from_dict({expr}, orient="index")']
    return []


def _open_text(profile: FileProfile) -> tuple[list[str], str]:
    """The imports and the expression that open the file as text (compressed or not)."""
    enc = literal(profile.encoding or "utf-8")
    module = COMPRESSION_MODULES.get(profile.attributes.get("compression", ""))
    if module:
        return [f"import {module}"], f'{module}.open(path, "rt", encoding={enc}, errors="replace")'
    return [], f'open(path, encoding={enc}, errors="replace")'


def _json(profile: FileProfile, opened: tuple[list[str], str] | None = None) -> _Body:
    imports, opened = opened or _open_text(profile)
    if profile.format == "yaml":  # safe_load builds plain values only, never objects the file names
        many = profile.attributes.get("documents", "1") != "1"
        imports, load = imports + ["import yaml"], "list(yaml.safe_load_all(f))" if many else "yaml.safe_load(f)"
    else:
        imports, load = imports + ["import json"], "json.load(f)"
    lines = [f"with {opened} as f:", f"    obj = {load}"]
    if len(profile.tables) > 1:  # several record lists: one table each, named by its path
        lines.append("tables = {}")
        for t in profile.tables:
            lines += _json_records(t) + [f"tables[{literal(t.name)}] = df"]
        return _Body(imports + [_PANDAS], lines + ["return tables"])
    records = _json_records(profile.tables[0]) if profile.tables else []
    if records:
        return _Body(imports + [_PANDAS], lines + records + ["return df"])
    return _Body(imports, lines + ["return obj"])


# Text formats read by the profiler's own parser (`text_records`), whose source the loader defines
_PARSED_TEXT = {"tle": orbital_elements.read_tle, "fasta": sequences.read_fasta, "sdmx_tsv": sdmx_tsv.read_sdmx_tsv,
                "access_log": log_lines.read_access_log, "app_log": log_lines.read_app_log,
                "ghcn_daily": ghcn_daily.read_ghcn_daily}


def _parsed_text(profile: FileProfile, opened: tuple[list[str], str] | None = None) -> _Body:
    """A table of records parsed from text lines (orbital element sets, FASTA sequences)."""
    imports, opened = opened or _open_text(profile)
    parser = _PARSED_TEXT[profile.format]
    return _Body(imports + [_PANDAS], [
        *inspect.getsource(parser).splitlines(),
        "",
        f"with {opened} as f:",
        f"    df = pd.DataFrame({parser.__name__}(f))",
        "return df",
    ])


def _jsonl(profile: FileProfile, opened: tuple[list[str], str] | None = None) -> _Body:
    imports, opened = opened or _open_text(profile)
    return _Body(imports + ["import json", _PANDAS], [
        "records = []",
        f"with {opened} as f:",
        "    for line in f:",
        "        if line.strip():",
        "            try:",
        "                records.append(json.loads(line))",
        "            except json.JSONDecodeError:",
        "                pass  # a line that is not JSON",
        'df = pd.json_normalize([r if isinstance(r, dict) else {"value": r} for r in records])',
        "return df",
    ])


def _arrays(profile: FileProfile) -> _Body:
    pickled = any("allow_pickle" in a.attributes.get("note", "") for a in profile.arrays)
    allow = ", allow_pickle=True" if pickled else ""
    lines = []
    if pickled:
        lines.append("# object arrays are pickled: allow_pickle=True runs code from the file, only for files you trust")
    if profile.format == "npy":
        a = profile.arrays[0] if profile.arrays else None
        if a:
            lines.append(comment(f"shape {tuple(a.shape)}, dtype {a.dtype}"))
        mm = ', mmap_mode="r"' if not pickled else ""
        lines += [f"array = np.load(path{mm}{allow})", "return array"]
        return _Body(["import numpy as np"], lines)
    lines += [comment(f"{a.name}: shape {tuple(a.shape)}, dtype {a.dtype}") for a in profile.arrays[:12]]
    lines.append(f"with np.load(path{allow}) as npz:")
    lines.append("    arrays = {key: npz[key] for key in npz.files}")
    lines.append("return arrays")
    return _Body(["import numpy as np"], lines)


def _cdf(profile: FileProfile) -> _Body:
    names = [a.name for a in profile.arrays]
    lines = ["cdf = cdflib.CDF(str(path))", "global_attributes = cdf.globalattsget()", *_variable_comments(profile)]
    frames = time_frames(profile.arrays)
    if not frames:
        lines.append(f"variables = {{name: cdf.varget(name) for name in {literal(names)}}}")
        lines.append("# epochs to datetimes: cdflib.cdfepoch.to_datetime(variables[name])")
        lines.append("return variables")
        return _Body(["import cdflib"], lines)
    lines += [
        "",
        "def values(name):",
        "    # a variable's values, with its fill value (FILLVAL) as NaN",
        "    v = cdf.varget(name)",
        '    fill = cdf.varattsget(name).get("FILLVAL")',
        '    if fill is not None and v.dtype.kind in "iuf" and np.any(v == fill):',
        '        v = np.where(v == fill, np.nan, v.astype("float64"))',
        "    return v",
        "",
    ]
    if len(frames) > 1:
        lines.append("frames = {}")
    for epoch, columns in frames.items():
        lines.append(f"df = pd.DataFrame({{{literal(epoch)}: cdflib.cdfepoch.to_datetime(cdf.varget({literal(epoch)}))}})")
        for c in columns:
            if len(c.names) == 1:
                lines.append(f"df[{literal(c.names[0])}] = np.ravel(values({literal(c.variable)}))")
            else:
                lines.append(f"df[{literal(c.names)}] = np.reshape(values({literal(c.variable)}), (len(df), -1))")
        if len(frames) > 1:
            lines.append(f"frames[{literal(epoch)}] = df")
    framed = {*frames, *(c.variable for columns in frames.values() for c in columns)}
    left = [n for n in names if n not in framed]
    if left:
        lines.append(comment(f"not in the frames: {', '.join(left)}; read one with cdf.varget(name)", 300))
    lines.append("return frames" if len(frames) > 1 else "return df")
    return _Body(["import cdflib", "import numpy as np", _PANDAS], lines)


def _variable_comments(profile: FileProfile) -> list[str]:
    """A comment per array (the first 15): its name, type, shape, units and what it holds."""
    lines = []
    for a in profile.arrays[:15]:
        units = f" [{a.units}]" if a.units else ""
        desc = f" {a.descriptions[0]}" if a.descriptions else ""
        lines.append(comment(f"{a.name}: {a.dtype} {tuple(a.shape)}{units}{desc}", 200))
    return lines


def readable_arrays(profile: FileProfile) -> list[str]:
    """The arrays a loader reads: not those whose data live in other files or could not be read."""
    return [a.name for a in profile.arrays if "note" not in a.attributes and "error" not in a.attributes]


def _arrays_by_name(profile: FileProfile, opening: str, read: str) -> list[str]:
    """Open the file (`opening`, binding `f`) and read each readable array by its name (`read` of `name`):
    only the arrays profiled are read, never through a link to another file."""
    return [*_variable_comments(profile), opening,
            f"    arrays = {{name: {read} for name in {literal(readable_arrays(profile))}}}",
            "return arrays"]


# Attributes that say a value stands for no data, or that values are packed (CF conventions;
# FILLVAL is the ISTP name, also written into HDF5 files)
_FILL_KEYS = ("_FillValue", "missing_value", "FILLVAL", "fill_value")
_PACKING_KEYS = ("scale_factor", "add_offset")


def _declares_fill(profile: FileProfile) -> bool:
    return any(k in a.attributes for a in profile.arrays for k in (*_FILL_KEYS, *_PACKING_KEYS))


def _hdf5(profile: FileProfile) -> _Body:
    if not _declares_fill(profile):
        return _Body(["import h5py"], _arrays_by_name(profile, 'with h5py.File(path, "r") as f:', "f[name][()]"))
    decode = [
        "def decoded(ds):",
        "    # its values: a declared fill value as NaN, packed values unpacked (scale_factor, add_offset)",
        "    values = ds[()]",
        '    if not isinstance(values, np.ndarray) or values.dtype.kind not in "iuf":',
        "        return values",
        f"    declared = [np.asarray(ds.attrs[k]) for k in {literal(_FILL_KEYS)} if k in ds.attrs]",
        '    fills = [np.ravel(v).astype(values.dtype) for v in declared if v.dtype.kind in "iuf"]',
        "    missing = np.isin(values, np.concatenate(fills)) if fills else np.zeros(values.shape, dtype=bool)",
        '    scale, offset = ds.attrs.get("scale_factor"), ds.attrs.get("add_offset")',
        "    if not missing.any() and scale is None and offset is None:",
        "        return values",
        '    out = values.astype("float64")',
        "    if scale is not None:",
        "        out = out * float(np.ravel(scale)[0])",
        "    if offset is not None:",
        "        out = out + float(np.ravel(offset)[0])",
        "    out[missing] = np.nan",
        "    return out",
        "",
    ]
    lines = _arrays_by_name(profile, 'with h5py.File(path, "r") as f:', "decoded(f[name])")
    return _Body(["import h5py", "import numpy as np"], decode + lines)


def _netcdf(profile: FileProfile) -> _Body:
    # mmap=False: the arrays stay valid after the file is closed
    if not _declares_fill(profile):
        return _Body(["from scipy.io import netcdf_file"], _arrays_by_name(
            profile, 'with netcdf_file(path, "r", mmap=False) as f:', "f.variables[name].data.copy()"))
    decode = [
        "def decoded(variable):",
        "    # maskandscale: scipy unpacks values (scale_factor, add_offset) and masks _FillValue and missing_value",
        "    values = variable[:]",
        '    return np.ma.filled(values.astype("float64"), np.nan) if np.ma.is_masked(values) else np.ma.getdata(values)',
        "",
    ]
    lines = _arrays_by_name(profile, 'with netcdf_file(path, "r", mmap=False, maskandscale=True) as f:',
                            "decoded(f.variables[name])")
    return _Body(["from scipy.io import netcdf_file", "import numpy as np"], decode + lines)


def _fits(profile: FileProfile) -> list[str]:
    """Each HDU profiled, by its position: a table as a DataFrame of its one-value-a-row columns, an image as an array."""
    hdus = sorted([(t.options["hdu"], t.name, True) for t in profile.tables]
                  + [(int(a.attributes["hdu"]), a.name, False) for a in profile.arrays])
    lines = ["hdus = {}", "with fits.open(path, memmap=False) as hdul:"]
    for i, name, table in hdus:
        lines.append(comment(f"HDU {i}: {name}", 200, "    "))
        if table:
            lines += [f"    table = Table(hdul[{int(i)}].data)",
                      f"    hdus[{literal(name)}] = table[[c for c in table.colnames if table[c].ndim <= 1]].to_pandas()"]
        else:
            lines.append(f"    hdus[{literal(name)}] = hdul[{int(i)}].data")
    lines.append("return hdus")
    return lines


def _votable(profile: FileProfile) -> list[str]:
    """Each TABLE of the document as a DataFrame, under the profile's names, in document order."""
    names = [t.name for t in profile.tables]
    lines = ['tables = parse(path, verify="ignore").iter_tables()  # units and descriptions: each table.fields']
    if len(names) == 1:
        return [*lines, "df = next(tables).to_table().to_pandas()", "return df"]
    return [*lines, f"return {{name: t.to_table().to_pandas() for name, t in zip({literal(names)}, tables)}}"]


def _statistical(profile: FileProfile) -> _Body:
    reader, labelled = reader_of(profile.path, profile.format)
    lines = [comment(n, 300) for t in profile.tables for n in t.notes[:1]]
    if labelled:
        lines += [*inspect.getsource(with_value_labels).splitlines(), ""]
    lines.append(f"df, meta = pyreadstat.{reader}(path)  # meta: variable and value labels")
    if labelled:
        lines.append("df = with_value_labels(df, meta)")
    return _Body(["import pyreadstat"], lines + [line for t in profile.tables[:1] for line in _fill_masks(t)] + ["return df"])


def _geo(profile: FileProfile) -> list[str]:
    lines = []
    if profile.attributes.get("crs"):
        lines.append(comment(f"CRS: {profile.attributes['crs']}"))
    # a shapefile in a folder of a zip is opened by its path in the archive
    source = f'f"/vsizip/{{path}}/" + {literal(profile.attributes["member"])}' if profile.attributes.get("member") else "path"
    if len(profile.tables) <= 1:
        layer = profile.tables[0].options.get("layer") if profile.tables else None
        lyr = f", layer={literal(layer)}" if layer else ""
        lines.append(f"gdf = gpd.read_file({source}{lyr})")
        if empty := profile.tables[0].options.get("kml_empty") if profile.tables else None:
            lines = [*inspect.getsource(kml_fields.kml_text).splitlines(), "",
                     *inspect.getsource(kml_fields.empty_cells).splitlines(), "", *lines,
                     f"dtypes = {literal(empty)}  # fields the KML leaves empty somewhere, which GDAL reads as 0 or False",
                     "for column, flags in empty_cells(kml_text(Path(path)), list(dtypes)).items():",
                     "    if len(flags) == len(gdf):",
                     "        gdf[column] = gdf[column].astype(dtypes[column]).mask(flags)"]
        return lines + ["return gdf"]
    lines.append("layers = {}")
    for t in profile.tables:
        layer = literal(t.options.get("layer"))
        lines.append(f"layers[{layer}] = gpd.read_file({source}, layer={layer})")
    return lines + ["return layers"]


def _html(profile: FileProfile) -> _Body:
    enc = literal(profile.encoding or "utf-8")
    if not profile.tables:
        return _Body(["import lxml.html"], [
            "# a page without tables: its text",
            f'doc = lxml.html.fromstring(path.read_bytes().decode({enc}, errors="replace"))',
            'for bad in doc.xpath("//script|//style"):',
            "    bad.drop_tree()",
            'text = " ".join(doc.text_content().split())',
            "return text",
        ])
    imports, lines = _signed_helpers(profile.tables)
    lines += [f"all_tables = pd.read_html(path, encoding={enc})  # every <table>, in page order", "tables = {}"]
    for t in profile.tables:
        name = literal(t.name)
        idx = t.options.get("index")
        if not isinstance(idx, int):
            raise ValueError(f"table {t.name!r} has no index in the page")
        cols = ", ".join(c.name for c in t.columns[:5])
        lines.append(comment(f"{t.n_rows} rows: {cols}", 100))
        lines.append(f"tables[{name}] = all_tables[{idx}]")
        if t.options.get("flatten_columns"):
            lines.append(f"tables[{name}] = tables[{name}].copy()")
            lines.append(_FLATTEN.format(var=f"tables[{name}]"))
            lines.append(_UNIQUE.format(var=f"tables[{name}]"))
        lines += _column_fixes(t, f"tables[{name}]")
    return _Body(imports, lines + ["return tables"])


def _sqlite(profile: FileProfile) -> _Body:
    names = [t.name for t in profile.tables if t.name]
    # Opened immutable (read-only, no locks), so reading never writes into the lake; names quoted as SQL identifiers.
    return _Body(["import sqlite3", _PANDAS], [
        'con = sqlite3.connect(path.resolve().as_uri() + "?immutable=1", uri=True)',
        "try:",
        "    tables = {name: pd.read_sql_query('select * from \"' + name.replace('\"', '\"\"') + '\"', con)",
        f"              for name in {literal(names)}}}",
        "finally:",
        "    con.close()",
        "return tables",
    ])


def _read_arrow(profile: FileProfile, source: str) -> str:
    """read_parquet / read_feather; a frame saved with a named index ("date") gets it back as the
    column the profile lists."""
    named_index = bool(profile.tables) and profile.tables[0].options.get("index_columns")
    if _geoparquet(profile) and source == "path":
        return f"df = gpd.read_parquet({source})  # GeoParquet: its geometry as shapes, with its CRS" + (
            ".reset_index()" if named_index else "")
    return f"df = pd.read_{profile.format}({source})" + (".reset_index()" if named_index else "")


def _geoparquet(profile: FileProfile) -> bool:
    return bool(profile.tables) and bool(profile.tables[0].options.get("geometry_columns"))


def _member_body(member: FileProfile) -> _Body:
    """A member's loader body, reading the member's bytes (`data`) in memory as its own loader reads the file."""
    fmt, source = member.format, "io.BytesIO(data)"
    text = ([], f'io.StringIO(data.decode({literal(member.encoding or "utf-8")}, errors="replace"))')
    if fmt in ("csv", "tsv", "fwf"):
        body = _typed_records(member, text) if _has_record_types(member) else _delimited(member, source)
    elif fmt == "excel":
        body = _excel(member, source)
    elif fmt in ("parquet", "feather"):
        body = _Body([_PANDAS], [_read_arrow(member, source), "return df"])
    elif fmt in ("json", "jsonl"):
        body = _json(member, text) if fmt == "json" else _jsonl(member, text)
    elif fmt in _PARSED_TEXT:
        body = _parsed_text(member, text)
    else:
        raise ValueError(f"archive member {member.path!r} is {fmt}, which is not read from an archive")
    return _Body(body.imports + ["import io"], body.lines)


def _archive(profile: FileProfile) -> _Body:
    """An archive's tables: each member read from the archive in memory by a function of its bytes."""
    if profile.format == "tar":  # only regular files are members: extractfile never follows a link
        imports, opening, reading = ["import tarfile"], "tarfile.open(path)", "archive.extractfile({}).read()"
    else:
        imports, opening, reading = ["import zipfile"], "zipfile.ZipFile(path)", "archive.read({})"
    lines, reads = [], []
    tables = iter(profile.tables)
    for n, m in enumerate(profile.members, 1):
        own = [next(tables).model_copy(update={"name": name}) for name in m.tables]
        member = FileProfile(path=m.name, format=m.format, encoding=m.encoding, attributes=m.attributes,
                             size_bytes=m.size_bytes, tables=own)
        body = _member_body(member)
        imports += body.imports
        lines += [comment(f"{m.name}: {m.format}, {m.size_bytes:,} bytes unpacked", 200), f"def member_{n}(data):"]
        lines += [f"    {line}" if line else "" for line in body.lines]
        read = f"member_{n}({reading.format(literal(m.name))})"
        if m.format != "excel" and len(m.tables) == 1:
            reads.append(f"    tables[{literal(m.table_names()[0])}] = {read}")
            continue
        reads.append(f"    part = {read}")
        reads += [f"    tables[{literal(archived)}] = part[{literal(own_name)}]"
                  for own_name, archived in zip(m.tables, m.table_names())]
    listed = profile.attributes.get("members", "?")
    lines.append(comment(f"{len(profile.members)} of the archive's {listed} files read as tables", 200))
    lines += ["tables = {}", f"with {opening} as archive:", *reads, "return tables"]
    return _Body(imports, lines)


def _xml(profile: FileProfile) -> _Body:
    """Each record element's attributes and text-only children as a row, parsed as the profiler
    parses it: incrementally, with no entity, DTD or network access, records freed as read."""
    tag = profile.tables[0].options["record"]
    group = profile.tables[0].options.get("group")
    module = COMPRESSION_MODULES.get(profile.attributes.get("compression", ""))
    return _Body([_PANDAS, "from lxml import etree", *([f"import {module}"] if module else [])], [
        "records = []",
        f'with {module + ".open" if module else "open"}(path, "rb") as f:',
        f'    for _, el in etree.iterparse(f, events=("end",), tag={literal("{*}" + str(tag))}, resolve_entities=False,',
        "                                 no_network=True, load_dtd=False):",
        "        row = {etree.QName(k).localname: v for k, v in el.attrib.items()}",
        "        for child in el:",
        "            if isinstance(child.tag, str) and len(child) == 0:",
        "                row.setdefault(etree.QName(child).localname, child.text)",
        *(["        parent = el.getparent()  # the element grouping the records (not the root): its attributes",
           "        if parent is not None and parent.getparent() is not None and isinstance(parent.tag, str) and "
           f"etree.QName(parent).localname == {literal(group)}:",
           "            for k, v in parent.attrib.items():",
           f'                row.setdefault({literal(group + ".")} + etree.QName(k).localname, v)'] if group else []),
        "        records.append(row)",
        "        el.clear(keep_tail=True)",
        "        while el.getprevious() is not None:",
        "            del el.getparent()[0]",
        "df = pd.DataFrame(records)",
        "for name in df.columns:  # XML holds text: numbers where every value reads as one",
        "    try:",
        "        df[name] = pd.to_numeric(df[name])",
        "    except (ValueError, TypeError):",
        "        pass",
        "return df",
    ])


def _has_record_types(profile: FileProfile) -> bool:
    """A delimited file whose lines are of several record types (`typed_records`)."""
    return bool(profile.tables) and "record_type" in profile.tables[0].options


def _typed_records(profile: FileProfile, opened: tuple[list[str], str] | None = None) -> _Body:
    """Lines of several record types: each type's lines split on the delimiter into a table of its
    own (those with another number of fields left out), columns numbered, numbers where they read so."""
    imports, opened = opened or _open_text(profile)
    sep = profile.tables[0].options["sep"]
    widths = {t.options["record_type"]: int(t.options["width"]) for t in profile.tables}
    return _Body(imports + [_PANDAS], [
        f"widths = {literal(widths)}  # each record type (the line's first field) and its number of fields",
        "rows = {tag: [] for tag in widths}",
        f"with {opened} as f:",
        "    for line in f:",
        f"        fields = line.rstrip(\"\\r\\n\").split({literal(sep)})",
        "        tag = fields[0].strip()",
        "        if widths.get(tag) == len(fields):",
        "            rows[tag].append(fields)",
        "tables = {}",
        "for tag, width in widths.items():",
        "    df = pd.DataFrame(rows[tag], columns=range(width), dtype=object).replace(\"\", pd.NA)",
        "    for name in df.columns:  # numbers where every value reads as one",
        "        try:",
        "            df[name] = pd.to_numeric(df[name])",
        "        except (ValueError, TypeError):",
        "            pass",
        "    tables[tag] = df",
        "return tables",
    ])
