"""The offline default: partition by folder and file-name families.

Folders are how people already organise a lake, so they are the first cut. Files of one
family (a dated series, same-shaped siblings) always stay together; tiny folders join
their parent's cluster; very large folders are split into chunks of whole families, as
the paper's clustering prompt asks of a model.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import defaultdict
from pathlib import PurePosixPath

from lakeboard.schemas.clusters import ClusterSpec
from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.partitioning.base import describe, slug, unique_names
from lakeboard.servers.profiling.families import column_signature, find_families


# Clusters a lake gets when no number is asked for: about one per FILES_PER_CLUSTER files,
# at least MIN_CLUSTERS (where its folders give that many) and at most MAX_CLUSTERS. Every file
# agent weighs the request against the whole lake's index, so each one more costs a request CPU
# and idle memory: on a 50k-file lake, 8 agents against 16 answered in 160 ms against 194-205 ms
# (p50) and held 1.24 GB against 1.68 GB (PSS). None of the real lakes has more than 3.
MIN_CLUSTERS, MAX_CLUSTERS, FILES_PER_CLUSTER = 4, 8, 8


def default_cluster_count(n_files: int) -> int:
    return max(MIN_CLUSTERS, min(MAX_CLUSTERS, math.ceil(n_files / FILES_PER_CLUSTER)))


class DirectoryStrategy:
    name = "directory"

    def __init__(self, *, n_clusters: int | None = None, max_files: int = 150, min_files: int = 2) -> None:
        self.n_clusters = n_clusters
        self.max_files = max_files
        self.min_files = min_files

    def partition(self, profiles: list[FileProfile]) -> list[ClusterSpec]:
        by_path = {p.path: p for p in profiles}
        groups: dict[str, list[str]] = defaultdict(list)
        for p in sorted(by_path):
            groups[str(PurePosixPath(p).parent)].append(p)

        # Fold folders too small to be worth an agent into their parent, deepest first.
        for folder in sorted(groups, key=lambda d: -len(PurePosixPath(d).parts)):
            if folder != "." and len(groups[folder]) < self.min_files:
                parent = str(PurePosixPath(folder).parent)
                groups[parent].extend(groups.pop(folder))

        groups = _merge_same_layout(groups, by_path)
        families = find_families(profiles)
        chunks: list[tuple[str, list[str]]] = []
        for folder, files in sorted(groups.items()):
            chunks.extend(self._split(folder, sorted(files), families))
        chunks = _merge_to(chunks, self.n_clusters or default_cluster_count(len(by_path)))

        names = unique_names([_name(folder, files) for folder, files in chunks])
        return [
            ClusterSpec(name=name, files=files, description=describe(files, by_path), reason=_reason(folder, files))
            for name, (folder, files) in zip(names, chunks)
        ]

    def _split(self, folder: str, files: list[str], families: dict[str, str]) -> list[tuple[str, list[str]]]:
        if len(files) <= self.max_files:
            return [(folder, files)]
        units: dict[str, list[str]] = defaultdict(list)
        for f in files:
            units[families.get(f, f)].append(f)
        out: list[tuple[str, list[str]]] = []
        current: list[str] = []
        for unit in sorted(units.values(), key=lambda u: u[0]):
            if current and len(current) + len(unit) > self.max_files:
                out.append((folder, current))
                current = []
            current.extend(unit)
        if current:
            out.append((folder, current))
        return out


_DIGITS = re.compile(r"\d+")


def _layout(folder: str, files: list[str], profiles: dict[str, FileProfile]) -> frozenset[tuple[str, str | None]]:
    """What a folder holds: its files' names (its own name and numbers masked) and columns.
    Item folders that hold the same files (`V001/V001_track.csv`, `V002/V002_track.csv`)
    share it."""
    own = PurePosixPath(folder).name
    masked = set()
    for f in files:
        name = PurePosixPath(f).name
        if len(own) >= 2:
            name = name.replace(own, "<folder>")
        masked.add((_DIGITS.sub("#", name), column_signature(profiles[f]) if f in profiles else None))
    return frozenset(masked)


def _merge_same_layout(groups: dict[str, list[str]], profiles: dict[str, FileProfile]) -> dict[str, list[str]]:
    """Sibling folders that hold the same layout become one group under their parent."""
    by_parent: dict[tuple[str, frozenset[tuple[str, str | None]]], list[str]] = defaultdict(list)
    for folder, files in groups.items():
        if folder != ".":
            by_parent[(str(PurePosixPath(folder).parent), _layout(folder, files, profiles))].append(folder)
    out = dict(groups)
    for (parent, _), folders in by_parent.items():
        if len(folders) < 2:
            continue
        key = f"{parent}/*" if parent != "." else "*"
        merged = out.pop(key, [])
        for folder in folders:
            merged.extend(out.pop(folder))
        out[key] = merged
    return out


def _reason(folder: str, files: list[str]) -> str:
    if folder.endswith("*"):
        parent = folder[:-2] or "the lake root"
        n = len({str(PurePosixPath(f).parent) for f in files})
        return f"{n} folders of the same layout under {parent!r}"
    base = PurePosixPath(folder) if folder != "." else PurePosixPath()
    # the folders directly under the cluster's folder that its files come from
    tops = sorted({PurePosixPath(f).relative_to(base).parts[0] for f in files
                   if len(PurePosixPath(f).relative_to(base).parts) > 1})
    at_base = any(len(PurePosixPath(f).relative_to(base).parts) == 1 for f in files)
    where = "the lake root" if folder == "." else repr(folder)
    if not tops:
        return f"files of {where}" if folder == "." else f"files of folder {where}"
    listed = ", ".join(repr(str(base / t)) for t in tops[:4]) + (" ..." if len(tops) > 4 else "")
    return f"files of folders {listed}" + (f" and of {where}" if at_base else "")


def _name(folder: str, files: list[str]) -> str:
    folder = folder.removesuffix("/*").removesuffix("*") or "."
    if folder != ".":
        return slug(PurePosixPath(folder).name)
    # the lake root's cluster may hold only small folders folded into it: name it after them
    tops = sorted({PurePosixPath(f).parts[0] for f in files if len(PurePosixPath(f).parts) > 1})
    at_root = any(len(PurePosixPath(f).parts) == 1 for f in files)
    return slug("-".join(tops[:3])) if tops and not at_root else "root"


def _merge_to(chunks: list[tuple[str, list[str]]], n: int) -> list[tuple[str, list[str]]]:
    """Merge the two smallest neighbouring (in path order) chunks until `n` remain; of equal pairs,
    the leftmost first.

    The pairs wait in a heap, keyed by their size and their left chunk's place, and a chunk that
    was merged since a pair was pushed makes that pair stale: O(m log m) for m chunks. Scanning
    every pair at each merge was O(m^2): 1.7 s against 0.06 s for 5,000 chunks (the 50k-file
    generated lake has 5,218), 47 s against 0.37 s for 20,000 (benchmarks/bench_partition_merge.py).
    """
    chunks = sorted(chunks, key=lambda c: c[0])
    folders = [folder for folder, _ in chunks]
    files = [list(names) for _, names in chunks]
    # neighbours in path order; a merged chunk lives on at its left member's place
    left = list(range(-1, len(chunks) - 1))
    right = list(range(1, len(chunks) + 1))
    alive = [True] * len(chunks)
    version = [0] * len(chunks)
    heap = [(len(files[i]) + len(files[i + 1]), i, 0, 0) for i in range(len(chunks) - 1)]
    heapq.heapify(heap)
    remaining = len(chunks)
    while remaining > max(n, 1):
        _, i, seen_i, seen_j = heapq.heappop(heap)
        j = right[i]  # the pair's right member while its left one is unchanged
        if not alive[i] or version[i] != seen_i or version[j] != seen_j:
            continue  # one of the two changed since the pair was pushed
        folders[i] = _common_folder(folders[i], folders[j])
        files[i] += files[j]
        alive[j], files[j] = False, []
        right[i] = right[j]
        if right[i] < len(chunks):
            left[right[i]] = i
        version[i] += 1
        remaining -= 1
        for a in (left[i], i):  # the merged chunk's pairs with its neighbours
            if a >= 0 and right[a] < len(chunks):
                b = right[a]
                heapq.heappush(heap, (len(files[a]) + len(files[b]), a, version[a], version[b]))
    return [(folders[i], files[i]) for i in range(len(chunks)) if alive[i]]


def _common_folder(a: str, b: str) -> str:
    pa, pb = PurePosixPath(a.removesuffix("/*")).parts, PurePosixPath(b.removesuffix("/*")).parts
    common = [x for x, y in zip(pa, pb) if x == y]
    return str(PurePosixPath(*common)) if common else "."
