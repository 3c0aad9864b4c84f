"""Walk a lake and profile it, reusing cached profiles of files that did not change."""

from __future__ import annotations

import logging
import os
import time
from dataclasses import asdict
from pathlib import Path
from typing import Callable

from lakeboard.common.lake_files import iter_lake_files, walk_lake
from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.profiling.cache import ProfileCache
from lakeboard.servers.profiling.detect import _EXTENSION_FORMATS
from lakeboard.servers.profiling.column_lists import column_declarations
from lakeboard.servers.profiling.declarations import Declarations
from lakeboard.servers.profiling.fill_values import fill_declarations
from lakeboard.servers.profiling.loader_code import loader_code
from lakeboard.servers.profiling.profile import profile_file
from lakeboard.servers.profiling.worker_pool import DEFAULT_TIMEOUT_S, WorkerPool, WorkerStartError

log = logging.getLogger(__name__)

__all__ = ["iter_lake_files", "profile_lake"]

Progress = Callable[[int, int, str], None]


OUT_OF_TIME = "not profiled: the index's time budget"  # a file the next index must profile

def _skipped_profile(rel: str, reason: str) -> FileProfile:
    return FileProfile(path=rel, format="unknown", status="skipped", reason=reason, summary=f"not data: {reason}")


def failure_profile(rel: str, root: Path, status: str, reason: str) -> FileProfile:
    path = root / rel
    prof = FileProfile(path=rel, format=_EXTENSION_FORMATS.get(path.suffix.lower(), ("unknown",))[0])
    try:
        st = path.stat()
        prof.size_bytes, prof.mtime_ns = st.st_size, st.st_mtime_ns
    except OSError:
        pass
    prof.status, prof.reason = status, reason  # type: ignore[assignment]
    prof.summary = f"{prof.format} file, not profiled: {reason}"
    prof.loader = loader_code(prof, root)
    return prof


def profile_lake(
    root: Path,
    cache_dir: Path,
    *,
    workers: int | None = None,
    progress: Progress | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    time_budget_s: float | None = None,
    adjust: Callable[[FileProfile], FileProfile] | None = None,
) -> list[FileProfile]:
    """Profiles of every file of the lake, in walk order.

    Unchanged files (same relpath, size and mtime) come from the cache; the others are
    profiled in worker processes (`workers`: how many; 0 profiles in this process, without
    time bounds) and cached. Cache entries of files no longer in the lake are dropped.
    Files not profiled within `time_budget_s` of the start are skipped with the reason, and
    not cached: the next index profiles them.
    `adjust` turns a file's profile into what is cached and served (a bucket's sample replica:
    the object's size); it must give the same profile when given its own result.
    """
    root = Path(root)
    with ProfileCache(cache_dir) as cache:
        profiles = _profile_lake(root, cache, workers, progress, timeout_s, time_budget_s, adjust)
    return profiles if adjust is None else [adjust(p) for p in profiles]


def _out_of_time(rel: str, root: Path, budget_s: float) -> FileProfile:
    return failure_profile(
        rel, root, "skipped",
        f"{OUT_OF_TIME} ({budget_s:.3g} s) ran out first; index again (the files "
        "profiled so far are cached) or give a longer --time-budget",
    )


