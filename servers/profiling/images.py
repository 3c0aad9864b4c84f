"""Images: type and pixel size from the header bytes (PIL when installed). A visual document, not a table."""

from __future__ import annotations

import re
import struct
from pathlib import Path

from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.profiling.detect import Detection
from lakeboard.servers.profiling.text_sample import read_head


def image_size(head: bytes) -> tuple[str, int, int] | None:
    """(type, width, height) from the first bytes of PNG, GIF, JPEG, BMP and WebP files."""
    if head.startswith(b"\x89PNG\r\n\x1a\n") and head[12:16] == b"IHDR":
        w, h = struct.unpack(">II", head[16:24])
        return "PNG", w, h
    if head[:6] in (b"GIF87a", b"GIF89a"):
        w, h = struct.unpack("<HH", head[6:10])
        return "GIF", w, h
    if head.startswith(b"BM") and len(head) >= 26:
        w, h = struct.unpack("<ii", head[18:26])
        return "BMP", w, abs(h)
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        chunk = head[12:16]
        if chunk == b"VP8 " and len(head) >= 30:
            w, h = struct.unpack("<HH", head[26:30])
            return "WebP", w & 0x3FFF, h & 0x3FFF
        if chunk == b"VP8L" and len(head) >= 25:
            b = head[21:25]
            w = 1 + (((b[1] & 0x3F) << 8) | b[0])
            h = 1 + (((b[3] & 0xF) << 10) | (b[2] << 2) | ((b[1] & 0xC0) >> 6))
            return "WebP", w, h
        if chunk == b"VP8X" and len(head) >= 30:
            w = 1 + int.from_bytes(head[24:27], "little")
            h = 1 + int.from_bytes(head[27:30], "little")
            return "WebP", w, h
        return "WebP", 0, 0
    if head.startswith(b"\xff\xd8"):
        i = 2
        while i + 9 < len(head):
            if head[i] != 0xFF:
                i += 1
                continue
            marker = head[i + 1]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                i += 2
                continue
            seg_len = struct.unpack(">H", head[i + 2 : i + 4])[0]
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                h, w = struct.unpack(">HH", head[i + 5 : i + 9])
                return "JPEG", w, h
            i += 2 + seg_len
        return "JPEG", 0, 0
    if head.startswith((b"II*\x00", b"MM\x00*")):
        return "TIFF", 0, 0
    return None


def profile(path: Path, prof: FileProfile, det: Detection) -> None:
    prof.kind = "image"
    prof.format = "image"
    head = read_head(path, 256 << 10)
    found = image_size(head)
    if found is None and b"<svg" in head[:4096].lower():
        text = head.decode("utf-8", "replace")
        m_w = re.search(r'<svg[^>]*\swidth="([\d.]+)', text)
        m_h = re.search(r'<svg[^>]*\sheight="([\d.]+)', text)
        found = ("SVG", int(float(m_w.group(1))) if m_w else 0, int(float(m_h.group(1))) if m_h else 0)
        title = re.search(r"<title>([^<]{1,200})</title>", text)
        if title:
            prof.text = title.group(1)
    if found is None:
        try:
            from PIL import Image  # optional

            with Image.open(path) as im:
                found = (im.format or "image", im.width, im.height)
        except Exception:  # noqa: BLE001 - PIL absent or not an image it knows
            found = None
    if found is None:
        prof.status = "unreadable"
        prof.reason = "named as an image but the header is not a known image format (damaged or mis-named)"
        return
    typ, w, h = found
    prof.attributes["image_type"] = typ
    prof.attributes["visual_document"] = "true"  # to be looked at (chart, map, scan), not parsed
    if w and h:
        prof.attributes["width"] = str(w)
        prof.attributes["height"] = str(h)
    size = f" {w}x{h}" if w and h else ""
    prof.summary = f"{typ} image{size}: a visual document (a chart, map or scan to look at, not a table)"
