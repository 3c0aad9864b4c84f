"""Programs rendered from typed loaders (`lakeboard.schemas.messages.Loader`).

A file agent shows its loaders as one program (the paper's `code`); the host builds the
program it runs from the loaders it chose. Both render them here, so the code a person reads
and the code that runs have one shape: each import once, one function per loader, then one
call per file. A family of same-layout files is loaded file by file and stacked.

Lake text enters the program only through `lakeboard.common.code_text`: paths and labels as
literals, summaries as one-line comments.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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


@dataclass(frozen=True)
class BucketSource:
    """A lake in object storage, for programs that may run where Lakeboard's mirror is not."""

    url: str  # s3://bucket/prefix
    options: dict[str, object] = field(default_factory=dict)  # those that say where the store is, never a secret


_LAKE_FILE = '''def lake_file(key):
    """The lake's file `key`: Lakeboard's mirror of it where it holds one (its kernel has no network), else a
    local copy fetched through fsspec, with the store's options from LAKEBOARD_STORAGE_OPTIONS (JSON) and
    the store's own chain (environment, profile files) for credentials."""
    path = MIRROR / key
    if path.is_file():
        return path
    import fsspec
    options = {**STORE_OPTIONS, **json.loads(os.environ.get("LAKEBOARD_STORAGE_OPTIONS") or "{}")}
    protocol = LAKE_URL.split("://", 1)[0]
    return Path(fsspec.open_local(f"simplecache::{LAKE_URL}/{key}", **{protocol: options}))
'''


def lake_file_block(lake_root: Path, source: BucketSource) -> str:
    """`lake_file` and the constants it reads (the mirror, the lake's URL, the store's public options)."""
    constants = (f"MIRROR = Path({literal(str(lake_root))})\nLAKE_URL = {literal(source.url)}\n"
                 f"STORE_OPTIONS = {{{', '.join(f'{literal(k)}: {literal(v) if isinstance(v, str) else repr(v)}' for k, v in source.options.items())}}}\n")
    return constants + "\n\n" + _LAKE_FILE


def call(loader: Loader, lake_root: Path, source: BucketSource | None = None) -> str:
    """The expression that loads the loader's files (absolute paths, as literals; a bucket lake's through
    `lake_file`)."""
    if source is not None:
        paths = [f"lake_file({literal(p)})" for p in loader.paths]
    else:
        paths = [f"Path({literal(str(Path(lake_root) / p))})" for p in loader.paths]
    if len(paths) == 1:
        return f"{loader.function}({paths[0]})"
    listing = "".join(f"    {p},\n" for p in paths)
    return f"stack_files({loader.function}, [\n{listing}])"


def datasets_block(loaders: Iterable[Loader], lake_root: Path, source: BucketSource | None = None) -> str:
    """`datasets`: what each loader loaded, under its label."""
    lines = ["datasets = {}"]
    lines += [f"datasets[{literal(label(loader))}] = {call(loader, lake_root, source)}" for loader in loaders]
    return "\n".join(lines) + "\n"


def loading_code(loaders: Iterable[Loader], lake_root: Path, source: BucketSource | None = None) -> str:
    """The loaders as one program: imports, functions, then the loading. One loader binds its
    data to `data`; several fill `datasets`, keyed by file. With a bucket lake's `source`, files are
    read from `lake_root` (its mirror) where they are, else through fsspec (`lake_file`)."""
    loaders = with_unique_names(loaders)
    if not loaders:
        return ""
    if len(loaders) == 1:
        loading = f"data = {call(loaders[0], lake_root, source)}\n"
    else:
        loading = datasets_block(loaders, lake_root, source)
    extra = ("import json", "import os") if source is not None else ()
    parts = [import_block(loaders, extra), function_block(loaders), loading]
    if source is not None:
        parts.insert(1, lake_file_block(lake_root, source))
    return "\n\n".join(parts)
