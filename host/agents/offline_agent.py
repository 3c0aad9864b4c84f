"""The main agent with no model: discover the data, take the volunteers' loaders, run them
in the kernel, check what they load, and return the program with a JSON summary of what it loaded.

It cannot compute the answer (that takes a model), but it does the part of the job that is
hardest by hand: find the right files in a messy lake and load each one correctly.

Each chosen file's loader comes from the file agent that volunteered it, as typed data
(`lakeboard.schemas.messages.Loader`: a function of a file's path). A chosen file no loader names
uses the loader of its family. Each loader is tried in the kernel on each of its files (up to
a cap): files it fails on are left out, and what it loads is measured in the kernel and
compared with what the loader expects from its file's profile (`host.agents.loader_checks`).
A family member whose data differs from the rest is left out; a loader whose data differs is
kept but reported. The program is rendered from the kept loaders by the same renderer the file
agents use, then runs once more in a fresh kernel, prints a summary of what it loaded (cut to
fit the kernel's output cap), and its datasets are checked once more. The program is
"verified" only when every kept loader's data agrees with what it expects.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from lakeboard.common.code_text import comment_text, docstring, literal
from lakeboard.common.loaded_tables import problems
from lakeboard.common.loader_programs import (datasets_block, function_block, import_block, label, loading_code,
                                              with_unique_names)
from lakeboard.host.agents.loader_checks import (TABLE_SHAPES, Unmeasured, any_file_of, as_shapes, for_paths,
                                                 measure, without_file_column)
from lakeboard.host.agents.programs import NoJSONOutput, parse_program_output
from lakeboard.host.blackboard import Blackboard
from lakeboard.host.discover_files import discover, scored_paths
from lakeboard.host.kernel_session import KernelClient, KernelUnavailable
from lakeboard.host.trace import Trace
from lakeboard.schemas.agent import AgentResponse, RunResult, RunStatus
from lakeboard.schemas.discovery_result import DiscoveryResult
from lakeboard.schemas.messages import Loader

_VERIFY_PER_LOADER = 20  # files tried one at a time; the rest of a family is tried in the final run


async def answer_offline(
    question: str,
    blackboard: Blackboard,
    kernel: KernelClient,
    lake_root: Path,
    *,
    trace: Trace | None = None,
) -> RunResult:
    """Discovery, then a checked loading program (see the module docstring)."""
    started = time.monotonic()
    discovery = await discover(blackboard, question)
    result = RunResult(question=question, status="offline", model=None)
    result.data_sources = list(discovery.files)
    result.response = AgentResponse(query=question, data_sources=list(discovery.files))

    def done(status: RunStatus | None = None, error: str | None = None) -> RunResult:
        if status is not None:
            result.status = status
        result.error = error or result.error
        result.elapsed_s = round(time.monotonic() - started, 4)
        if trace is not None:
            trace.emit("offline_program", elapsed_s=result.elapsed_s, status=result.status,
                       data_sources=result.data_sources, error=result.error)
        return result

    if not discovery.files:
        result.notes.append(_NO_MODEL)
        return done(error="no file of this lake covers the question well enough")

    loaders, missing = build_loaders(discovery, Path(lake_root))
    notes = [f"{path}: no helper gave code that loads it" for path in missing]
    if discovery.ranked_next:  # one file is chosen; a join's second table is often the next
        notes.append("ranked next, not loaded: " + scored_paths(discovery.ranked_next[:3]))

    def failed(error: str) -> RunResult:
        result.notes += [_NO_MODEL, *notes]
        return done("failed", error)

    kept: list[Loader] = []
    unverified: list[str] = []
    for loader in loaders:
        checked = await _verify(loader, kernel, lake_root)
        for path, error in checked.errors.items():
            notes.append(f"{path}: its loading code failed in the kernel ({error}); left out")
        ran = [p for p in loader.paths if p not in checked.errors]
        differing = [p for p in ran if p in checked.disagreements]
        if differing and any(p in checked.agreed for p in ran):  # files of another layout than the rest
            for path in differing:
                notes.append(f"{path}: left out, its data does not match what its loader expects: "
                             + "; ".join(checked.disagreements[path]))
            ran = [p for p in ran if p not in checked.disagreements]
        else:  # kept for what they load, but not verified
            unverified += [f"{path}: " + "; ".join(checked.disagreements[path]) for path in differing]
        unverified += [f"{path}: {why}" for path, why in checked.unmeasured.items() if path in ran]
        if ran:
            kept.append(for_paths(loader, ran))
    if not kept:
        return failed("none of the suggested loading code ran in the kernel")

    program = assemble_program(question, kept, Path(lake_root))
    result.program = program
    try:
        await kernel.restart()
    except KernelUnavailable:
        pass  # the run below says whether the kernel works
    try:
        execution = await kernel.execute(program, purpose="offline_program")
    except KernelUnavailable as exc:
        return failed(f"the loading program could not be run: {exc}")
    result.execution = execution
    result.data_sources = [p for loader in kept for p in loader.paths]
    result.response = AgentResponse(query=question, data_sources=result.data_sources)
    if not execution.ok:
        failure = f"{execution.error.name}: {execution.error.value}"[:500] if execution.error else "it failed"
        return failed(f"the loading program failed in the kernel ({failure}); run the saved program to see where")
    try:
        result.summary = parse_program_output(execution.stdout)
    except NoJSONOutput:
        cut = " it was cut at the kernel's output limit" if execution.truncated else " it printed no summary"
        return failed(f"the loading program ran, but what it loaded could not be read:{cut}")
    unverified += await _check_datasets(kept, kernel)
    if unverified:
        result.notes.append(_NO_MODEL_UNVERIFIED)
        result.notes += [f"unverified: {why}" for why in dict.fromkeys(unverified)]
    else:
        result.notes.append(_NO_MODEL_VERIFIED)
    result.notes += notes
    return done()


_NO_MODEL = ("No model is configured: Lakeboard found the data and a program that loads it; computing the "
             "answer needs a model (--model, LAKEBOARD_LLM_MODEL or the config file).")
_NO_MODEL_VERIFIED = ("No model is configured: Lakeboard found the data and verified a program that loads it (it ran "
                      "in the kernel, and each file's tables have the columns, rows and numbers its profile expects); "
                      "computing the answer needs a model (--model, LAKEBOARD_LLM_MODEL or the config file).")
_NO_MODEL_UNVERIFIED = ("No model is configured: Lakeboard found the data and a program that loads it, but the program "
                        "is not verified: it ran in the kernel, and some of what it loads differs from the files' "
                        "profiles (below). Computing the answer needs a model (--model, LAKEBOARD_LLM_MODEL or the "
                        "config file).")


def offered_loaders(responses: list[dict]) -> list[Loader]:
    """Every loader the volunteers' responses carry, in the order given; malformed ones are skipped."""
    out = []
    for response in responses:
        for raw in response.get("loaders") or []:
            try:
                out.append(Loader.model_validate(raw))
            except ValidationError:
                continue
    return out


