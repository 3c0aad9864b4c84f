"""Zip archives: the tables inside are profiled as the archive's, and its loader reads them in memory."""

from __future__ import annotations

import io
import json
import struct
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from lakeboard.servers.profiling import archives, profile_file
from lakeboard.servers.profiling.detect import detect
from tests.servers.profiling.loading import profile_and_load

RAIN = pd.DataFrame({"station": ["north", "south", "east"], "rain_mm": [0.5, 1.25, 3.0]})


def _workbook() -> bytes:
    buf = io.BytesIO()
    with pd.ExcelWriter(buf) as w:
        RAIN.to_excel(w, sheet_name="Rain", index=False)
        RAIN.assign(year=2020).to_excel(w, sheet_name="Yearly", index=False)
    return buf.getvalue()


def _parquet() -> bytes:
    buf = io.BytesIO()
    RAIN.to_parquet(buf)
    return buf.getvalue()


def test_tables_in_every_member_format_are_profiled_and_loaded(tmp_path: Path) -> None:
    f = tmp_path / "bundle.zip"
    with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("data/rain.csv", "Rainfall at the stations\n\n" + RAIN.to_csv(index=False))
        z.writestr("data/book.xlsx", _workbook())
        z.writestr("data/rain.parquet", _parquet())
        z.writestr("data/rain.json", json.dumps(RAIN.to_dict("records")))
        z.writestr("README.txt", "Daily rainfall measured by the county's gauges.")
        z.writestr("__MACOSX/data/._rain.csv", "resource fork")
    before = sorted(tmp_path.rglob("*"))
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.kind == "table" and prof.format == "zip", prof.reason
    assert [t.name for t in prof.tables] == [
        "data/rain.csv", "data/book.xlsx: Rain", "data/book.xlsx: Yearly", "data/rain.parquet", "data/rain.json"]
    assert prof.tables[0].notes == ["Rainfall at the stations"]
    assert prof.loader_check is not None and prof.loader_check.verified, prof.loader_check
    data = ns["data"]
    assert list(data) == [t.name for t in prof.tables]
    for name in ("data/rain.csv", "data/book.xlsx: Rain", "data/rain.parquet", "data/rain.json"):
        pd.testing.assert_frame_equal(data[name], RAIN, check_dtype=False)
    assert data["data/book.xlsx: Yearly"]["year"].tolist() == [2020] * 3
    # a README beside the tables is kept as the archive's text (the search index reads it)
    assert "measured by the county's gauges" in prof.text and "README.txt" in prof.text
    assert sorted(tmp_path.rglob("*")) == before  # nothing unpacked into the lake


def test_an_archive_without_tables_lists_its_members(tmp_path: Path) -> None:
    f = tmp_path / "bundle.zip"
    with zipfile.ZipFile(f, "w") as z:
        z.writestr("a.png", b"\x89PNG\r\n\x1a\n")
        z.writestr("docs/readme.txt", "hello")
    prof, ns = profile_and_load(f)
    assert prof.status == "skipped" and "2 files" in prof.reason and not prof.tables
    assert ns["data"] == ["a.png", "docs/readme.txt"]


def test_a_damaged_member_does_not_lose_the_others(tmp_path: Path) -> None:
    f = tmp_path / "bundle.zip"
    with zipfile.ZipFile(f, "w") as z:
        z.writestr("broken.xlsx", b"PK\x03\x04 not a workbook")
        z.writestr("rain.csv", RAIN.to_csv(index=False))
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and [t.name for t in prof.tables] == ["rain.csv"], prof.reason
    assert "not read: broken.xlsx" in prof.text
    pd.testing.assert_frame_equal(ns["data"]["rain.csv"], RAIN)


def _patched(data: bytearray, signature: bytes, offset: int, fmt: str, value: int) -> None:
    """Overwrite a field of every zip header with `signature` (local 'PK\\x03\\x04', central 'PK\\x01\\x02')."""
    at = data.find(signature)
    while at >= 0:
        struct.pack_into(fmt, data, at + offset, value)
        at = data.find(signature, at + 4)


def test_a_member_that_unpacks_to_more_than_it_says_is_not_unpacked(tmp_path: Path) -> None:
    """A zip bomb's members state small sizes: the unpacking stops at the stated size, and the
    member is not read; the archive's other members are."""
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("big.csv", "x,y\n" + "1,2\n" * 200_000)
        z.writestr("rain.csv", "x,y\n" + "1,2\n" * 24)  # 100 bytes: its stated size is true
    data = bytearray(raw.getvalue())
    _patched(data, b"PK\x03\x04", 22, "<I", 100)  # uncompressed size, local header
    _patched(data, b"PK\x01\x02", 24, "<I", 100)  # uncompressed size, central directory
    f = tmp_path / "bomb.zip"
    f.write_bytes(bytes(data))
    prof, ns = profile_and_load(f)
    assert [t.name for t in prof.tables] == ["rain.csv"] and ns["data"]["rain.csv"].shape == (24, 2), prof.reason
    assert "not read: big.csv: cannot be unpacked" in prof.text
    assert not list(tmp_path.glob("member*")) and sorted(p.name for p in tmp_path.iterdir()) == ["bomb.zip"]


