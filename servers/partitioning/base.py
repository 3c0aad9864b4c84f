"""The one interface every partition strategy implements, and what they share."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import PurePosixPath
from typing import Protocol

from lakeboard.schemas.clusters import ClusterSpec
from lakeboard.schemas.profiles import FileProfile


class PartitionError(RuntimeError):
    """A strategy cannot partition this lake (bad settings, no model configured ...)."""


class PartitionStrategy(Protocol):
    name: str

    def partition(self, profiles: list[FileProfile]) -> list[ClusterSpec]: ...


def slug(text: str, *, max_len: int = 40) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return (s[:max_len].rstrip("-")) or "files"


def unique_names(names: list[str]) -> list[str]:
    seen: Counter[str] = Counter()
    out = []
    for n in names:
        seen[n] += 1
        out.append(n if seen[n] == 1 else f"{n}-{seen[n]}")
    return out


def describe(files: list[str], profiles: dict[str, FileProfile]) -> str:
    """A short description of a cluster a person (or a host) can read."""
    formats = Counter(profiles[f].format for f in files if f in profiles)
    fmt = ", ".join(f"{n} {k}" for k, n in formats.most_common(4))
    folders = Counter(str(PurePosixPath(f).parent) for f in files)
    where = ", ".join(("(lake root)" if d == "." else d) for d, _ in folders.most_common(3))
    columns: Counter[str] = Counter()
    for f in files:
        if f in profiles:
            columns.update({c for c in profiles[f].column_names if not c.startswith("Unnamed")})
    common = ", ".join(c for c, _ in columns.most_common(8))
    examples = ", ".join(PurePosixPath(f).name for f in files[:4]) + (" ..." if len(files) > 4 else "")
    text = f"{len(files)} files ({fmt}) in {where}: {examples}."
    return text + (f" Columns include: {common}." if common else "")