def build_loaders(discovery: DiscoveryResult, lake_root: Path) -> tuple[list[Loader], list[str]]:
    """Loaders of the chosen files, most relevant first; returns (loaders, chosen files no loader covers).

    A loader keeps the chosen files among its paths. A chosen file no loader names takes the
    loader of its family (same layout), so a family is loaded by one function. A loader whose
    first file is no longer the one its expectations were written for expects that file's
    tables and columns, but not its row count.
    """
    chosen = list(discovery.files)
    offered = offered_loaders(discovery.responses)
    loaders: list[Loader] = []
    covered: set[str] = set()
    for loader in offered:
        paths = [p for p in loader.paths if p in chosen and p not in covered]
        if paths:
            loaders.append(for_paths(loader, paths))
            covered.update(paths)
    groups = {m.path: m.group for m in discovery.matches}
    missing: list[str] = []
    for path in chosen:
        family = groups.get(path)
        if path in covered:
            continue
        if family is None:
            missing.append(path)
            continue
        own = next((loader for loader in loaders if loader.family == family), None)
        if own is not None:
            own.paths = [*own.paths, path]
            continue
        relative = next((loader for loader in offered if loader.family == family), None)
        if relative is None:
            missing.append(path)
        else:
            loaders.append(for_paths(relative, [path]))
        covered.add(path)
    rank = {path: i for i, path in enumerate(chosen)}
    loaders.sort(key=lambda loader: min(rank[p] for p in loader.paths))
    return loaders, missing


