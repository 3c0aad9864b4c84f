"""Images: pixel size from header bytes; a visual document, not a table."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

from lakeboard.servers.profiling import profile_file
from lakeboard.servers.profiling.images import image_size
from tests.servers.profiling.loading import profile_and_load


def png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + b"\x00\x00\x00" * width for _ in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def test_png_size_and_loader(tmp_path: Path) -> None:
    f = tmp_path / "chart.png"
    f.write_bytes(png(64, 32))
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.kind == "image"
    assert (prof.attributes["width"], prof.attributes["height"]) == ("64", "32")
    assert "visual document" in prof.summary and prof.attributes["visual_document"] == "true"
    assert ns["data"]


def test_header_sizes() -> None:
    assert image_size(b"GIF89a" + struct.pack("<HH", 10, 20)) == ("GIF", 10, 20)
    jpeg = b"\xff\xd8" + b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00" + b"\x00" * 9
    jpeg += b"\xff\xc0" + struct.pack(">HBHH", 17, 8, 480, 640) + b"\x00" * 10
    assert image_size(jpeg) == ("JPEG", 640, 480)
    bmp = b"BM" + b"\x00" * 16 + struct.pack("<ii", 7, -9)
    assert image_size(bmp) == ("BMP", 7, 9)


def test_not_an_image(tmp_path: Path) -> None:
    f = tmp_path / "photo.jpg"
    f.write_bytes(b"\x00\x11\x22 not an image" * 10)
    prof = profile_file(f, tmp_path)
    assert prof.status == "unreadable" and prof.reason
