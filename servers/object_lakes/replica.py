"""The local sample replica of an object lake: a bounded byte range of each object, fetched once per version.

Each object's bytes up to `SAMPLE_BYTES` are read whole. A bigger object gives its head (cut at
its last line end where it reads as text) and, for the formats that keep their metadata at the
end (Parquet footers, zip directories: xlsx, npz, docx), its last `TAIL_BYTES` too, written at
their place in a sparse file of the object's size. So profiling, which reads the replica as a
folder, never causes more than `SAMPLE_BYTES` to be read from any object, whatever its size.

The manifest keeps each object's version (ETag, version id or generation) and size: an object
whose version and size did not change is not read again, and its replica file is left as it was,
so the profile cache (keyed by the file's size and time) finds it unchanged too.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from pydantic import BaseModel, Field

from lakeboard.common.atomic_files import write_text_atomic
from lakeboard.common.private_files import private_folders
from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.profiling.delimited import summarise
from lakeboard.servers.object_lakes.listing import ObjectEntry, iter_objects
from lakeboard.common.object_stores import ObjectLake, filesystem

SAMPLE_BYTES = 1 << 20  # the most read of one object: profiling reads only what the replica holds
TAIL_BYTES = 256 << 10  # of those, the end of a file whose format keeps its metadata there
TAIL_FORMATS = frozenset({".parquet", ".pq", ".zip", ".xlsx", ".xlsm", ".npz", ".docx", ".pptx", ".ods"})
BATCH = 32  # objects read together (their byte ranges requested concurrently), and a Dask task's objects
MANIFEST = "manifest.json"
OBJECTS = "objects"  # the replica's folder of samples: the folder the lake is indexed from


class ReplicaObject(BaseModel):
    size: int = Field(description="the object's size in the store")
    version: str = Field(description="ETag, version id or generation when it was read")
    bytes_read: int
    whole: bool = Field(description="False: the replica holds the head (and tail) only")


class ReplicaManifest(BaseModel):
    url: str
    objects: dict[str, ReplicaObject] = Field(default_factory=dict)
    skipped: dict[str, str] = Field(default_factory=dict, description="keys not in the replica, with the reason")


@dataclass
class ReplicaReport:
    folder: Path  # the folder of samples to index
    manifest: ReplicaManifest
    options: dict[str, object]  # the storage options it was read with (kept in memory only)
    fetched: list[int] = field(default_factory=list)  # bytes read of each object read this time
    seconds: float = 0.0  # listing, reading (and on Dask, profiling) the objects

    @property
    def summary(self) -> str:
        n = len(self.manifest.objects)
        if not self.fetched:
            return f"{n} objects, none changed since they were last read ({self.seconds:.1f} s)"
        return (f"{n} objects, {len(self.fetched)} read in {self.seconds:.1f} s: {sum(self.fetched):,} bytes, "
                f"median {statistics.median(self.fetched):,.0f} and at most {max(self.fetched):,} per object "
                f"(sample budget {SAMPLE_BYTES:,})")

    def apply(self, profile: FileProfile) -> FileProfile:
        """The profile of a replica's file as the object's: its size in the store, and, for an object
        sampled in part, row counts as estimates and a note of how much was read (given its own
        result, it returns it unchanged)."""
        obj = self.manifest.objects.get(profile.path)
        if obj is None or obj.whole or "sampled" in profile.attributes:
            return profile
        p = profile.model_copy(deep=True)
        if PurePosixPath(p.path).suffix.lower() not in TAIL_FORMATS:  # their row counts come from metadata
            scale = obj.size / max(obj.bytes_read, 1)
            for t in p.tables:
                if t.n_rows is not None:
                    t.n_rows, t.n_rows_exact = round(t.n_rows * scale), False
            if p.format in ("csv", "tsv") and p.tables:
                summarise(p)
        p.size_bytes = obj.size
        p.attributes["sampled"] = f"profiled from {obj.bytes_read:,} of the object's {obj.size:,} bytes"
        p.summary = f"{p.summary} [{p.attributes['sampled']}]"
        return p


def sample_ranges(entry: ObjectEntry, budget: int) -> list[tuple[int, int]]:
    """Byte ranges [start, end) to read of one object."""
    if entry.size <= budget:
        return [(0, entry.size)]
    if PurePosixPath(entry.rel).suffix.lower() in TAIL_FORMATS:
        return [(0, budget - TAIL_BYTES), (entry.size - TAIL_BYTES, entry.size)]
    return [(0, budget)]


def head_text(head: bytes) -> bytes:
    """A head that reads as text, cut after its last line end (a cut row would mislead profiling)."""
    if b"\x00" in head:
        return head
    end = head.rfind(b"\n")
    return head[: end + 1] if end >= len(head) // 2 else head


def write_sample(objects: Path, entry: ObjectEntry, parts: list[tuple[int, bytes]]) -> None:
    """The sample, atomically: a temporary file beside it (hidden, so no walk sees it), renamed over it."""
    private_folders(objects, entry.rel)
    dest = objects / entry.rel
    fd, tmp = tempfile.mkstemp(prefix=".part-", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            for start, data in parts:
                f.seek(start)
                f.write(data)
            if len(parts) > 1:
                f.truncate(entry.size)  # sparse between head and tail
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _batches(entries: Iterator[ObjectEntry], n: int) -> Iterator[list[ObjectEntry]]:
    batch: list[ObjectEntry] = []
    for e in entries:
        batch.append(e)
        if len(batch) == n:
            yield batch
            batch = []
    if batch:
        yield batch


def fetch_samples(fs, lake: ObjectLake, batch: list[ObjectEntry], budget: int) -> list[list[tuple[int, bytes]] | str]:
    """Each object's parts, or why it could not be read."""
    wanted = [(i, r) for i, e in enumerate(batch) for r in sample_ranges(e, budget)]
    paths = [f"{lake.root}/{batch[i].rel}" for i, _ in wanted]
    datas = fs.cat_ranges(paths, [r[0] for _, r in wanted], [r[1] for _, r in wanted], on_error="return")
    out: list[list[tuple[int, bytes]] | str] = [[] for _ in batch]
    for (i, (start, _)), data in zip(wanted, datas):
        if isinstance(out[i], str):
            continue
        if isinstance(data, BaseException):
            out[i] = f"it could not be read: {type(data).__name__}: {str(data)[:200]}"
        else:
            out[i].append((start, bytes(data)))
    for e, got in zip(batch, out):
        if not isinstance(got, str) and len(got) == 1 and e.size > budget:
            got[0] = (0, head_text(got[0][1]))
    return out


