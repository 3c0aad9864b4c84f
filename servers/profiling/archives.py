"""Zip archives: the members listed, and the tables inside them profiled as the archive's tables.

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

import importlib
import tempfile
import time
import zipfile
import zlib
from pathlib import Path, PurePosixPath

from lakeboard.schemas.profiles import ArchiveMember, FileProfile
from lakeboard.servers.profiling.detect import _EXTENSION_FORMATS, Detection, detect

MAX_MEMBERS = 20  # members profiled as tables in one archive
MEMBER_BYTES = 128 << 20  # most one member may unpack to
ARCHIVE_BYTES = 256 << 20  # most the members profiled may unpack to, together
ARCHIVE_SECONDS = 25.0  # profiling time across members: the loader check still fits in the pool's bound
LISTED = 200  # member names kept in the profile's text
MAX_DOCUMENTS, DOCUMENT_CHARS = 3, 2000  # documents in an archive whose leading text the profile keeps
_TABLE_READERS = frozenset({"delimited", "excel", "json_files", "parquet"})
_CHUNK = 1 << 20


def profile(path: Path, prof: FileProfile, det: Detection) -> None:
    prof.kind, prof.format = "binary", "zip"
    try:
        with zipfile.ZipFile(path) as archive:
            infos = [i for i in archive.infolist() if not i.is_dir()]
            names = [i.filename for i in infos]
            prof.attributes["members"] = str(len(names))
            skipped, prose = _profile_members(archive, infos, prof)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as e:
        prof.status, prof.reason = "unreadable", f"damaged zip archive: {e}"
        prof.tables, prof.members = [], []
        return
    # the members' names, what was not read and why, then the documents' leading text
    prof.text = "\n".join([*names[:LISTED], *(f"not read: {s}" for s in skipped[:LISTED]), *prose])
    listing = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
    if not prof.tables:
        prof.status = "skipped"
        prof.reason = f"zip archive with {len(names)} files, none of them a table read here"
        if skipped:
            prof.reason += f" ({'; '.join(skipped[:3])})"
        prof.summary = f"zip archive with {len(names)} files: {listing}"
        return
    prof.kind, prof.status = "table", "ok"
    read = ", ".join(f"{m.name} ({_size_text(prof, m)})" for m in prof.members[:6])
    more = f" and {len(prof.members) - 6} more" if len(prof.members) > 6 else ""
    prof.summary = f"zip archive with {len(names)} files; tables read from {read}{more}"


def _size_text(prof: FileProfile, member: ArchiveMember) -> str:
    tables = [t for t in prof.tables if t.name in set(member.table_names())]
    if len(tables) == 1 and tables[0].n_rows is not None:
        return f"{tables[0].n_rows:,} rows x {len(tables[0].columns)} columns"
    return f"{len(tables)} tables"


def _candidates(infos: list[zipfile.ZipInfo]) -> list[tuple[zipfile.ZipInfo, str]]:
    """The members a table reader may read, with the extension that names their format."""
    out = []
    for info in infos:
        pure = PurePosixPath(info.filename)
        if pure.name.startswith("._") or (pure.parts and pure.parts[0] == "__MACOSX"):
            continue  # macOS resource forks, not data
        ext = pure.suffix.lower()
        fmt = _EXTENSION_FORMATS.get(ext)
        if fmt and fmt[1] in _TABLE_READERS:
            out.append((info, ext))
    return out


def _profile_members(archive: zipfile.ZipFile, infos: list[zipfile.ZipInfo], prof: FileProfile) -> tuple[list[str], list[str]]:
    """Profile the archive's table members into `prof`. What was not read, one sentence each, and
    the leading text of the members that are documents (a README beside the tables)."""
    skipped: list[str] = []
    prose: list[str] = []
    budget, t0 = ARCHIVE_BYTES, time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="lakeboard-archive-") as folder:
        for n, (info, ext) in enumerate(_candidates(infos)):
            name = info.filename
            if len(prof.members) >= MAX_MEMBERS or time.perf_counter() - t0 > ARCHIVE_SECONDS:
                skipped.append(f"{name}: not read, the archive's other members used this file's bound")
                continue
            if info.flag_bits & 0x1:
                skipped.append(f"{name}: encrypted")
                continue
            limit = min(MEMBER_BYTES, budget)
            if info.file_size > limit:
                skipped.append(f"{name}: {info.file_size / 2**20:,.0f} MB unpacked, more than the {limit >> 20} MB read")
                continue
            target = Path(folder) / f"member{n}{ext}"
            try:
                size = _unpack(archive, info, target, limit)
            except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, NotImplementedError, zlib.error) as e:
                # damaged, or a compression method or password zipfile does not read
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


def _unpack(archive: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path, limit: int) -> int | None:
    """Copy the member to `target`, reading at most `limit` bytes (and no more than it says it
    holds); its size, or None when it holds more."""
    most = min(limit, info.file_size)
    written = 0
    with archive.open(info) as src, open(target, "wb") as out:
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
    reader = importlib.import_module(f"lakeboard.servers.profiling.{det.reader}")
    try:
        reader.profile(target, member, det)
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

