"""Lake text never becomes code: hostile file, column, sheet and table names, notes and values
end up in generated loaders only as escaped literals or one-line comments."""

from __future__ import annotations

import ast
import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from lakeboard.common.loader_programs import loading_code
from lakeboard.schemas.profiles import ArchiveMember, ArrayProfile, ColumnProfile, FileProfile, TableProfile
from lakeboard.servers.profiling import profile_file
from lakeboard.servers.profiling.loader_code import make_loader
from tests.support.hostile_names import MARKER, file_name, hostile_names

RUN = r"""
import json, sys
out = []
for code in json.load(sys.stdin):
    ns = {}
    exec(compile(code, "loaders", "exec"), ns)
    data = ns["data"] if "data" in ns else ns["datasets"]
    frames = data.values() if isinstance(data, dict) else [data]
    out.append([[len(f), [str(c) for c in f.columns]] for f in frames])
print(json.dumps(out))
"""


def run_in(folder: Path, programs: list[str]) -> list:
    """Run each program in its own namespace of a fresh interpreter whose working folder is `folder`;
    the rows and columns of each table each one loaded."""
    done = subprocess.run([sys.executable, "-c", RUN], input=json.dumps(programs), cwd=folder, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_hostile_file_names_and_header_cells_load_and_run_nothing_else(tmp_path: Path) -> None:
    lake, scratch = tmp_path / "lake", tmp_path / "scratch"
    lake.mkdir()
    scratch.mkdir()
    names = hostile_names(24, seed=17)
    headers = {}
    for i, name in enumerate(names):
        header = ["day", name, names[(i + 1) % len(names)]]
        headers[file_name(f"f{i} {name}", ".csv")] = header
        with open(lake / file_name(f"f{i} {name}", ".csv"), "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow([" ".join(name.split())])  # a title line above the header: a note
            writer.writerow([])
            writer.writerow(header)
            writer.writerows([[1, 2, 3], [2, 4, 6], [3, 6, 9]])
    profiles = [profile_file(path, lake) for path in sorted(lake.iterdir())]
    assert len(profiles) == len(names) and all(p.ok for p in profiles), [p.reason for p in profiles if not p.ok]

    # Each file alone, as its profile shows it, then all in one program, as a file agent's response renders them.
    alone = [prof.loader for prof in profiles]
    together = loading_code([make_loader(p) for p in profiles], lake)
    loaded = run_in(scratch, alone + [together])
    expected = [[3, headers[p.path]] for p in profiles]
    assert loaded[:-1] == [[table] for table in expected]
    assert loaded[-1] == expected
    assert list(scratch.iterdir()) == []  # no payload ran
    assert not (Path.cwd() / MARKER).exists()


def _every_format(text: str) -> list[FileProfile]:
    """One profile per loader shape, with `text` in every string a lake could have written."""
    col = [ColumnProfile(name=text, dtype="object")]
    notes = [text] * 5

    def table(**kw) -> TableProfile:
        return TableProfile(columns=col, notes=notes, title=text, **kw)

    arrays = [ArrayProfile(name=text, shape=[2], dtype=text, attributes={"UNITS": text, "CATDESC": text})]
    variables = [ArrayProfile(name=text, shape=[2], dtype=text, attributes={"units": text, "long_name": text})]
    filled = [ArrayProfile(name=text, shape=[2], dtype=text, attributes={"_FillValue": text, "scale_factor": text})]
    return [
        FileProfile(path=f"{text}.csv", format="csv", summary=text,
                    tables=[table(options={"sep": text, "na_values": [text], "skiprows": 1}, drop_blank_rows=True)]),
        FileProfile(path=f"{text}.csv", format="csv", summary=text,
                    tables=[table(name=text, options={"skiprows": 1}), table(name=text + "2", options={"nrows": 2})]),
        FileProfile(path=f"{text}.xlsx", format="excel", summary=text, attributes={"engine": text},
                    tables=[table(name=text, options={"sheet_name": text, "skiprows": 3}, drop_blank_rows=True)]),
        FileProfile(path=f"{text}.json", format="json", encoding=text,
                    tables=[table(options={"path": [text, text], "layout": "records"})]),
        FileProfile(path=f"{text}.json", format="json", encoding=text,  # several record lists
                    tables=[table(name=text, options={"path": [text], "layout": "records"}),
                            table(name=text + "2", options={"path": [text + "2"], "layout": "records"})]),
        FileProfile(path=f"{text}.json", format="json", encoding=text,  # rows named by the document
                    tables=[table(options={"path": [text], "layout": "rows"})]),
        FileProfile(path=f"{text}.json", format="json", encoding=text),
        FileProfile(path=f"{text}.jsonl", format="jsonl", encoding=text),
        FileProfile(path=f"{text}.tle", format="tle", encoding=text, tables=[table(options={"layout": "tle"})]),
        FileProfile(path=f"{text}.fasta", format="fasta", encoding=text, tables=[table(options={"layout": "fasta"})]),
        FileProfile(path=f"{text}.parquet", format="parquet", summary=text),
        FileProfile(path=f"{text}.npy", format="npy", arrays=arrays),
        FileProfile(path=f"{text}.npz", format="npz", arrays=arrays * 3),
        FileProfile(path=f"{text}.mat", format="mat", arrays=arrays * 2),
        FileProfile(path=f"{text}.cdf", format="cdf", arrays=arrays * 2),
        FileProfile(path=f"{text}.cdf", format="cdf", arrays=[  # time series: a DataFrame per epoch
            ArrayProfile(name=text, shape=[2], dtype="CDF_TIME_TT2000", attributes={"records": "2"}),
            ArrayProfile(name=text + "2", shape=[2], dtype="CDF_TIME_TT2000", attributes={"records": "2"}),
            ArrayProfile(name=text + "l", shape=[2], dtype=text, sample=[text, text + "3"]),
            *[ArrayProfile(name=text + n, shape=[2, 2], dtype=text,
                           attributes={"records": "2", "DEPEND_0": text + e, "LABL_PTR_1": text + "l"})
              for n, e in (("v", ""), ("w", "2"))]]),
        FileProfile(path=f"{text}.h5", format="hdf5", arrays=variables * 2),
        FileProfile(path=f"{text}.h5", format="hdf5", arrays=filled * 2),
        FileProfile(path=f"{text}.dta", format="stata", tables=[table()]),
        FileProfile(path=f"{text}.tbl", format="ipac", tables=[table(options={"layout": "ipac"})]),
        FileProfile(path=f"{text}.xpt", format="sas", tables=[table()]),
        FileProfile(path=f"{text}.nc", format="netcdf", arrays=variables * 2),
        FileProfile(path=f"{text}.nc", format="netcdf", arrays=filled * 2),
        FileProfile(path=f"{text}.fits", format="fits", tables=[table(name=text, options={"hdu": 1})],
                    arrays=[variables[0].model_copy(update={"attributes": {"hdu": "0", "OBJECT": text}})]),
        FileProfile(path=f"{text}.gpkg", format="geo", attributes={"crs": text},
                    tables=[table(options={"layer": text})]),
        FileProfile(path=f"{text}.gpkg", format="geo", attributes={"crs": text},
                    tables=[table(options={"layer": text}), table(options={"layer": text + "2"})]),
        FileProfile(path=f"{text}.html", format="html", encoding=text,
                    tables=[table(name=text, options={"index": 0, "flatten_columns": True})]),
        FileProfile(path=f"{text}.html", format="html", encoding=text),
        FileProfile(path=f"{text}.pdf", format="pdf", attributes={"pages": text}),
        FileProfile(path=f"{text}.docx", format="docx"),
        FileProfile(path=f"{text}.png", format="image"),
        FileProfile(path=f"{text}.zip", format="zip", reason=text),
        FileProfile(path=f"{text}.zip", format="zip", attributes={"members": "3"},
                    tables=[table(name=text, options={"skiprows": 1}), table(name=text, options={"sheet_name": text})],
                    members=[ArchiveMember(name=text, format="csv", tables=[None]),
                             ArchiveMember(name=text + "2", format="excel", attributes={"engine": text}, tables=[text])]),
        FileProfile(path=f"{text}.tar", format="tar", attributes={"members": text},
                    tables=[table(name=text)], members=[ArchiveMember(name=text, format="csv", tables=[None])]),
        FileProfile(path=f"{text}.zip", format="zip", attributes={"members": "2"},
                    tables=[table(name=text), table(name=text)],
                    members=[ArchiveMember(name=text, format="json", encoding=text, tables=[None]),
                             ArchiveMember(name=text, format="parquet", tables=[None])]),
        FileProfile(path=f"{text}.log", format="csv", encoding=text,
                    tables=[table(name=text, options={"record_type": text, "sep": text, "width": 3}),
                            table(name=text + "2", options={"record_type": text + "2", "sep": text, "width": 5})]),
        FileProfile(path=f"{text}.xml", format="xml", tables=[table(name=text, options={"record": text})]),
        FileProfile(path=f"{text}.sqlite", format="sqlite", tables=[table(name=text), table(name=text + "2")]),
        FileProfile(path=f"{text}.txt", format="text", encoding=text),
        FileProfile(path=f"{text}.bin", format="binary", status="unreadable", reason=text),
    ]


class _Shape(ast.NodeTransformer):
    """The code's structure: every string constant emptied, loader names made one name."""

    def visit_Constant(self, node: ast.Constant) -> ast.Constant:
        return ast.Constant("") if isinstance(node.value, (str, bytes)) else node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        self.generic_visit(node)
        if node.name.startswith("load_"):
            node.name = "load_"
        return node

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id.startswith("load_"):
            node.id = "load_"
        return node


def shape(code: str) -> str:
    return ast.dump(_Shape().visit(ast.parse(code)))


@pytest.mark.parametrize("text", hostile_names(40, seed=5, nul=True))
def test_hostile_text_in_any_profile_field_changes_only_literals(text: str) -> None:
    """The loaders of every format, with hostile text (NUL included) in every field a lake
    fills, have the structure of the same loaders with plain text: the text stayed data."""
    plain = _every_format("t")
    for hostile, benign in zip(_every_format(text), plain):
        code = loading_code([make_loader(hostile)], Path("/lakes") / text)
        assert all(ch == "\n" or ch.isprintable() for ch in code), repr(code)  # no other line break, no NUL
        code.encode("utf-8")  # it can be written to a file
        assert shape(code) == shape(loading_code([make_loader(benign)], Path("/lakes/t"))), code
