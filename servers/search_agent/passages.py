"""Documents as plain text, and text as ranked-retrieval passages.

One reader per format (HTML, Markdown/text, PDF) turns a document into Markdown-ish text:
paragraphs separated by blank lines and headings marked with `#`, so a single chunker
serves local documents and fetched web pages alike.
"""

from __future__ import annotations

import io
import re
from pathlib import Path, PurePath

from pydantic import BaseModel, Field

from lakeboard.common.bounded_reads import FileRefused, read_regular_file

HTML_SUFFIXES = {".html", ".htm", ".xhtml"}
TEXT_SUFFIXES = {".md", ".markdown", ".txt", ".text", ".rst"}
PDF_SUFFIXES = {".pdf"}
DOCUMENT_SUFFIXES = HTML_SUFFIXES | TEXT_SUFFIXES | PDF_SUFFIXES
MAX_DOCUMENT_BYTES = 50_000_000  # counted as read, not as the file's size claims

# Elements whose text is never content, in documents or in fetched pages.
_NOISE_TAGS = ("script", "style", "noscript", "template", "svg", "iframe", "form", "button")
# Page chrome dropped from fetched web pages (kept in local documents, which have none).
_CHROME_TAGS = ("nav", "header", "footer", "aside")
_BLOCK_TAGS = (
    "p", "div", "section", "article", "main", "li", "blockquote", "pre", "table",
    "ul", "ol", "dl", "figure", "figcaption", "br", "hr", "caption", "address",
)
_HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")

_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MD_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_MD_EMPHASIS = re.compile(r"(?<![\w*])([*_])(?=[^\s*_])(.+?)(?<=[^\s*_])\1(?![\w*])")
_MD_BLOCK_START = re.compile(r"^(\s*([*+\-•]|\d+[.)])\s|\s*\||#{1,6}\s|\s{4}|\t|```|~~~|>)")
_ENTRY = re.compile(r"^[^\n:]{1,80}: \S")
_HEADING_LINE = re.compile(r"^(#{1,6})\s+(.*)$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\"'])")


class DocumentText(BaseModel):
    """What a reader extracts from one document."""

    title: str
    text: str
    kind: str


class Passage(BaseModel):
    """A retrievable chunk of a document or page, with the section it sits in."""

    source: str
    title: str
    heading: str = ""
    text: str
    position: int = Field(0, description="order of the passage within its document")

    def indexed_text(self) -> str:
        """Title and heading count as passage words: they say what the passage is about."""
        return " ".join(part for part in (self.title, self.heading, self.text) if part)


class UnreadableDocument(Exception):
    """A document that exists but whose text cannot be extracted."""


def html_to_text(markup: str | bytes, *, drop_chrome: bool = False) -> tuple[str, str]:
    """Return (title, text) of an HTML document, text in the blank-line-separated form."""
    from bs4 import BeautifulSoup, NavigableString

    soup = BeautifulSoup(markup, "lxml")
    title = ""
    if soup.title and soup.title.string:
        title = _SPACES.sub(" ", soup.title.string).strip()
    for tag in soup.find_all(_NOISE_TAGS + (_CHROME_TAGS if drop_chrome else ())):
        tag.decompose()
    for tag in soup.find_all(["head", "title", "meta", "link"]):
        tag.decompose()
    # Collapse source formatting inside text nodes: only element structure makes lines.
    for node in soup.find_all(string=True):
        if isinstance(node, NavigableString) and node.find_parent("pre") is None:
            node.replace_with(_SPACES.sub(" ", node.replace("\n", " ")))
    for tag in soup.find_all(_HEADING_TAGS):
        level = int(tag.name[1])
        tag.insert_before("\n\n" + "#" * level + " ")
        tag.append("\n\n")
    for tag in soup.find_all("dt"):  # a term and its definition stay one paragraph
        tag.insert_before("\n\n")
        tag.append(": ")
    for tag in soup.find_all("dd"):
        tag.append("\n\n")
    for tag in soup.find_all(["td", "th"]):
        tag.append(" | ")
    for tag in soup.find_all("tr"):
        tag.append("\n")
    for tag in soup.find_all(_BLOCK_TAGS):
        tag.insert_before("\n\n")
        tag.append("\n\n")
    text = normalize_text(soup.get_text())
    if not title:
        match = re.search(r"^#{1,6} (.+)$", text, flags=re.MULTILINE)
        title = match.group(1).strip() if match else ""
    return title, text


def markdown_to_text(raw: str) -> tuple[str, str]:
    """Return (title, text) of Markdown or plain text: links and emphasis reduced to words.

    Hard-wrapped lines are joined back into one line per paragraph or list item, so that a
    line is a unit of meaning (an answer can quote whole lines).
    """
    text = _MD_LINK.sub(r"\1", raw.replace("\r\n", "\n"))
    text = _MD_STRONG.sub(r"\2", text)
    text = _MD_EMPHASIS.sub(r"\2", text)
    text = normalize_text(_unwrap(text.replace("`", "")))
    title = ""
    for line in text.splitlines():
        match = _HEADING_LINE.match(line)
        if match:
            title = match.group(2).strip()
            break
    if not title:
        title = next((line.strip() for line in text.splitlines() if line.strip()), "")[:120]
    return title, text


