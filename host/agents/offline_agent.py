"""The main agent with no model: discover the data, take the volunteers' loaders, run them
in the kernel, and return the verified program with a JSON summary of what it loaded.

It cannot compute the answer (that takes a model), but it does the part of the job that is
hardest by hand: find the right files in a messy lake and load each one correctly.

Each chosen file's loader comes from the file agent that volunteered it, as typed data
(`lakeboard.schemas.messages.Loader`: a function of a file's path). A chosen file no loader names
uses the loader of its family. Each loader is tried in the kernel on each of its files
(up to a cap), and files it fails on are left out. The program is rendered from the kept
loaders by the same renderer the file agents use, then runs once more in a fresh kernel
and prints what it loaded, so the program handed back is one that ran.
"""

from __future__ import annotations

import time
from pathlib import Path

from pydantic import ValidationError

from lakeboard.common.code_text import comment_text, docstring, literal
from lakeboard.common.loader_programs import datasets_block, function_block, import_block, loading_code, with_unique_names
from lakeboard.host.agents.programs import NoJSONOutput, parse_program_output
from lakeboard.host.blackboard import Blackboard
from lakeboard.host.discover_files import discover
from lakeboard.host.kernel_session import KernelClient, KernelUnavailable
from lakeboard.host.trace import Trace
from lakeboard.schemas.agent import AgentResponse, RunResult
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
    """Discovery, then a verified loading program (see the module docstring)."""
    started = time.monotonic()
    discovery = await discover(blackboard, question)
    result = RunResult(question=question, status="offline", model=None)
    result.notes.append("No model is configured: Lakeboard found the data and verified a program that loads it; "
                        "computing the answer needs a model (--model, LAKEBOARD_LLM_MODEL or the config file).")
    result.data_sources = list(discovery.files)
    result.response = AgentResponse(query=question, data_sources=list(discovery.files))
    if not discovery.files:
        result.error = "no file of this lake covers the question well enough"
        result.elapsed_s = round(time.monotonic() - started, 4)
        return result

    loaders, missing = build_loaders(discovery, Path(lake_root))
    for path in missing:
        result.notes.append(f"{path}: no helper gave code that loads it")
    kept: list[Loader] = []
    for loader in loaders:
        errors = await _verify(loader, kernel, lake_root)
        for path, error in errors.items():
            result.notes.append(f"{path}: its loading code failed in the kernel ({error}); left out")
        paths = [p for p in loader.paths if p not in errors]
        if paths:
            kept.append(loader.model_copy(update={"paths": paths}))
    if not kept:
        result.status = "failed"
        result.error = "none of the suggested loading code ran in the kernel"
        result.elapsed_s = round(time.monotonic() - started, 4)
        return result

    program = assemble_program(question, kept, Path(lake_root))
    try:
        await kernel.restart()
    except KernelUnavailable:
        pass  # the run below says whether the kernel works
    try:
        execution = await kernel.execute(program, purpose="offline_program")
    except KernelUnavailable as exc:
        result.status, result.error = "failed", str(exc)
        result.program = program
        result.elapsed_s = round(time.monotonic() - started, 4)
        return result
    result.program, result.execution = program, execution
    result.data_sources = [p for loader in kept for p in loader.paths]
    result.response = AgentResponse(query=question, data_sources=result.data_sources)
    if not execution.ok:
        result.status = "failed"
        result.error = f"the assembled program failed: {execution.error.name}: {execution.error.value}" if execution.error else "failed"
    else:
        try:
            result.summary = parse_program_output(execution.stdout)
        except NoJSONOutput as exc:
            result.status, result.error = "failed", str(exc)
    result.elapsed_s = round(time.monotonic() - started, 4)
    if trace is not None:
        trace.emit("offline_program", elapsed_s=result.elapsed_s, status=result.status,
                   data_sources=result.data_sources, error=result.error)
    return result


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
    loader of its family (same layout), so a family is loaded by one function.
    """
    chosen = list(discovery.files)
    offered = offered_loaders(discovery.responses)
    loaders: list[Loader] = []
    covered: set[str] = set()
    for loader in offered:
        paths = [p for p in loader.paths if p in chosen and p not in covered]
        if paths:
            loaders.append(loader.model_copy(update={"paths": paths}))
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
            loaders.append(relative.model_copy(update={"paths": [path]}))
        covered.add(path)
    rank = {path: i for i, path in enumerate(chosen)}
    loaders.sort(key=lambda loader: min(rank[p] for p in loader.paths))
    return loaders, missing


async def _verify(loader: Loader, kernel: KernelClient, lake_root: Path) -> dict[str, str]:
    """Run the loader in the kernel on each of its files (up to a cap); the files it failed on, with the error."""
    errors = {}
    for path in loader.paths[:_VERIFY_PER_LOADER]:
        one = loader.model_copy(update={"paths": [path]})
        error = await _try(kernel, loading_code([one], lake_root) + "\ntype(data).__name__\n")
        if error is not None:
            errors[path] = error
    return errors


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
_DESCRIBE = '''
def describe(value, depth=0):
    """A JSON-able summary of a loaded value: its kind, size, columns and first rows."""
    if isinstance(value, pd.DataFrame):
        return {"type": type(value).__name__, "rows": int(len(value)), "columns": [str(c) for c in value.columns[:60]],
                "dtypes": {str(c): str(t) for c, t in list(value.dtypes.items())[:60]},
                "head": json.loads(pd.DataFrame(value.head(3)).to_json(orient="records", date_format="iso", default_handler=str))}
    if isinstance(value, pd.Series):
        return {"type": "Series", "length": int(len(value)), "dtype": str(value.dtype)}
    if isinstance(value, np.ndarray):
        return {"type": "ndarray", "shape": list(value.shape), "dtype": str(value.dtype)}
    if isinstance(value, dict):
        items = list(value.items())[:30]
        if depth >= 2:
            return {"type": "dict", "keys": [str(k) for k, _ in items]}
        return {"type": "dict", "items": {str(k): describe(v, depth + 1) for k, v in items}}
    if isinstance(value, (list, tuple)):
        return {"type": type(value).__name__, "length": len(value), "first": repr(value[:3])[:300]}
    if isinstance(value, str):
        return {"type": "text", "chars": len(value), "start": value[:300]}
    return {"type": type(value).__name__, "repr": repr(value)[:300]}
'''


def assemble_program(question: str, loaders: list[Loader], lake_root: Path) -> str:
    """The program: the loaders rendered (each import once, one function each), then a JSON
    summary of what each loaded."""
    loaders = with_unique_names(loaders)
    files = [p for loader in loaders for p in loader.paths]
    header = docstring(
        f"Load the lake data for: {question}\n\n"
        "Assembled by Lakeboard without a model, from the loaders the file agents gave;\n"
        "every loader ran in the kernel. Files:\n" + "".join(f"  {comment_text(p)}\n" for p in files)
    )
    summary = (
        f"print(json.dumps({{\"question\": {literal(question)}, \"data_sources\": {literal(files)},\n"
        "                  \"datasets\": {name: describe(value) for name, value in datasets.items()}}, default=str))\n"
    )
    parts = [header, import_block(loaders, _DESCRIBE_IMPORTS), function_block(loaders), _DESCRIBE,
             datasets_block(loaders, lake_root) + "\n" + summary]
    return "\n\n\n".join(p.strip("\n") for p in parts) + "\n"
