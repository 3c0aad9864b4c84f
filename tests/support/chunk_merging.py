"""The directory partition's merge of neighbouring chunks as first written, scanning every pair at
each step (quadratic): the reference its heap-based replacement must agree with, and the
"before" of benchmarks/bench_partition_merge.py."""

from __future__ import annotations

from lakeboard.servers.partitioning.directory import _common_folder


def merge_by_scanning(chunks: list[tuple[str, list[str]]], n: int) -> list[tuple[str, list[str]]]:
    chunks = sorted(chunks, key=lambda c: c[0])
    while len(chunks) > max(n, 1):
        i = min(range(len(chunks) - 1), key=lambda k: len(chunks[k][1]) + len(chunks[k + 1][1]))
        (fa, a), (fb, b) = chunks[i], chunks[i + 1]
        chunks[i : i + 2] = [(_common_folder(fa, fb), a + b)]
    return chunks
