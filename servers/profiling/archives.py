"""Zip and tar archives: the members listed, and the tables inside them profiled as the archive's tables.

A lake often ships its tables zipped. Each member that a table reader reads (delimited text,
a workbook, JSON, Parquet) is unpacked, one at a time, into a private temporary folder (never
into the lake) under a name made here, not the member's own, and profiled by that reader. Its
tables become the archive's, named by the member's path (`ArchiveMember.table_names`); its loader
reads the member from the archive in memory.

The archive is untrusted: what a member says of its size is checked while it unpacks (a small
member that unpacks to gigabytes is cut off at `MEMBER_BYTES`), encrypted members and archives
inside the archive are listed but not read, and the members profiled are bounded in number,
bytes and time so that the profile and its loader check fit in the worker's bound per file.
"""

from __future__ import annotations

import tarfile
import tempfile
import time
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from lakeboard.schemas.profiles import ArchiveMember, FileProfile
from lakeboard.servers.profiling.detect import _EXTENSION_FORMATS, Detection, detect
from lakeboard.servers.profiling.profile import run_reader

MAX_MEMBERS = 20  # members profiled as tables in one archive
MEMBER_BYTES = 128 << 20  # most one member may unpack to
ARCHIVE_BYTES = 256 << 20  # most the members profiled may unpack to, together
ARCHIVE_SECONDS = 25.0  # profiling time across members: the loader check still fits in the pool's bound
LISTED = 200  # member names kept in the profile's text
LISTED_TAR = 10_000  # entries of a tar archive looked at (listing a compressed tar unpacks it)
MAX_DOCUMENTS, DOCUMENT_CHARS = 3, 2000  # documents in an archive whose leading text the profile keeps
_TABLE_READERS = frozenset({"delimited", "excel", "json_files", "parquet"})
_CHUNK = 1 << 20


@dataclass
class _Entry:
    """A regular file inside an archive."""

    name: str
    size: int  # what it says it unpacks to
    encrypted: bool = False


class _Zip:
    def __init__(self, path: Path) -> None:
        self._zip = zipfile.ZipFile(path)
        self._infos = {i.filename: i for i in self._zip.infolist() if not i.is_dir()}
        self.complete = True

    def entries(self) -> list[_Entry]:
        return [_Entry(i.filename, i.file_size, bool(i.flag_bits & 0x1)) for i in self._infos.values()]

    def open(self, name: str):
        return self._zip.open(self._infos[name])

    def close(self) -> None:
        self._zip.close()


class _Tar:
    """A tar archive, compressed or not. Only its regular files are entries: links and devices are
    never followed or read. A compressed tar is read in order, so its listing stops at `LISTED_TAR`."""

    def __init__(self, path: Path) -> None:
        self._tar = tarfile.open(path, "r:*")
        self._infos: dict[str, tarfile.TarInfo] = {}
        self.complete = True
        try:
            for n, info in enumerate(self._tar):
                if n >= LISTED_TAR:
                    self.complete = False
                    break
                if info.isfile():
                    self._infos[info.name] = info
        except (tarfile.TarError, EOFError, OSError, zlib.error):
            if not self._infos:
                raise
            self.complete = False  # cut short (or the head of a bigger object, sampled): what was listed stays

    def entries(self) -> list[_Entry]:
        return [_Entry(i.name, i.size) for i in self._infos.values()]

    def open(self, name: str):
        return self._tar.extractfile(self._infos[name])

    def close(self) -> None:
        self._tar.close()


_DAMAGED = (zipfile.BadZipFile, zipfile.LargeZipFile, tarfile.TarError, OSError, EOFError, ValueError, zlib.error)


def profile(path: Path, prof: FileProfile, det: Detection) -> None:
    kind = "tar" if det.format == "tar" else "zip"
    prof.kind, prof.format = "binary", kind
    if kind == "tar" and det.compression == "zstd":
        prof.status = "skipped"
        prof.reason = "a tar archive compressed with zstd, which Python's tarfile does not read (unpack it to profile it)"
        prof.summary = "tar archive, zstd-compressed: not read"
        return
    try:
        archive = _Tar(path) if kind == "tar" else _Zip(path)
        try:
            entries = archive.entries()
            skipped, prose = _profile_members(archive, entries, prof)
        finally:
            archive.close()
    except _DAMAGED as e:
        prof.status, prof.reason = "unreadable", f"damaged {kind} archive: {e}"
        prof.tables, prof.members = [], []
        return
    names = [e.name for e in entries]
    count = f"{len(names)}" if archive.complete else f"more than {len(names)}"
    prof.attributes["members"] = count
    # the members' names, what was not read and why, then the documents' leading text
    prof.text = "\n".join([*names[:LISTED], *(f"not read: {s}" for s in skipped[:LISTED]), *prose])
    listing = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
    if not prof.tables:
        prof.status = "skipped"
        prof.reason = f"{kind} archive with {count} files, none of them a table read here"
        if skipped:
            prof.reason += f" ({'; '.join(skipped[:3])})"
        prof.summary = f"{kind} archive with {count} files: {listing}"
        return
    prof.kind, prof.status = "table", "ok"
    read = ", ".join(f"{m.name} ({_size_text(prof, m)})" for m in prof.members[:6])
    more = f" and {len(prof.members) - 6} more" if len(prof.members) > 6 else ""
    prof.summary = f"{kind} archive with {count} files; tables read from {read}{more}"


