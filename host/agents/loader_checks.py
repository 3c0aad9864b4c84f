"""Checking in the kernel that a loader's data is what its file's profile expects.

`ask` without a model runs each loader in the kernel. That the code runs says little: a loader
that reads a title line as the header, or a footer as data, runs too. So the kernel also
measures what was loaded, as `TableShape`s (columns, numeric columns, rows, header rows among
the data), and the host compares them with the loader's `expects` by
`lakeboard.common.loaded_tables.problems`, the check the indexer makes.

The kernel has no Lakeboard to import, so the measuring function travels as source
(`TABLE_SHAPES`: `lakeboard.common.table_shapes.table_shapes`, which the indexer runs too). Its
JSON is read back in pages that each stay under the kernel's output cap, so a table of any width
is checked whole.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

from pydantic import ValidationError

from lakeboard.common.loaded_tables import shapes_from_json
from lakeboard.common.table_shapes import table_shapes
from lakeboard.host.kernel_session import KernelClient, KernelUnavailable
from lakeboard.schemas.messages import Loader
from lakeboard.schemas.profiles import TableShape

TABLE_SHAPES = inspect.getsource(table_shapes)  # the kernel measures with the indexer's own function

_PAGE = 12_000  # characters read back per cell, well under the kernel's 20,000-character cap
_PAGES = 40  # at most this many pages (480,000 characters of JSON: tens of thousands of columns)
_HELD = "_lakeboard_shapes_json"  # the kernel variable the JSON waits in between pages


class Unmeasured(Exception):
    """The kernel could not measure what was loaded; str() says why, for a person."""


async def measure(kernel: KernelClient, expression: str, *, purpose: str = "offline_check") -> Any:
    """`table_shapes(...)` of a kernel expression (or any JSON-able expression built on it), read
    back in pages. Raises Unmeasured."""
    first = f"{TABLE_SHAPES}\nimport json as _json\n{_HELD} = _json.dumps({expression})\nprint(len({_HELD}))\n"
    total = _int(await _run(kernel, first, purpose))
    if total > _PAGE * _PAGES:
        raise Unmeasured(f"what it loaded is too large to check ({total:,} characters of column names)")
    text = ""
    while len(text) < total:
        text += await _run(kernel, f"print({_HELD}[{len(text)}:{len(text) + _PAGE}])\n", purpose)
    try:
        return json.loads(text)
    except ValueError:
        raise Unmeasured("the kernel's account of what was loaded could not be read back") from None


async def _run(kernel: KernelClient, code: str, purpose: str) -> str:
    try:
        execution = await kernel.execute(code, purpose=purpose)
    except KernelUnavailable as exc:
        raise Unmeasured(str(exc)) from exc
    if not execution.ok:
        error = f"{execution.error.name}: {execution.error.value}"[:300] if execution.error else "it failed"
        raise Unmeasured(f"measuring what was loaded failed in the kernel ({error})")
    if execution.truncated:
        raise Unmeasured("the kernel cut its account of what was loaded")
    return execution.stdout.rstrip("\n").rsplit("\n", 1)[-1]


def _int(text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise Unmeasured("the kernel's account of what was loaded could not be read back") from None


def as_shapes(raw: Any) -> list[TableShape]:
    """Shapes the kernel printed, validated. Raises Unmeasured."""
    try:
        return shapes_from_json(raw if isinstance(raw, list) else [])
    except ValidationError:
        raise Unmeasured("the kernel's account of what was loaded is not a list of tables") from None


def any_file_of(expects: list[TableShape]) -> list[TableShape]:
    """What another file of the loader's layout should load as: the same tables and columns,
    any number of rows (the rows the profile counted are its first file's)."""
    return [shape.model_copy(update={"rows": 0, "rows_exact": False}) for shape in expects]


def without_file_column(shapes: list[TableShape]) -> list[TableShape]:
    """A family's tables stacked into one carry a `file` column first; the expected shape has none."""
    out = []
    for shape in shapes:
        if shape.columns[:1] == ["file"]:
            shape = shape.model_copy(update={"columns": shape.columns[1:],
                                             "numeric": [c for c in shape.numeric if c != "file"]})
        out.append(shape)
    return out


def for_paths(loader: Loader, paths: list[str]) -> Loader:
    """`loader` for `paths`: it expects what its profile says while its first file stays first,
    else what any file of its layout holds (`any_file_of`)."""
    expects = loader.expects if paths[0] == loader.paths[0] else any_file_of(loader.expects)
    return loader.model_copy(update={"paths": paths, "expects": expects})
