"""Bounded reads of a file's head and tail, and the text encoding they are written in."""

from __future__ import annotations

import codecs
import importlib
import io
import os
from dataclasses import dataclass
from pathlib import Path

HEAD_BYTES = 1 << 20  # what a profile reads from the start of a file
TAIL_BYTES = 64 << 10  # and from its end, to find footnotes of big files
SNIFF_BYTES = 8 << 10

_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
# Bytes that cp1252 leaves undefined: their presence means latin-1 (or something else).
_CP1252_UNDEFINED = frozenset(b"\x81\x8d\x8f\x90\x9d")
# Bytes that are not control characters (tab, newlines, form feed, backspace, escape are text).
_NOT_CONTROL = bytes(b for b in range(256) if b >= 32 or b in (8, 9, 10, 12, 13, 27))


# A compressed file's format, its first bytes, and the suffixes that name it. The names are
# pandas' `compression` values, so a loader passes them on as they are.
COMPRESSIONS: tuple[tuple[str, bytes, tuple[str, ...]], ...] = (
    ("gzip", b"\x1f\x8b", (".gz", ".gzip")),
    ("bz2", b"BZh", (".bz2", ".bz")),
    ("xz", b"\xfd7zXZ\x00", (".xz", ".lzma")),
    ("zstd", b"\x28\xb5\x2f\xfd", (".zst", ".zstd")),
)
# the module whose `open(path, mode)` reads each, for generated loaders too
COMPRESSION_MODULES = {"gzip": "gzip", "bz2": "bz2", "xz": "lzma", "zstd": "zstandard"}


def compression_of(head: bytes) -> tuple[str, tuple[str, ...]] | None:
    """The compression `head` starts with, and the suffixes that name it; None for none."""
    for name, magic, suffixes in COMPRESSIONS:
        if head.startswith(magic) and (name != "bz2" or head[3:4].isdigit() and head[4:10] == b"1AY&SY"):
            return name, suffixes
    return None


def open_compressed(path: Path, compression: str | None):
    """`path` opened for reading bytes, decompressed. Data that ends before its compressed stream
    does raises EOFError, as gzip, bz2 and lzma do (zstandard's own reader returns nothing)."""
    if compression is None:
        return open(path, "rb")
    if compression == "zstd":
        return io.BufferedReader(_ZstdReader(path))
    return importlib.import_module(COMPRESSION_MODULES[compression]).open(path, "rb")


class _ZstdReader(io.RawIOBase):
    """zstd frames decompressed one after another; EOFError when the file ends inside a frame."""

    # compressed bytes fed at a time: what one call unpacks is bounded by about 32,000 times this
    # (zstd's most, for a run of one byte), since the decompressor takes no output limit
    READ = 4096

    def __init__(self, path: Path) -> None:
        self._file = open(path, "rb")
        self._obj = self._frame()
        self._pending = b""  # decompressed, not read yet from `_at` on
        self._at = 0

    @staticmethod
    def _frame():
        import zstandard

        return zstandard.ZstdDecompressor().decompressobj()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self._pending:
            if self._obj.eof and self._obj.unused_data:  # the next frame began in the last chunk
                data = self._obj.unused_data
                self._obj = self._frame()
            else:
                data = self._file.read(self.READ)
                if not data:
                    if not self._obj.eof:
                        raise EOFError("Compressed file ended before the end-of-stream marker was reached")
                    return 0
                if self._obj.eof:
                    self._obj = self._frame()
            self._pending = self._obj.decompress(data)
        n = min(len(buffer), len(self._pending) - self._at)
        buffer[:n] = self._pending[self._at:self._at + n]
        self._at += n
        if self._at == len(self._pending):
            self._pending, self._at = b"", 0
        return n

    def close(self) -> None:
        self._file.close()
        super().close()


def read_head(path: Path, n: int = SNIFF_BYTES) -> bytes:
    with open(path, "rb") as f:
        return f.read(n)


def read_tail(path: Path, n: int = TAIL_BYTES) -> bytes:
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - n))
        return f.read(n)


def detect_encoding(data: bytes, *, final: bool = True) -> str:
    """The codec for these bytes: BOM, else UTF-8 if it decodes, else Japanese or Chinese
    (`_east_asian`), else cp1252, else latin-1."""
    marked = _marked_encoding(data)
    if marked:
        return marked
    try:
        codecs.getincrementaldecoder("utf-8")().decode(data, final=final)
        return "utf-8"
    except UnicodeDecodeError:
        pass
    east = _east_asian(data[:_EAST_ASIAN_BYTES], final=final and len(data) <= _EAST_ASIAN_BYTES)
    if east:
        return east
    if not _CP1252_UNDEFINED.intersection(data):
        return "cp1252"
    return "latin-1"


