"""Walk a lake and profile it, reusing cached profiles of files that did not change."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Callable, Iterator

from schemas.profiles import FileProfile
from servers.profiling.cache import ProfileCache
from servers.profiling.detect import _BY_EXTENSION
from servers.profiling.loader_code import loader_code
from servers.profiling.profile import profile_file, relative_posix
from servers.profiling.worker_pool import DEFAULT_TIMEOUT_S, WorkerPool, WorkerStartError

log = logging.getLogger(__name__)

Progress = Callable[[int, int, str], None]

# Tool and cache folders that are never part of the data.
_SKIP_DIRS = frozenset({"__pycache__", "node_modules", "__MACOSX", ".ipynb_checkpoints"})
_SKIP_FILES = frozenset({"CACHEDIR.TAG", "Thumbs.db", "desktop.ini", "Icon\r"})


def iter_lake_files(root: Path) -> Iterator[Path]:
    """Data files under `root`, in a stable order.

    Skips hidden files and folders, caches (folders with a CACHEDIR.TAG, __pycache__),
    editor lock files, folder symlinks (loops, paths out of the lake) and file symlinks
    that point outside the lake.
    """
    root = Path(root)
    root_real = root.resolve()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        keep = []
        for name in sorted(dirnames):
            if name.startswith(".") or name in _SKIP_DIRS:
                continue
            sub = here / name
            if sub.is_symlink() or (sub / "CACHEDIR.TAG").exists():
                continue
            keep.append(name)
        dirnames[:] = keep
        for name in sorted(filenames):
            if name.startswith((".", "~$")) or name in _SKIP_FILES:
                continue
            p = here / name
            if p.is_symlink():
                try:
                    target = p.resolve(strict=True)
                except (OSError, RuntimeError):
                    continue
                if not target.is_file() or not target.is_relative_to(root_real):
                    continue
            elif not p.is_file():
                continue  # sockets, pipes, devices
            yield p


def _inside(p: Path, folder: Path) -> bool:
    try:
        p.resolve().relative_to(folder)
        return True
    except ValueError:
        return False


def _failure_profile(rel: str, root: Path, status: str, reason: str) -> FileProfile:
    path = root / rel
    prof = FileProfile(path=rel, format=_BY_EXTENSION.get(path.suffix.lower(), ("unknown",))[0])
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
) -> list[FileProfile]:
    """Profiles of every file of the lake, in walk order.

    Unchanged files (same relpath, size and mtime) come from the cache; the others are
    profiled in worker processes (`workers`: how many; 0 profiles in this process, without
    time bounds) and cached. Cache entries of files no longer in the lake are dropped.
    """
    root = Path(root)
    cache = ProfileCache(cache_dir)
    cache._ensure()
    cache_real = Path(cache_dir).resolve()
    files = [p for p in iter_lake_files(root) if not _inside(p, cache_real)]
    total = len(files)
    order: list[str] = []
    results: dict[str, FileProfile] = {}
    todo: list[str] = []
    done = 0

    def report(rel: str) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            try:
                progress(done, total, rel)
            except Exception:  # noqa: BLE001 - a broken progress bar must not stop indexing
                log.debug("progress callback failed", exc_info=True)

    for p in files:
        rel = relative_posix(p, root)
        order.append(rel)
        try:
            st = p.stat()
        except OSError:
            todo.append(rel)
            continue
        cached = cache.get(rel, st.st_size, st.st_mtime_ns)
        if cached is not None:
            results[rel] = cached
            report(rel)
        else:
            todo.append(rel)

    n = workers if workers is not None else min(os.cpu_count() or 1, len(todo), 4)
    if todo and n > 0:
        try:
            for out in WorkerPool(root, min(n, len(todo)), timeout_s=timeout_s).run(todo):
                if out.profile_json is not None:
                    prof = FileProfile.model_validate_json(out.profile_json)
                    cache.put_json(prof, out.profile_json)
                else:
                    prof = _failure_profile(out.relpath, root, out.status, out.failure or "failed")
                    cache.put(prof)
                results[out.relpath] = prof
                report(out.relpath)
        except WorkerStartError as e:
            log.warning("%s; profiling the remaining files in this process, without time bounds", e)
    for rel in todo:
        if rel not in results:  # workers=0, or workers that could not start
            prof = profile_file(root / rel, root)
            cache.put(prof)
            results[rel] = prof
            report(rel)

    cache.prune(set(order))
    return [results[r] for r in order if r in results]
