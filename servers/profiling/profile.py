"""Profile one file: detect what it is, run its reader, attach loading code and its check. Never raises."""

from __future__ import annotations

import importlib
import logging
import os
import time
from pathlib import Path

from lakeboard.common.bounded_reads import FileRefused
from lakeboard.common.code_text import comment
from lakeboard.common.lake_files import PinnedFiles, open_lake_file
from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.profiling.column_stats import value_text
from lakeboard.servers.profiling.detect import SHAPEFILE_SIDECARS, _EXTENSION_FORMATS, Detection, detect
from lakeboard.servers.profiling.declarations import Declarations, declaring
from lakeboard.servers.profiling.loader_check import check_budget, check_loader
from lakeboard.servers.profiling.loader_code import loader_code

log = logging.getLogger(__name__)

_MAX_COMPANIONS = 32  # files beside a geodata file that a reader may open with it

_READERS = frozenset(
    "archives delimited excel json_files parquet arrays matlab cdf hdf5 netcdf fits votable ipac statistical_packages geo html text_documents images xml_records fallback".split()
)


def relative_posix(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            return path.as_posix()


def _sidecar_of(path: Path) -> Path | None:
    """The .shp a sidecar file (.dbf, .shx, .prj, ...) belongs to, if it is there."""
    name = path.name.lower()
    for ext in SHAPEFILE_SIDECARS:
        if name.endswith(ext):
            stem = path.name[: -len(ext)]
            for cand in (stem + ".shp", stem + ".SHP"):
                if (path.parent / cand).exists():
                    return path.parent / cand
    return None


def _companions(path: Path) -> list[str]:
    """Files a geodata reader opens beside `path` (a shapefile's .shx, .dbf, .prj...): same stem, another extension."""
    stem = path.stem.lower() + "."
    try:
        names = os.listdir(path.parent)
    except OSError:
        return []
    return sorted(n for n in names if n != path.name and n.lower().startswith(stem))[:_MAX_COMPANIONS]


def _lake_and_rel(path: Path, root: Path) -> tuple[Path, str]:
    """The lake `path` is opened in and its path there: `root` when it holds `path`, else its own folder."""
    try:
        return root, path.relative_to(root).as_posix()
    except ValueError:
        return path.parent, path.name


def profile_file(path: Path, root: Path, declared: Declarations | None = None) -> FileProfile:
    """What `path` holds and how to load it. Problems become status/reason, never exceptions.

    The file is opened once, as the lake's rules allow (`lakeboard.common.lake_files.open_lake_file`),
    and every reader reads that opened file: a file or folder replaced by a link after the walk
    is refused, never read through the link. `declared`: what the lake's documents say
    about this file (`lakeboard.servers.profiling.declarations`), applied as if the file said it.
    """
    t0 = time.perf_counter()
    path, root = Path(path), Path(root)
    prof = FileProfile(path=relative_posix(path, root), format="unknown")
    pinned = PinnedFiles()
    try:
        with pinned, declaring(declared or Declarations()):
            source = _profile_into(path, root, prof, pinned)
            if prof.status == "ok" and source is not None:  # the very file profiled, still pinned
                prof.loader_check = check_loader(prof, source, check_budget(time.perf_counter() - t0))
                if _unparsed_text(prof, path):
                    prof = _as_text(prof, source)
                    prof.loader_check = check_loader(prof, source, check_budget(time.perf_counter() - t0))
    except MemoryError:
        prof.status, prof.reason = "too_large", "the reader ran out of memory on this file"
        prof.tables, prof.arrays = [], []
    except Exception as e:  # noqa: BLE001 - the contract: one bad file never raises
        log.debug("profiling %s failed", path, exc_info=True)
        prof.status = "unreadable"
        prof.reason = f"could not read it as {prof.format}: {type(e).__name__}: {value_text(str(e), 300)}"
        prof.tables, prof.arrays = [], []
    if pinned.folder is not None and prof.reason:  # readers' messages name the file as the lake does
        prof.reason = prof.reason.replace(pinned.folder, str(path.parent))
    if pinned.folder is not None and prof.loader_check is not None:
        check = prof.loader_check
        check.reasons = [r.replace(pinned.folder, str(path.parent)) for r in check.reasons]
    if prof.status != "ok" and not prof.summary:
        prof.summary = f"{prof.format} file, not usable as data: {prof.reason}"
    if declared:
        prof.described_by = [p for p in declared.sources if p != prof.path]
    try:
        prof.loader = loader_code(prof, root)
    except Exception as e:  # noqa: BLE001
        prof.loader = comment(f"no loader could be generated: {type(e).__name__}: {e}") + "\ndata = None\n"
    prof.profiled_in_s = round(time.perf_counter() - t0, 4)
    return prof


def _unparsed_text(prof: FileProfile, path: Path) -> bool:
    """A file taken for a table by its commas (a codebook's prose, not named .csv) whose loader
    pandas cannot parse: no table, a text document."""
    check = prof.loader_check
    return (prof.format in ("csv", "tsv") and path.suffix.lower() not in (".csv", ".tsv", ".tab")
            and check is not None and not check.verified and any("ParserError" in r for r in check.reasons))


def _as_text(prof: FileProfile, source: Path) -> FileProfile:
    """`prof`'s file profiled again as a text document, saying why."""
    why = prof.loader_check.reasons[0] if prof.loader_check and prof.loader_check.reasons else "it failed"
    text = FileProfile(path=prof.path, format="text", size_bytes=prof.size_bytes, mtime_ns=prof.mtime_ns)
    run_reader(source, text, Detection("text", "text_documents"))
    text.attributes["note"] = value_text(f"read as text: its commas made no table pandas can parse ({why})", 300)
    return text


def _profile_into(path: Path, root: Path, prof: FileProfile, pinned: PinnedFiles) -> Path | None:
    """Profile `path` into `prof`; the path the readers opened (None when the file was not read)."""
    lake, rel = _lake_and_rel(path, root)
    try:
        fd = open_lake_file(lake, rel)
    except FileRefused as e:
        prof.status, prof.reason, prof.summary = "skipped", f"not opened: {e}", f"not data: {e}"
        return None
    except OSError as e:
        prof.status, prof.reason = "unreadable", f"cannot open the file: {e.strerror or e}"
        return None
    source = pinned.add(path.name, fd) or path  # what the readers open: this very file
    st = os.fstat(fd)
    prof.size_bytes, prof.mtime_ns = st.st_size, st.st_mtime_ns
    ext_fmt = _EXTENSION_FORMATS.get(path.suffix.lower())
    if ext_fmt:
        prof.format = ext_fmt[0]
    if st.st_size == 0:
        prof.status, prof.reason = "empty", "the file is empty (0 bytes)"
        prof.kind = "unknown"
        return None
    shp = _sidecar_of(path)
    if shp is not None and path.suffix.lower() != ".shp":
        prof.kind, prof.format, prof.status = "geo", "geo", "skipped"
        prof.reason = f"part of the shapefile {shp.name} (profiled with it)"
        prof.summary = f"shapefile component ({path.suffix}) of {shp.name}"
        return None
    try:
        head = os.pread(fd, 8192, 0)
    except OSError as e:
        prof.status, prof.reason = "unreadable", f"cannot read the file: {e.strerror or e}"
        return None
    det = detect(source, head)
    prof.format = det.format
    if det.compression:
        prof.attributes["compression"] = det.compression
    if det.reader not in _READERS:
        det = Detection("unknown", "fallback")
    if det.reader == "geo" and source != path:
        _pin_companions(path, lake, rel, pinned)
    run_reader(source, prof, det)
    if det.note:
        prof.attributes["note"] = det.note
        if prof.status == "ok":
            prof.summary = f"{prof.summary} [{det.note}]"
        elif prof.reason and det.note not in prof.reason:
            prof.reason = f"{prof.reason} ({det.note})"
    return source


def run_reader(path: Path, prof: FileProfile, det: Detection) -> None:
    """Profile `path` into `prof` with the reader `det` names (its module is imported when first used)."""
    importlib.import_module(f"lakeboard.servers.profiling.{det.reader}").profile(path, prof, det)


def _pin_companions(path: Path, lake: Path, rel: str, pinned: PinnedFiles) -> None:
    """Pin the files a geodata reader opens beside `path`, each opened by the lake's rules like the file."""
    folder = rel.rpartition("/")[0]
    for name in _companions(path):
        try:
            fd = open_lake_file(lake, f"{folder}/{name}" if folder else name)
        except (FileRefused, OSError):
            continue  # not beside it for the reader, which says what it misses
        pinned.add(name, fd)