def _size_text(prof: FileProfile, member: ArchiveMember) -> str:
    names = set(member.table_names())
    tables = [t for t in prof.tables if t.name in names]
    if len(tables) == 1 and tables[0].n_rows is not None:
        return f"{tables[0].n_rows:,} rows x {len(tables[0].columns)} columns"
    return f"{len(tables)} tables"


def _candidates(entries: list[_Entry]) -> list[tuple[_Entry, str]]:
    """The members a table reader may read, with the extension that names their format."""
    out = []
    for entry in entries:
        pure = PurePosixPath(entry.name)
        if pure.name.startswith("._") or (pure.parts and pure.parts[0] == "__MACOSX"):
            continue  # macOS resource forks, not data
        ext = pure.suffix.lower()
        fmt = _EXTENSION_FORMATS.get(ext)
        if fmt and fmt[1] in _TABLE_READERS:
            out.append((entry, ext))
    return out


def _profile_members(archive: _Zip | _Tar, entries: list[_Entry], prof: FileProfile) -> tuple[list[str], list[str]]:
    """Profile the archive's table members into `prof`. What was not read, one sentence each, and
    the leading text of the members that are documents (a README beside the tables)."""
    skipped: list[str] = []
    prose: list[str] = []
    budget, t0 = ARCHIVE_BYTES, time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="lakeboard-archive-") as folder:
        for n, (entry, ext) in enumerate(_candidates(entries)):
            name = entry.name
            if len(prof.members) >= MAX_MEMBERS or time.perf_counter() - t0 > ARCHIVE_SECONDS:
                skipped.append(f"{name}: not read, the archive's other members used this file's bound")
                continue
            if entry.encrypted:
                skipped.append(f"{name}: encrypted")
                continue
            limit = min(MEMBER_BYTES, budget)
            if entry.size > limit:
                skipped.append(f"{name}: {entry.size / 2**20:,.0f} MB unpacked, more than the {limit >> 20} MB read")
                continue
            target = Path(folder) / f"member{n}{ext}"
            try:
                size = _unpack(archive, entry, target, limit)
            except (*_DAMAGED, RuntimeError, NotImplementedError) as e:
                # damaged, or a compression method or password the library does not read
                target.unlink(missing_ok=True)
                skipped.append(f"{name}: cannot be unpacked: {str(e)[:200]}")
                continue
            if size is None:
                target.unlink(missing_ok=True)
                skipped.append(f"{name}: unpacks to more than its stated size")
                continue
            budget -= size
            member = _profile_member(target, name, size, prof)
            target.unlink()
            if isinstance(member, str):
                skipped.append(f"{name}: {member}")
            elif member.kind == "document" and member.text and len(prose) < MAX_DOCUMENTS:
                prose.append(f"{name}:\n{member.text[:DOCUMENT_CHARS]}")
    return skipped, prose


def _unpack(archive: _Zip | _Tar, entry: _Entry, target: Path, limit: int) -> int | None:
    """Copy the member to `target`, reading at most `limit` bytes (and no more than it says it
    holds); its size, or None when it holds more."""
    most = min(limit, entry.size)
    written = 0
    with archive.open(entry.name) as src, open(target, "wb") as out:
        while chunk := src.read(min(_CHUNK, most + 1 - written)):
            written += len(chunk)
            if written > most:
                return None
            out.write(chunk)
    return written


def _profile_member(target: Path, name: str, size: int, prof: FileProfile) -> FileProfile | str:
    """Profile one unpacked member; its tables join `prof`'s. Its profile, or why it could not be read."""
    det = detect(target)
    if det.reader not in _TABLE_READERS or det.compression:
        return f"{det.format} content, not a table read here"
    member = FileProfile(path=name, format=det.format, size_bytes=size)
    try:
        run_reader(target, member, det)
    except Exception as e:  # noqa: BLE001 - one bad member never loses the archive's others
        return f"could not be read: {type(e).__name__}: {str(e)[:200]}"
    if member.status != "ok":
        return member.reason or f"status {member.status}"
    if not member.tables:
        return member
    entry = ArchiveMember(name=name, format=member.format, encoding=member.encoding, size_bytes=size,
                          attributes={k: v for k, v in member.attributes.items() if k == "engine"},
                          tables=[t.name for t in member.tables])
    for table, archived in zip(member.tables, entry.table_names()):
        table.name = archived
        prof.tables.append(table)
    prof.members.append(entry)
    return member