def test_members_over_the_bounds_and_encrypted_members_are_listed_not_read(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(archives, "MEMBER_BYTES", 1000)
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("secret.csv", RAIN.to_csv(index=False))
        z.writestr("huge.csv", "x\n" + "0\n" * 5000)
        z.writestr("rain.csv", RAIN.to_csv(index=False))
    data = bytearray(raw.getvalue())
    first_central = data.find(b"PK\x01\x02")
    struct.pack_into("<H", data, first_central + 8, 0x1)  # secret.csv: the encrypted flag
    f = tmp_path / "bundle.zip"
    f.write_bytes(bytes(data))
    prof, ns = profile_and_load(f)
    assert [t.name for t in prof.tables] == ["rain.csv"], prof.reason
    assert "not read: secret.csv: encrypted" in prof.text
    assert "not read: huge.csv" in prof.text
    assert list(ns["data"]) == ["rain.csv"]


def test_the_members_profiled_are_bounded_in_number(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(archives, "MAX_MEMBERS", 2)
    f = tmp_path / "bundle.zip"
    with zipfile.ZipFile(f, "w") as z:
        for i in range(4):
            z.writestr(f"part{i}.csv", RAIN.to_csv(index=False))
    prof, ns = profile_and_load(f)
    assert [m.name for m in prof.members] == ["part0.csv", "part1.csv"]
    assert prof.text.count("used this file's bound") == 2
    assert prof.loader_check.verified


@pytest.mark.parametrize("name", ["bundle.zip", "bundle.dat"])
def test_an_archive_is_found_by_its_content(tmp_path: Path, name: str) -> None:
    f = tmp_path / name
    with zipfile.ZipFile(f, "w") as z:
        z.writestr("rain.csv", RAIN.to_csv(index=False))
    assert (detect(f).format, detect(f).reader) == ("zip", "archives")


@pytest.mark.parametrize("mode, name", [("w", "bundle.tar"), ("w:gz", "bundle.tar.gz"), ("w:gz", "bundle.tgz"),
                                        ("w:bz2", "bundle.tar.bz2"), ("w:xz", "bundle.tar.xz")])
def test_tables_in_a_tar_archive_are_profiled_and_loaded(tmp_path: Path, mode: str, name: str) -> None:
    """Compressed or not; a link inside is neither followed nor read."""
    import tarfile

    f = tmp_path / name
    csv = RAIN.to_csv(index=False).encode()
    with tarfile.open(f, mode) as tar:
        info = tarfile.TarInfo("data/rain.csv")
        info.size = len(csv)
        tar.addfile(info, io.BytesIO(csv))
        link = tarfile.TarInfo("data/passwords.csv")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.format == "tar", prof.reason
    assert [t.name for t in prof.tables] == ["data/rain.csv"] and prof.loader_check.verified
    assert "passwords" not in prof.text
    pd.testing.assert_frame_equal(ns["data"]["data/rain.csv"], RAIN)


def test_a_damaged_tar_archive_says_so(tmp_path: Path) -> None:
    f = tmp_path / "bundle.tar.gz"
    f.write_bytes(b"\x1f\x8b\x08\x00" + b"\x00" * 40)
    prof, _ = profile_and_load(f)
    assert prof.status == "unreadable" and "gzip data that does not decompress" in prof.reason, prof.reason


def test_a_zstd_compressed_tar_says_it_is_not_read(tmp_path: Path) -> None:
    import tarfile

    import zstandard

    raw = io.BytesIO()
    csv = RAIN.to_csv(index=False).encode()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        info = tarfile.TarInfo("rain.csv")
        info.size = len(csv)
        tar.addfile(info, io.BytesIO(csv))
    f = tmp_path / "bundle.tar.zst"
    f.write_bytes(zstandard.ZstdCompressor().compress(raw.getvalue()))
    prof, ns = profile_and_load(f)
    assert prof.format == "tar" and prof.status == "skipped" and "zstd" in prof.reason, prof.reason
    assert ns["data"] is None


def test_a_tar_cut_short_keeps_the_members_before_the_cut(tmp_path: Path) -> None:
    """A truncated download, or the head of a big object sampled from a bucket."""
    import os
    import tarfile

    f = tmp_path / "bundle.tar.gz"
    csv = RAIN.to_csv(index=False).encode()
    noise = os.urandom(1 << 20)  # incompressible: the cut falls inside it
    with tarfile.open(f, "w:gz") as tar:
        for name, data in (("a/rain.csv", csv), ("b/noise.bin", noise), ("c/more.csv", csv)):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    f.write_bytes(f.read_bytes()[: 600_000])
    prof = profile_file(f, tmp_path)
    assert prof.status == "ok" and [t.name for t in prof.tables] == ["a/rain.csv"], prof.reason
    assert prof.attributes["members"].startswith("more than")
    # the loader reads the file as it is: cut short, it fails, and its check says so
    assert not prof.loader_check.verified and "EOFError" in prof.loader_check.reasons[0]