def _unwrap(text: str) -> str:
    """Join continuation lines to the line they continue; keep code, tables, lists, headings."""
    out: list[str] = []
    fenced = False
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
            out.append(line)
            continue
        # a plain line right after a plain line is the same paragraph, wrapped
        continues = (
            not fenced and bool(out) and bool(out[-1].strip()) and bool(stripped)
            and not _MD_BLOCK_START.match(line) and not _HEADING_LINE.match(out[-1].strip())
            and not out[-1].lstrip().startswith(("|", "```", "~~~")) and not out[-1].startswith(("    ", "\t"))
        )
        if continues:
            out[-1] = f"{out[-1].rstrip()} {stripped}"
        else:
            out.append(line)
    return "\n".join(out)


def pdf_text(source: bytes, name: str) -> tuple[str, str]:
    """Return (metadata title, text) of a PDF's bytes; `name` says which in errors."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(source))
        pages = [page.extract_text() or "" for page in reader.pages]
        meta_title = (reader.metadata.title if reader.metadata else None) or ""
    except (PdfReadError, OSError, ValueError, KeyError) as exc:
        raise UnreadableDocument(f"{name} is not a readable PDF ({exc}).") from exc
    return meta_title.strip(), normalize_text("\n\n".join(pages))


def read_document(path: Path) -> DocumentText:
    """Extract the text of one document file: a regular file of at most MAX_DOCUMENT_BYTES."""
    try:
        data = read_regular_file(path, MAX_DOCUMENT_BYTES)
    except FileRefused as exc:
        raise UnreadableDocument(f"{path} is not read: {exc}.") from exc
    return parse_document(data, path.name)


def parse_document(data: bytes, name: str) -> DocumentText:
    """Extract the text of a document's bytes, by the suffix of its file `name`."""
    suffix = PurePath(name).suffix.lower()
    if suffix in HTML_SUFFIXES:
        title, text = html_to_text(data)
        kind = "html"
    elif suffix in PDF_SUFFIXES:
        meta_title, text = pdf_text(data, name)
        title = (meta_title or next((line.strip() for line in text.splitlines() if line.strip()), ""))[:200]
        kind = "pdf"
    elif suffix in TEXT_SUFFIXES:
        title, text = markdown_to_text(data.decode("utf-8", errors="replace"))
        kind = "markdown" if suffix in {".md", ".markdown"} else "text"
    else:
        raise UnreadableDocument(f"{name} has an unsupported type ({suffix or 'no suffix'}).")
    return DocumentText(title=title or PurePath(name).stem.replace("_", " "), text=text, kind=kind)


def normalize_text(text: str) -> str:
    """One space between words, one blank line between paragraphs, no trailing blanks."""
    lines = [_SPACES.sub(" ", line).strip() for line in text.replace("\r\n", "\n").split("\n")]
    text = "\n".join(lines)
    return _BLANK_LINES.sub("\n\n", text).strip()


def split_passages(
    text: str,
    *,
    source: str,
    title: str,
    target_chars: int = 700,
    max_chars: int = 1200,
) -> list[Passage]:
    """Cut text into passages of about `target_chars`, never across a heading.

    Paragraphs are merged until the target is reached; an over-long paragraph is cut at
    sentence ends. Each passage remembers its nearest heading.
    """
    passages: list[Passage] = []
    heading = ""
    buffer: list[str] = []

    def flush() -> None:
        body = "\n".join(buffer).strip()
        buffer.clear()
        if body:
            passages.append(Passage(source=source, title=title, heading=heading, text=body, position=len(passages)))

    for block in _BLANK_LINES.split(text):
        block = block.strip()
        if not block:
            continue
        match = _HEADING_LINE.match(block.split("\n", 1)[0])
        if match:
            flush()
            heading = match.group(2).strip()
            rest = block.split("\n", 1)[1].strip() if "\n" in block else ""
            if not rest:
                continue
            block = rest
        if _ENTRY.match(block) and len(block) <= max_chars:
            # "Term: definition" entries (glossaries, definition lists) stay alone, so a short
            # entry is not outweighed by its neighbours when ranked.
            flush()
            buffer.append(block)
            flush()
            continue
        for piece in _cut_long(block, max_chars):
            if buffer and sum(len(b) for b in buffer) + len(piece) > target_chars:
                flush()
            buffer.append(piece)
    flush()
    return passages


def _cut_long(block: str, max_chars: int) -> list[str]:
    """Split one paragraph at sentence ends so that no piece exceeds `max_chars`."""
    if len(block) <= max_chars:
        return [block]
    pieces: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(block):
        while len(sentence) > max_chars:  # a "sentence" with no punctuation: hard cut
            pieces.append(sentence[:max_chars])
            sentence = sentence[max_chars:]
        if current and len(current) + 1 + len(sentence) > max_chars:
            pieces.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}".strip()
    if current:
        pieces.append(current)
    return pieces
