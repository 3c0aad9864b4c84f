"""Programs rendered from typed loaders (`lakeboard.schemas.messages.Loader`).

A file agent shows its loaders as one program (the paper's `code`); the host builds the
program it runs from the loaders it chose. Both render them here, so the code a person reads
and the code that runs have one shape: each import once, one function per loader, then one
call per file. A family of same-layout files is loaded file by file and stacked.

Lake text enters the program only through `lakeboard.common.code_text`: paths and labels as
literals, summaries as one-line comments.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from lakeboard.common.code_text import comment, literal
from lakeboard.schemas.messages import Loader

_PATH_IMPORT = "from pathlib import Path"
_PANDAS_IMPORT = "import pandas as pd"
_STACK = '''def stack_files(load, paths):
    """Each file of a family loaded: tables stacked with a `file` column, other data kept per file name."""
    loaded = {path.name: load(path) for path in paths}
    if all(isinstance(value, pd.DataFrame) for value in loaded.values()):
        return pd.concat(loaded, names=["file", None]).reset_index(level=0)
    return loaded
'''


def with_unique_names(loaders: Iterable[Loader]) -> list[Loader]:
    """The loaders with distinct function names (a clash gets a numbered name), for one program."""
    used: set[str] = set()
    out = []
    for loader in loaders:
        name, n = loader.function, 2
        while name in used:
            name, n = f"{loader.function}_{n}", n + 1
        used.add(name)
        if name != loader.function:
            # The contract fixes the first line to `def <function>(path):`, so this renames the function alone.
            source = f"def {name}(path):" + loader.source[len(f"def {loader.function}(path):"):]
            loader = loader.model_copy(update={"function": name, "source": source})
        out.append(loader)
    return out


def import_block(loaders: Iterable[Loader], extra: Iterable[str] = ()) -> str:
    """Every import the loaders (and `extra`) need, each once: `from` imports first, then sorted."""
    loaders = list(loaders)
    statements = {_PATH_IMPORT, *extra, *(s.strip() for loader in loaders for s in loader.imports)}
    if any(len(loader.paths) > 1 for loader in loaders):
        statements.add(_PANDAS_IMPORT)
    return "\n".join(sorted(statements, key=lambda s: (not s.startswith("from "), s))) + "\n"


def function_block(loaders: Iterable[Loader]) -> str:
    """Each loader's function under a comment that says what it loads; `stack_files` when a family needs it."""
    loaders = list(loaders)
    parts = []
    for loader in loaders:
        head = comment(f"{loader.paths[0]}: {loader.summary}" if loader.summary else loader.paths[0], 200)
        if len(loader.paths) > 1:
            head += "\n" + comment(f"{len(loader.paths)} files share this layout; one call per file, stacked")
        if loader.check is not None and not loader.check.verified:  # said where the code is read, not only in prose
            head += "\n" + comment(loader.check.sentence(), 300)
        parts.append(f"{head}\n{loader.source.strip()}\n")
    if any(len(loader.paths) > 1 for loader in loaders):
        parts.append(_STACK)
    return "\n\n".join(parts)


def label(loader: Loader) -> str:
    """The loader's entry in a program's `datasets`: its file, or its family's first file and how many more."""
    more = len(loader.paths) - 1
    return loader.paths[0] if not more else f"{loader.paths[0]} and {more} more files of the same layout"


def call(loader: Loader, lake_root: Path) -> str:
    """The expression that loads the loader's files (absolute paths, as literals)."""
    paths = [f"Path({literal(str(Path(lake_root) / p))})" for p in loader.paths]
    if len(paths) == 1:
        return f"{loader.function}({paths[0]})"
    listing = "".join(f"    {p},\n" for p in paths)
    return f"stack_files({loader.function}, [\n{listing}])"


def datasets_block(loaders: Iterable[Loader], lake_root: Path) -> str:
    """`datasets`: what each loader loaded, under its label."""
    lines = ["datasets = {}"]
    lines += [f"datasets[{literal(label(loader))}] = {call(loader, lake_root)}" for loader in loaders]
    return "\n".join(lines) + "\n"


def loading_code(loaders: Iterable[Loader], lake_root: Path) -> str:
    """The loaders as one program: imports, functions, then the loading. One loader binds its
    data to `data`; several fill `datasets`, keyed by file."""
    loaders = with_unique_names(loaders)
    if not loaders:
        return ""
    if len(loaders) == 1:
        loading = f"data = {call(loaders[0], lake_root)}\n"
    else:
        loading = datasets_block(loaders, lake_root)
    return "\n\n".join([import_block(loaders), function_block(loaders), loading])