_EAST_ASIAN_BYTES = 64 << 10
# the encodings of Japan's, China's, Taiwan's and Korea's statistics portals and spreadsheets
_EAST_ASIAN = frozenset("cp932 shift_jis euc_jp iso2022_jp gb2312 gbk gb18030 big5 big5hkscs cp950 cp949 euc_kr".split())


def _east_asian(data: bytes, final: bool) -> str | None:
    """The East Asian encoding charset-normalizer finds these bytes in (its coherence check tells
    Shift_JIS from GBK, and both from Western 8-bit text, whose accents decode into ideographs
    too); None for any other."""
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    encoding = best.encoding if best is not None else None
    if encoding not in _EAST_ASIAN:
        return None
    try:
        codecs.getincrementaldecoder(encoding)().decode(data, final=final)
    except UnicodeDecodeError:
        return None
    return encoding


def _marked_encoding(data: bytes) -> str | None:
    """The encoding a BOM names, or UTF-16 recognised by its NUL bytes; None otherwise."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    if len(data) >= 4 and 0 in data and data.count(0) > len(data) // 4:  # `in` is a memchr: cheap on text
        # UTF-16 without BOM: every other byte is NUL for Latin text.
        even, odd = data[0::2].count(0), data[1::2].count(0)
        if odd > 3 * max(even, 1):
            return "utf-16-le"
        if even > 3 * max(odd, 1):
            return "utf-16-be"
    return None


def _decode_head(raw: bytes, complete: bool) -> tuple[str, str]:
    """(encoding, text) as detect_encoding and a decode give them, decoding UTF-8 (the usual case) once."""
    if _marked_encoding(raw) is None:
        try:
            return "utf-8", raw.decode("utf-8")
        except UnicodeDecodeError:
            pass  # 8-bit text, or a head cut inside a character: the careful path
    encoding = detect_encoding(raw, final=complete)
    return encoding, raw.decode(encoding, errors="replace")


def looks_binary(data: bytes) -> bool:
    """NUL bytes or many control characters: not text in any 8-bit or UTF-8 encoding."""
    if not data:
        return False
    for bom, _ in _BOMS:
        if data.startswith(bom):
            return False
    if b"\x00" in data:
        return detect_encoding(data[:4096], final=False) not in ("utf-16-le", "utf-16-be")
    control = len(data[:4096].translate(None, _NOT_CONTROL))  # deletes all but control bytes, in C
    return control > 0.05 * min(len(data), 4096)


@dataclass
class TextSample:
    """The decoded head of a file (whole lines), and its last lines when it is bigger."""

    text: str
    encoding: str
    complete: bool  # text holds the whole file
    size: int
    tail: str | None = None  # decoded last lines when not complete
    compression: str | None = None
    mixed_encoding: bool = False  # head and tail disagree: load with encoding_errors="replace"
    path: Path | None = None


def read_text_sample(path: Path, head_bytes: int = HEAD_BYTES, compression: str | None = None) -> TextSample:
    size = path.stat().st_size
    if compression:
        with open_compressed(path, compression) as f:
            raw = f.read(head_bytes + 1)
        complete = len(raw) <= head_bytes
        tail_raw = None
    else:
        with open(path, "rb") as f:
            raw = f.read(min(size, head_bytes) + 1)  # a right-sized buffer: cheaper for small files
        complete = len(raw) <= head_bytes
        tail_raw = read_tail(path) if not complete else None
    if not complete:
        raw = raw[:head_bytes]
    encoding, text = _decode_head(raw, complete)
    mixed = False
    tail_text = None
    if tail_raw is not None:
        nl = tail_raw.find(b"\n")
        tail_raw = tail_raw[nl + 1 :] if nl >= 0 else tail_raw
        if encoding.startswith(("utf-16", "utf-32")):
            tail_raw = b""  # a byte offset may split a code unit; these files are rare enough
        tail_enc = detect_encoding(tail_raw) if encoding == "utf-8" else encoding
        if tail_enc != encoding:
            mixed = True
            if encoding == "utf-8" and tail_enc in ("cp1252", "latin-1") and raw.isascii():
                # An ASCII head with 8-bit bytes later: the file is 8-bit text (the head reads alike).
                encoding, mixed = tail_enc, False
        tail_text = tail_raw.decode(encoding.replace("-sig", ""), errors="replace")
    if not complete:
        cut = max(text.rfind("\n"), text.rfind("\r"))
        if cut > 0:
            text = text[: cut + 1]
    return TextSample(text, encoding, complete, size, tail_text, compression, mixed, path)


def normalise_newlines(text: str) -> str:
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text
