"""Documents: PDF (page count, leading text), Word .docx, Markdown and plain text."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.profiling import log_lines
from lakeboard.servers.profiling.detect import Detection
from lakeboard.servers.profiling.text_sample import TextSample, read_text_sample

LEADING_CHARS = 4000
PDF_PAGES = 3  # pages whose text a profile extracts
_TEXT_HEAD_BYTES = 64 << 10


def profile(path: Path, prof: FileProfile, det: Detection) -> None:
    prof.kind = "document"
    if det.format == "pdf":
        _pdf(path, prof)
    elif det.format == "docx":
        _docx(path, prof)
    else:
        sample = read_text_sample(path, head_bytes=_TEXT_HEAD_BYTES, compression=det.compression)
        lines = sample.text.splitlines()
        if det.format == "text" and log_lines.looks_like(lines):  # a .log of records: a table
            log_lines.profile(prof, sample, lines)
            return
        fmt = det.format if det.format in ("markdown", "text") else "text"
        profile_plain_text(path, prof, sample, fmt=fmt)


def profile_plain_text(path: Path, prof: FileProfile, sample: TextSample, fmt: str = "text") -> None:
    prof.kind = "document"
    prof.format = fmt
    prof.encoding = sample.encoding
    text = sample.text
    if not text.strip():
        prof.status = "empty"
        prof.reason = "the file holds only whitespace"
        return
    prof.text = _clip(text)
    n_lines = text.count("\n") + (not text.endswith("\n"))
    words = len(text.split())
    if sample.complete:
        prof.attributes["lines"] = str(n_lines)
        prof.attributes["words"] = str(words)
    first = next((ln.strip().lstrip("#").strip() for ln in text.splitlines() if ln.strip()), "")
    what = {"markdown": "Markdown document", "text": "text document"}.get(fmt, fmt)
    ext = path.suffix.lower().lstrip(".")
    if ext in ("py", "r", "sql", "sh", "js", "ts", "java", "c", "cpp", "go", "rs", "jl", "rb", "m"):
        what = f"source code ({ext})"
    size = f"{n_lines} lines" if sample.complete else f"{sample.size:,} bytes"
    prof.summary = f"{what}, {size}; starts: {first[:120]}"


def _clip(text: str, limit: int = LEADING_CHARS) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit].rstrip() + " …"


def _pdf(path: Path, prof: FileProfile) -> None:
    import logging

    from pypdf import PdfReader

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # malformed-PDF chatter
    prof.format = "pdf"
    try:
        reader = PdfReader(str(path), strict=False)
        n_pages = len(reader.pages) if not reader.is_encrypted else 0
    except Exception as e:  # noqa: BLE001 - pypdf raises many kinds on damaged files
        prof.status = "unreadable"
        prof.reason = f"damaged or truncated PDF: {type(e).__name__}: {e}"
        return
    if reader.is_encrypted:
        try:
            reader.decrypt("")
        except Exception as e:  # noqa: BLE001 - pypdf raises many kinds
            prof.status = "unreadable"
            prof.reason = f"the PDF is encrypted and needs a password ({e})"
            return
    n_pages = len(reader.pages)
    prof.attributes["pages"] = str(n_pages)
    meta = reader.metadata or {}
    for key in ("/Title", "/Author", "/Subject"):
        v = meta.get(key) if hasattr(meta, "get") else None
        if v:
            prof.attributes[key.strip("/").lower()] = str(v)[:200]
    texts = []
    for page in reader.pages[:PDF_PAGES]:
        try:
            texts.append(page.extract_text() or "")
        except Exception:  # noqa: BLE001 - one broken page should not hide the others
            texts.append("")
        if sum(map(len, texts)) > LEADING_CHARS:
            break
    text = "\n".join(texts).strip()
    title = prof.attributes.get("title") or next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    if text:
        prof.text = _clip(text)
        prof.summary = f"PDF document, {n_pages} pages; starts: {title[:120]}"
    else:
        prof.text = None
        prof.attributes["text"] = "none extracted (scanned pages?)"
        prof.summary = f"PDF document, {n_pages} pages, no extractable text (scanned images?): a visual document"


def _docx(path: Path, prof: FileProfile) -> None:
    prof.format = "docx"
    with zipfile.ZipFile(path) as z:
        with z.open("word/document.xml") as f:
            xml = f.read(4 << 20).decode("utf-8", "replace")
    paragraphs = []
    for para in re.findall(r"<w:p[ >].*?</w:p>", xml, flags=re.S):
        words = re.findall(r"<w:t(?: [^>]*)?>([^<]*)</w:t>", para)
        if words:
            paragraphs.append("".join(words))
        if sum(map(len, paragraphs)) > LEADING_CHARS:
            break
    text = "\n".join(paragraphs)
    prof.text = _clip(text) if text else None
    prof.attributes["tables"] = str(xml.count("<w:tbl>"))
    first = paragraphs[0] if paragraphs else ""
    prof.summary = f"Word document; starts: {first[:120]}"