def _profile_lake(
    root: Path, cache: ProfileCache, workers: int | None, progress: Progress | None, timeout_s: float,
    time_budget_s: float | None = None, adjust: Callable[[FileProfile], FileProfile] | None = None,
) -> list[FileProfile]:
    deadline = None if time_budget_s is None else time.monotonic() + time_budget_s
    cache.ensure()  # its CACHEDIR.TAG keeps a cache inside the lake out of the walk
    found: dict[str, tuple[int, int]] = {}
    skipped: dict[str, FileProfile] = {}
    walk_order: list[str] = []
    for path, rel, skip_reason in walk_lake(root):  # the search agent reads the lake by the same walk
        walk_order.append(rel)
        if skip_reason is not None:
            skipped[rel] = _skipped_profile(rel, skip_reason)
            continue
        try:
            st = os.stat(path)
            found[rel] = (st.st_size, st.st_mtime_ns)
        except OSError:
            found[rel] = (-1, -1)  # vanished or unreadable: profile_file says why
    order = list(found)
    total = len(order)
    results: dict[str, FileProfile] = cache.fresh(found)
    done = 0

    def report(rel: str) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            try:
                progress(done, total, rel)
            except Exception:  # noqa: BLE001 - a broken progress bar must not stop indexing
                log.debug("progress callback failed", exc_info=True)

    def keep(rel: str, prof: FileProfile, text: str | None = None) -> None:
        """A new profile cached (`text`: its JSON as a worker wrote it) and kept; adjusted first, and then
        cached under the stat of the file profiled, which its profile no longer gives."""
        if adjust is not None:
            prof = adjust(prof)
            cache.put(prof, stat=found[rel])
        elif text is not None:
            cache.put_json(prof, text)
        else:
            cache.put(prof)
        results[rel] = prof

    for rel in order:
        if rel in results:
            report(rel)
    todo = [rel for rel in order if rel not in results]

    n = workers if workers is not None else min(os.cpu_count() or 1, len(todo), 4)
    with cache.batch():
        if todo and n > 0:
            try:
                pool = WorkerPool(root, min(n, len(todo)), timeout_s=timeout_s)
                for out in pool.run(todo, stop_at=deadline):
                    if out.profile_json is not None:
                        keep(out.relpath, FileProfile.model_validate_json(out.profile_json), out.profile_json)
                    else:
                        keep(out.relpath, failure_profile(out.relpath, root, out.status, out.failure or "failed"))
                    report(out.relpath)
            except WorkerStartError as e:
                log.warning("%s; profiling the remaining files in this process, without time bounds", e)
        for rel in todo:
            if rel in results:
                continue
            if deadline is not None and time.monotonic() >= deadline:
                results[rel] = _out_of_time(rel, root, time_budget_s)
            else:  # workers=0, or workers that could not start
                keep(rel, profile_file(root / rel, root))
            report(rel)

    cache.prune(set(order))
    cache.compact()  # once a cache holds enough profiles: a dictionary, and every profile stored with it
    results.update(skipped)
    profiles = [results[r] for r in walk_order if r in results]
    declared = apply_declarations(profiles, root, workers, timeout_s, stop_at=deadline)
    # what file agents serve: the files as the documents declare them (the cache keeps each file alone)
    cache.put_declared([adjust(d) if adjust is not None else d for d, p in zip(declared, profiles) if d is not p])
    return declared


def declared_for(profiles: list[FileProfile], root: Path) -> dict[str, Declarations]:
    """Per file, what the lake's documents declare about it: values that mean "no data"
    (`fill_values`), and a headerless table's column names (`column_lists`)."""
    declared = fill_declarations(profiles)
    for path, cols in column_declarations(profiles, root).items():
        d = declared.setdefault(path, Declarations())
        d.columns, d.spans, d.column_note = cols.names, cols.spans, cols.note
        d.sources = list(dict.fromkeys([*d.sources, cols.source]))
    return declared


def apply_declarations(
    profiles: list[FileProfile], root: Path, workers: int | None = None, timeout_s: float = DEFAULT_TIMEOUT_S,
    stop_at: float | None = None,
) -> list[FileProfile]:
    """The files the lake's documents declare something for (`declared_for`), profiled again with
    it, in bounded workers (`workers=0`: in this process, unbounded), until `stop_at`
    (time.monotonic; the index's time budget): a file not done by then keeps its first profile.
    The cache's own rows keep what each file alone shows (the declaration lives in another file),
    and every index applies the documents as they are then; `_profile_lake` stores the results as
    the cache's declared rows, which file agents read."""
    declared = declared_for(profiles, root)
    if not declared:
        return profiles
    again: dict[str, FileProfile] = {}
    workers = workers if workers is not None else min(os.cpu_count() or 1, 4)
    if workers > 0:
        try:
            pool = WorkerPool(root, min(workers, len(declared)), timeout_s=timeout_s)
            requests = {rel: asdict(d) for rel, d in declared.items()}
            for out in pool.run(list(declared), stop_at=stop_at, declared=requests):
                if out.profile_json is not None:
                    again[out.relpath] = FileProfile.model_validate_json(out.profile_json)
        except WorkerStartError as e:
            log.warning("%s; what the lake's documents declare (fill values, column names) is not applied", e)
    else:
        again = {rel: profile_file(root / rel, root, d) for rel, d in declared.items()}
    return [again[p.path] if p.path in again and again[p.path].status == "ok" else p for p in profiles]
