"""Generated loaders are self-contained: each runs in a fresh Python process and yields the data."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import openpyxl
import pandas as pd

from lakeboard.schemas.profiles import FileProfile, TableProfile
from lakeboard.servers.profiling import loader_code, profile_file
from lakeboard.servers.profiling.loader_code import make_loader
from tests.servers.profiling.test_text_documents import make_pdf
from tests.servers.profiling.test_images import png

RUN = r"""
import json, sys
out = {}
for item in json.load(sys.stdin):
    ns = {}
    try:
        exec(compile(item["loader"], item["path"], "exec"), ns)
        d = ns["data"]
        if hasattr(d, "shape"):
            size = int(np.prod(d.shape)) if (np := __import__("numpy")) else 0
        elif isinstance(d, dict):
            size = min((int(getattr(v, "size", len(v) if hasattr(v, "__len__") else 1)) for v in d.values()), default=0)
        elif d is None:
            size = 0
        elif hasattr(d, "getbbox"):  # a Pillow image (the image loader's choice when Pillow is installed)
            size = d.width * d.height
        else:
            size = len(d)
        out[item["path"]] = {"size": size, "error": None, "names": sorted(k for k in ns if not k.startswith("_"))}
    except BaseException as e:
        out[item["path"]] = {"size": 0, "error": f"{type(e).__name__}: {e}", "names": []}
json.dump(out, sys.stdout)
"""


def _lake(root: Path) -> None:
    (root / "tables").mkdir(parents=True)
    (root / "tables" / "report.csv").write_text("Title line\n\nid,name\n1,a\n2,b\n\nSource: x\n")
    (root / "tables" / "semi.csv").write_bytes("a;b\nä;1,5\nö;2,5\n".encode("latin-1"))
    (root / "tables" / "aligned.txt").write_text("".join(f"{i:>3} {i * 1.5:>6.1f}\n" for i in range(12)))
    wb = openpyxl.Workbook()
    wb.active.append(["Title"])
    wb.active.append(["k", "v"])
    wb.active.append(["x", 1])
    wb.create_sheet("second").append(["only", "header"])
    wb["second"].append([1, 2])
    wb.save(root / "tables" / "book.xlsx")
    pd.DataFrame({"a": [1, 2]}).to_parquet(root / "tables" / "t.parquet")
    (root / "tables" / "recs.json").write_text(json.dumps({"rows": [{"a": 1}, {"a": 2}]}))
    (root / "tables" / "lines.jsonl").write_text('{"a": 1}\n{"a": 2}\n')
    np.savez(root / "arrays.npz", x=np.arange(4))
    np.save(root / "one.npy", np.ones((2, 2)))
    (root / "docs").mkdir()
    make_pdf(root / "docs" / "paper.pdf", ["Findings on soil"])
    (root / "docs" / "readme.md").write_text("# Readme\n")
    (root / "docs" / "page.html").write_text(
        "<html><body><table><tr><th>a</th></tr><tr><td>1</td></tr></table></body></html>"
    )
    (root / "docs" / "chart.png").write_bytes(png(4, 4))
    (root / "junk.csv").write_bytes(bytes(range(256)) * 4)
    (root / "empty.csv").write_bytes(b"")


def test_every_loader_runs_in_a_fresh_process(tmp_path: Path) -> None:
    root = tmp_path / "lake"
    _lake(root)
    profiles = [profile_file(p, root) for p in sorted(root.rglob("*")) if p.is_file()]
    items = [{"path": p.path, "loader": p.loader} for p in profiles]
    proc = subprocess.run(
        [sys.executable, "-c", RUN], input=json.dumps(items), capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = json.loads(proc.stdout)
    problems = []
    for p in profiles:
        r = results[p.path]
        if p.status == "ok":
            if r["error"] or r["size"] <= 0:
                problems.append(f"{p.path}: {r['error'] or 'empty data'}\n{p.loader}")
        elif r["error"] or not p.reason:
            problems.append(f"{p.path}: not data but {r['error'] or 'no reason'}")
    assert not problems, "\n".join(problems)
    # A loader's own names stay inside its function: the program binds only its imports, the function and `data`.
    assert results["tables/book.xlsx"]["names"] == ["Path", "data", "load_tables_book_xlsx", "pd"]
    assert {p.path: p.status for p in profiles}["junk.csv"] == "unreadable"


def test_loader_text(tmp_path: Path) -> None:
    prof = FileProfile(
        path="sub dir/it's.csv",
        format="csv",
        kind="table",
        summary="CSV table: 2 rows",
        tables=[TableProfile(options={"skiprows": 2, "sep": ";"}, notes=["Title of the table"])],
    )
    loader = make_loader(prof)
    assert loader.function == "load_sub_dir_it_s_csv" and loader.imports == ["import pandas as pd"]
    assert loader.source == (
        "def load_sub_dir_it_s_csv(path):\n"
        "    # note: Title of the table\n"
        "    df = pd.read_csv(path, skiprows=2, sep=';')\n"
        "    return df\n"
    )
    code = loader_code(prof, tmp_path)
    assert code.startswith("from pathlib import Path\nimport pandas as pd\n")
    assert "# sub dir/it's.csv: CSV table: 2 rows\n" in code
    expected_path = str(tmp_path / "sub dir" / "it's.csv")
    assert code.endswith(f"data = load_sub_dir_it_s_csv(Path({expected_path!r}))\n")
    compile(code, "loader", "exec")

    bad = FileProfile(path="x.bin", format="binary", status="skipped", reason="binary content of no known format")
    code = loader_code(bad, tmp_path)
    assert "return None" in code and "binary content of no known format" in code
    ns: dict = {}
    exec(compile(code, "loader", "exec"), ns)
    assert ns["data"] is None


def test_options_that_are_not_keyword_arguments_give_no_code(tmp_path: Path) -> None:
    prof = FileProfile(path="a.csv", format="csv", kind="table",
                       tables=[TableProfile(options={"sep=1, x": ",", "skiprows": 1})])
    loader = make_loader(prof)
    ns: dict = {}
    exec(compile(loader.source, "loader", "exec"), ns)
    assert ns[loader.function](tmp_path / "a.csv") is None  # no read call built from the key
    assert "no loader could be generated: reader option 'sep=1, x' is not a keyword argument" in loader.source