@dataclass
class _Checked:
    """One loader tried in the kernel, file by file."""

    errors: dict[str, str] = field(default_factory=dict)  # files it failed on, with the error
    disagreements: dict[str, list[str]] = field(default_factory=dict)  # files whose data differs from its expects
    unmeasured: dict[str, str] = field(default_factory=dict)  # files whose data could not be measured, and why
    agreed: set[str] = field(default_factory=set)  # files it loaded as expected


async def _verify(loader: Loader, kernel: KernelClient, lake_root: Path) -> _Checked:
    """Run the loader in the kernel on each of its files (up to a cap) and compare what it loaded
    with what it expects (its first file's profile: the rows, too, for that file alone)."""
    checked = _Checked()
    for path in loader.paths[:_VERIFY_PER_LOADER]:
        one = for_paths(loader, [path])
        error = await _try(kernel, loading_code([one], lake_root) + "\ntype(data).__name__\n")
        if error is not None:
            checked.errors[path] = error
            continue
        try:
            loaded = as_shapes(await measure(kernel, "table_shapes(data)"))
        except Unmeasured as exc:
            checked.unmeasured[path] = str(exc)
            continue
        reasons = problems(loaded, one.expects)
        if reasons:
            checked.disagreements[path] = reasons
        else:
            checked.agreed.add(path)
    return checked


async def _check_datasets(loaders: list[Loader], kernel: KernelClient) -> list[str]:
    """After the program ran: each family's files, stacked into one table by the program, against
    what its loader expects (its columns, any number of rows); this covers the members past the
    per-file cap. (A loader of one file was checked on it already.) Returns the disagreements,
    one sentence each."""
    stacked = [loader for loader in loaders if len(loader.paths) > 1 and len(loader.expects) == 1]
    if not stacked:
        return []
    names = [label(loader) for loader in stacked]
    try:
        raw = await measure(kernel, f"{{name: table_shapes(datasets[name]) for name in {literal(names)}}}",
                            purpose="offline_program_check")
    except Unmeasured as exc:
        return [f"the program's data could not be checked: {exc}"]
    out = []
    for loader, name in zip(stacked, names):
        try:
            loaded = as_shapes(raw.get(name) if isinstance(raw, dict) else None)
        except Unmeasured as exc:
            out.append(f"{name}: {exc}")
            continue
        if len(loaded) == 1:  # stacked into one table (files of other data are kept per file)
            out += [f"{name}: {reason}" for reason in problems(without_file_column(loaded), any_file_of(loader.expects))]
    return out


async def _try(kernel: KernelClient, code: str) -> str | None:
    """None if the code ran in the kernel, else what went wrong (one line)."""
    try:
        execution = await kernel.execute(code, purpose="offline_loader")
    except KernelUnavailable as exc:
        return str(exc)
    if execution.ok:
        return None
    return f"{execution.error.name}: {execution.error.value}"[:300] if execution.error else "failed"


