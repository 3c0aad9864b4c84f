"""What the lake's documents declare about one file, handed to its reader.

A README, a format file or a data dictionary beside a file can say what the file itself does not:
which values mean "no data" (`fill_values`), and what a headerless table's columns are called
(`column_lists`). The lake is profiled once; the files something declares for are then profiled
again with `declaring`, so their reader options, types, loader and loader check are those of a
file that said it itself.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Declarations:  # a dataclass, not a model: it crosses to profiling workers as JSON (asdict)
    everywhere: list[str] = field(default_factory=list)  # values missing in every column
    by_column: dict[str, list[str]] = field(default_factory=dict)  # values missing in one column
    named: bool = False  # a document names the file, or a dictionary its columns (not only a README above it)
    columns: list[str] = field(default_factory=list)  # a headerless table's column names
    spans: list[list[int]] = field(default_factory=list)  # and their characters, [start, end), when declared
    column_note: str = ""  # what the document says of each column
    sources: list[str] = field(default_factory=list)  # the documents that declare these

    @property
    def missing(self) -> bool:
        return bool(self.everywhere or self.by_column)

    def __bool__(self) -> bool:
        return self.missing or bool(self.columns)


_DECLARED: contextvars.ContextVar[Declarations | None] = contextvars.ContextVar("declarations", default=None)


def declared() -> Declarations:
    """The declarations for the file being profiled now (empty unless `declaring` set them)."""
    return _DECLARED.get() or Declarations()


@contextmanager
def declaring(declarations: Declarations) -> Iterator[None]:
    """Profile a file with these declarations applied, as if a note in the file made them."""
    token = _DECLARED.set(declarations)
    try:
        yield
    finally:
        _DECLARED.reset(token)