# what a batch gives per object: its entry, its sample's parts (or why it could not be read), and its
# profile's JSON where the batch was profiled where it was read (a Dask worker), else None
Sampled = tuple[ObjectEntry, "list[tuple[int, bytes]] | str", "str | None"]
BatchRunner = Callable[[Iterator[list[ObjectEntry]]], Iterator[Sampled]]


def local_batches(fs, lake: ObjectLake, budget: int) -> BatchRunner:
    """Batches read here, one after the other (their ranges concurrently), not profiled."""
    def run(batches: Iterator[list[ObjectEntry]]) -> Iterator[Sampled]:
        for batch in batches:
            for e, got in zip(batch, fetch_samples(fs, lake, batch, budget)):
                yield e, got, None
    return run


def _prune(objects: Path, keep: set[str]) -> None:
    """Files (and then empty folders) of objects that left the lake."""
    for folder, dirs, files in os.walk(objects, topdown=False):
        for name in files:
            path = Path(folder, name)
            if path.relative_to(objects).as_posix() not in keep:
                path.unlink(missing_ok=True)
        if Path(folder) != objects and not os.listdir(folder):
            os.rmdir(folder)


def refresh_replica(lake: ObjectLake, options: dict[str, object], folder: Path, *, budget: int = SAMPLE_BYTES,
                    progress: Callable[[int, str], None] | None = None, runner: BatchRunner | None = None,
                    on_profile: Callable[[FileProfile, tuple[int, int]], None] | None = None,
                    batch: int = BATCH) -> ReplicaReport:
    """Bring the replica in `folder` up to date with the lake: read the objects that are new or changed,
    drop the files of objects that are gone. Raises ValueError for a replica of another lake, OSError
    when the lake cannot be listed.

    `runner` reads the batches (default: here, `local_batches`); one that profiles them where they are
    read (`dask_batches.py`) gives each profile to `on_profile`, as the object's (`ReplicaReport.apply`),
    with the (size, mtime_ns) of its replica file, as soon as its batch is done."""
    t0 = time.perf_counter()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    objects = folder / OBJECTS
    objects.mkdir(mode=0o700, exist_ok=True)
    path = folder / MANIFEST
    before = ReplicaManifest.model_validate_json(path.read_text()) if path.is_file() else ReplicaManifest(url=lake.url)
    if before.url != lake.url:
        raise ValueError(f"{folder} holds the samples of another lake ({before.url}); choose another --name")
    fs = filesystem(lake, options)
    now = ReplicaManifest(url=lake.url)
    report = ReplicaReport(objects, now, options)
    done = 0

    def changed(e: ObjectEntry) -> bool:
        old = before.objects.pop(e.rel, None)  # moved, not copied: a listing of a million objects is held once
        unchanged = old is not None and old.version == e.version and old.size == e.size and e.version
        if unchanged and (objects / e.rel).is_file():
            now.objects[e.rel] = old
            return False
        return True

    def listed() -> Iterator[ObjectEntry]:
        for e in iter_objects(fs, lake):
            if e.skip_reason is not None:
                now.skipped[e.rel] = e.skip_reason
            elif changed(e):
                yield e

    run = runner or local_batches(fs, lake, budget)
    for e, got, profile_json in run(_batches(listed(), batch)):
        if isinstance(got, str):
            now.skipped[e.rel] = got
            continue
        try:
            write_sample(objects, e, got)
        except (IsADirectoryError, NotADirectoryError, FileExistsError):
            now.skipped[e.rel] = "another object's key uses its key as a folder, and a replica cannot hold both"
            continue
        read = sum(len(d) for _, d in got)
        now.objects[e.rel] = ReplicaObject(size=e.size, version=e.version, bytes_read=read, whole=e.size <= budget)
        report.fetched.append(read)
        if profile_json is not None and on_profile is not None:
            st = (objects / e.rel).stat()
            on_profile(report.apply(FileProfile.model_validate_json(profile_json)), (st.st_size, st.st_mtime_ns))
        done += 1
        if progress is not None:
            progress(done, e.rel)
    _prune(objects, set(now.objects))
    write_text_atomic(path, now.model_dump_json(indent=1), mode=0o600)
    report.seconds = time.perf_counter() - t0
    return report