_DESCRIBE_IMPORTS = ("import json", "import numpy as np", "import pandas as pd")
_SUMMARY_CHARS = 15_000  # the summary the program prints, under the kernel's 20,000-character output cap
_DESCRIBE = '''
def describe(value, depth=0):
    """A JSON-able summary of a loaded value: its kind, size, columns (the first 40, and how many in
    all), numeric columns and header rows among the data (counts), and first rows."""
    if isinstance(value, pd.DataFrame):
        [shape] = table_shapes(value)
        shown = shape["columns"][:40]
        return {"type": type(value).__name__, "rows": shape["rows"], "columns": shown,
                "n_columns": len(shape["columns"]), "numeric_columns": len(shape["numeric"]),
                "header_rows_in_data": shape["header_rows_in_data"],
                "dtypes": {str(c): str(t) for c, t in list(value.dtypes.items())[:40]},
                "head": json.loads(pd.DataFrame(value.iloc[:3, :40]).to_json(orient="records", date_format="iso",
                                                                               default_handler=str))}
    if isinstance(value, pd.Series):
        return {"type": "Series", "length": int(len(value)), "dtype": str(value.dtype)}
    if isinstance(value, np.ndarray):
        return {"type": "ndarray", "shape": list(value.shape), "dtype": str(value.dtype)}
    if isinstance(value, dict):
        items = list(value.items())[:30]
        if depth >= 2:
            return {"type": "dict", "keys": [str(k) for k, _ in items], "n_keys": len(value)}
        return {"type": "dict", "items": {str(k): describe(v, depth + 1) for k, v in items}, "n_keys": len(value)}
    if isinstance(value, (list, tuple)):
        return {"type": type(value).__name__, "length": len(value), "first": repr(value[:3])[:300]}
    if isinstance(value, str):
        return {"type": "text", "chars": len(value), "start": value[:300]}
    return {"type": type(value).__name__, "repr": repr(value)[:300]}


def shrink(value, items, chars):
    """`value` with each list and mapping cut to `items` entries and each text to `chars`
    characters, saying how many were left out."""
    if isinstance(value, str):
        return value if len(value) <= chars else value[:chars] + "..."
    if isinstance(value, (list, tuple)):
        out = [shrink(v, items, chars) for v in value[:items]]
        return out + ([f"... and {len(value) - items} more"] if len(value) > items else [])
    if isinstance(value, dict):
        out = {shrink(str(k), items, chars): shrink(v, items, chars) for k, v in list(value.items())[:items]}
        if len(value) > items:
            out["..."] = f"and {len(value) - items} more"
        return out
    return value


def bounded(summary, limit):
    """The summary as JSON of at most `limit` characters: cut harder until it fits."""
    text = json.dumps(summary, default=str)
    for items, chars in ((60, 300), (20, 120), (8, 60), (3, 40), (1, 20)):
        if len(text) <= limit:
            break
        text = json.dumps({key: shrink(value, items, chars) for key, value in summary.items()}, default=str)
    if len(text) > limit:
        text = json.dumps({"question": summary["question"][:200], "datasets": len(summary["datasets"]),
                           "note": "too much was loaded to summarize here"})
    return text
'''


def assemble_program(question: str, loaders: list[Loader], lake_root: Path) -> str:
    """The program: the loaders rendered (each import once, one function each), then a JSON
    summary of what each loaded, cut to stay under the kernel's output cap."""
    loaders = with_unique_names(loaders)
    files = [p for loader in loaders for p in loader.paths]
    header = docstring(
        f"Load the lake data for: {question}\n\n"
        "Assembled by Lakeboard without a model, from the loaders the file agents gave;\n"
        "every loader ran in the kernel. Files:\n" + "".join(f"  {comment_text(p)}\n" for p in files)
    )
    summary = (
        f"summary = {{\"question\": {literal(question)}, \"data_sources\": {literal(files)},\n"
        "           \"datasets\": {name: describe(value) for name, value in datasets.items()}}\n"
        f"print(bounded(summary, {_SUMMARY_CHARS}))\n"
    )
    parts = [header, import_block(loaders, _DESCRIBE_IMPORTS), function_block(loaders), TABLE_SHAPES, _DESCRIBE,
             datasets_block(loaders, lake_root) + "\n" + summary]
    return "\n\n\n".join(p.strip("\n") for p in parts) + "\n"
