"""Loaders against the labelled set of messy files (issue 27, item 6).

For each labelled file (`tests/servers/profiling/labelled_tables.json`), three programs load it:
- lakeboard: the file's own loader, from a fresh profile (`profile.loader`);
- respond: the loader a file agent's `respond` returns (`response_writing.loaders`, rendered
  with `loader_programs.loading_code`);
- pandas: `pd.read_csv(path)` or `pd.read_excel(path, sheet_name=None)` with defaults.
Each loaded table is compared with its label (`tests.support.labelled_tables.problems`). Prints a
line per file and the counts; `--failures PATH` writes the failures of the first two, a line
or two each. Cases whose lake folder is absent are skipped.

    python benchmarks/bench_loaders.py [--only SUBSTRING] [--failures /tmp/lb/labelled_failures.txt]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lakeboard.common.loader_programs import loading_code  # noqa: E402
from lakeboard.servers.file_agent.response_writing import loaders  # noqa: E402
from lakeboard.servers.profiling import profile_file  # noqa: E402
from tests.support.labelled_tables import (  # noqa: E402
    Case,
    job,
    load_cases,
    pandas_default_program,
    problems,
    run_programs,
)

KINDS = ("lakeboard", "respond", "pandas")


def programs(case: Case) -> dict[str, str | None]:
    profile = profile_file(case.file, case.root)
    respond = loading_code(loaders([profile], {}, {}), case.root) if profile.ok else None
    return {"lakeboard": profile.loader, "respond": respond, "pandas": pandas_default_program(case)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="cases whose lake:path contains this text")
    ap.add_argument("--failures", type=Path, help="write the lakeboard and respond failures to this file")
    args = ap.parse_args()

    cases = [c for c in load_cases() if not args.only or args.only in c.id]
    absent = [c for c in cases if not c.available]
    cases = [c for c in cases if c.available]
    t0 = time.perf_counter()
    jobs, codes = [], {}
    for case in cases:
        for kind, code in programs(case).items():
            codes[(case.id, kind)] = code
            jobs.append(job(f"{kind}|{case.id}", code, case))
    profiled_s = time.perf_counter() - t0
    results = run_programs(jobs)
    ran_s = time.perf_counter() - t0 - profiled_s

    passed = {kind: 0 for kind in KINDS}
    failures: list[str] = []
    print(f"{'lakeboard':9} {'respond':8} {'pandas':7} file")
    for case in cases:
        found = {kind: problems(case, results[f"{kind}|{case.id}"]) for kind in KINDS}
        for kind in KINDS:
            passed[kind] += not found[kind]
        marks = [("ok" if not found[k] else "FAIL") for k in KINDS]
        print(f"{marks[0]:9} {marks[1]:8} {marks[2]:7} {case.id}")
        for kind in ("lakeboard", "respond"):
            if found[kind] and not (kind == "respond" and found[kind] == found["lakeboard"]):
                print(f"    {kind}: {'; '.join(found[kind])[:400]}")
                detail = "\n    ".join(p[:400] for p in found[kind])
                failures.append(f"{case.id} [{kind}] ({case.why})\n    {detail}")
    n = len(cases)
    print(f"\n{n} labelled files ({len(absent)} skipped: lake absent)")
    print(f"profiled in {profiled_s:.1f} s, loaded in {ran_s:.1f} s")
    for kind in KINDS:
        print(f"  {kind:9} {passed[kind]:3d} / {n} correct tables")
    if args.failures:
        args.failures.write_text(
            f"Labelled set failures ({time.strftime('%Y-%m-%d %H:%M:%S')}): lakeboard {passed['lakeboard']}/{n}, "
            f"respond {passed['respond']}/{n}, pandas defaults {passed['pandas']}/{n}.\n"
            "Each: case [loader] (what makes the file messy), then what differs from the label "
            "(tests/servers/profiling/labelled_tables.json).\n"
            "'respond' is listed only where it differs from lakeboard.\n\n"
            + "\n".join(failures)
            + "\n",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
