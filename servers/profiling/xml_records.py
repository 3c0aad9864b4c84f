"""XML files of repeated records (`<station id="4"><name>Oslo</name><elev>94</elev></station>` ...): a table.

The record is the element that occurs most often with at least two fields (attributes, and
children that hold only text); each record's fields become a row, with the attributes of the
element that groups records (not the root) beside them. Names are local (a namespace
is left out). An XML file without such an element is a document: its first lines.

The file is untrusted: it is parsed incrementally by lxml with entities left unresolved, no DTD
loaded and no network, and elements are freed as they are read, so neither an entity bomb nor
a large file fills memory. The loader parses the same way.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from lakeboard.schemas.profiles import FileProfile, TableProfile
from lakeboard.servers.profiling.column_stats import as_numbers, profile_frame
from lakeboard.servers.profiling.detect import Detection
from lakeboard.servers.profiling.text_sample import open_compressed, read_text_sample

SCAN_ELEMENTS = 200_000  # elements looked at to find the record
MAX_RECORDS = 2000  # records profiled
COUNT_BYTES = 64 << 20  # bigger files get a record count estimated from the bytes read
# the parser's options, here and in generated loaders: no entity, DTD or network access
SAFE = {"resolve_entities": False, "no_network": True, "load_dtd": False, "huge_tree": False}


def _fields(el: Any) -> dict[str, str | None]:
    """A record's fields: its attributes, then its children that hold only text, by local name."""
    from lxml import etree

    row: dict[str, str | None] = {etree.QName(k).localname: v for k, v in el.attrib.items()}
    for child in el:
        if isinstance(child.tag, str) and len(child) == 0:
            row.setdefault(etree.QName(child).localname, child.text)
    return row


def _group(el: Any) -> tuple[str | None, dict[str, str | None]]:
    """The element that groups the record, when it is not the document's root: its local name and
    its attributes, as "<name>.<attribute>" (which series a sample belongs to: `<Tag name="CL2"
    units="mg/L"><Sample .../>` gives "Tag.name", "Tag.units")."""
    from lxml import etree

    parent = el.getparent()
    if parent is None or parent.getparent() is None or not isinstance(parent.tag, str):
        return None, {}
    name = etree.QName(parent).localname
    return name, {f"{name}.{etree.QName(k).localname}": v for k, v in parent.attrib.items()}


def _record_tag(path: Path, compression: str | None) -> str | None:
    """The local name of the record element: the most frequent one with at least two fields."""
    from lxml import etree

    counts: Counter[str] = Counter()
    seen = 0
    with open_compressed(path, compression) as f:
        for _, el in etree.iterparse(f, events=("end",), **SAFE):
            if not isinstance(el.tag, str):
                continue
            if len(_fields(el)) >= 2:
                counts[etree.QName(el).localname] += 1
            for child in el:  # its children were looked at: free what they hold
                child.clear(keep_tail=True)
            seen += 1
            if seen >= SCAN_ELEMENTS:
                break
    tag, n = max(counts.items(), key=lambda kv: kv[1], default=(None, 0))
    return tag if n >= 2 else None


def _read_records(path: Path, tag: str, limit: int, count_to_end: bool,
                  compression: str | None) -> tuple[list[dict[str, str | None]], int, int, str | None]:
    """The first `limit` records, how many were counted (to the file's end when `count_to_end`),
    the bytes read to count them (decompressed ones for a compressed file), and the name of the
    element that groups them all, if one does (`_group`)."""
    from lxml import etree

    rows: list[dict[str, str | None]] = []
    groups: list[tuple[str | None, dict[str, str | None]]] = []
    n = 0
    with open_compressed(path, compression) as f:
        for _, el in etree.iterparse(f, events=("end",), tag=f"{{*}}{tag}", **SAFE):
            n += 1
            if len(rows) < limit:
                rows.append(_fields(el))
                groups.append(_group(el))
            elif not count_to_end:
                break
            el.clear(keep_tail=True)
            while el.getprevious() is not None:  # free the records already read
                del el.getparent()[0]
        read = f.tell()
    # records that all sit under elements of one name (a historian's tags) carry their attributes;
    # under several (an OpenStreetMap tag under nodes, ways and relations) none do
    names = {name for name, _ in groups}
    group = names.pop() if len(names) == 1 else None
    if group is not None:
        for row, (_, attrs) in zip(rows, groups):
            for k, v in attrs.items():
                row.setdefault(k, v)
    return rows, n, read, group


def profile(path: Path, prof: FileProfile, det: Detection) -> None:
    import pandas as pd
    from lxml import etree

    prof.format = "xml"
    try:
        tag = _record_tag(path, det.compression)
        # a compressed file is counted whole when it is small: its size says nothing of its records
        exact = prof.size_bytes <= (COUNT_BYTES if not det.compression else COUNT_BYTES // 8)
        rows, total, read, group = _read_records(path, tag, MAX_RECORDS, exact, det.compression) if tag else ([], 0, 0, None)
    except (etree.XMLSyntaxError, EOFError) as e:
        if _text(path, prof, det.compression):
            prof.summary += f" (not well-formed XML: {e})"
            return
        prof.status, prof.reason = "unreadable", f"not well-formed XML: {e}"
        return
    if not tag or not rows:
        _text(path, prof, det.compression)
        return
    df = as_numbers(pd.DataFrame(rows))
    tp = TableProfile(name=tag, options={"record": tag, **({"group": group} if group else {})})
    if exact:
        tp.n_rows, tp.n_rows_exact = total, True
    else:
        tp.n_rows_exact = False
        tp.n_rows = None if det.compression else int(total * prof.size_bytes / max(read, 1))
    tp.columns, tp.sample_rows = profile_frame(df)
    prof.kind, prof.tables = "table", [tp]
    cols = ", ".join(c.name for c in tp.columns[:8]) + (", ..." if len(tp.columns) > 8 else "")
    count = f"{tp.n_rows:,}" if exact else f"~{tp.n_rows:,}" if tp.n_rows is not None else "an uncounted number of"
    prof.summary = f"XML of {count} <{tag}> records x {len(tp.columns)} fields ({cols})"


def _text(path: Path, prof: FileProfile, compression: str | None) -> bool:
    """The file as a document: its first lines."""
    sample = read_text_sample(path, head_bytes=64 << 10, compression=compression)
    prof.kind, prof.encoding = "document", sample.encoding
    prof.text = "\n".join(sample.text.splitlines()[:40])
    prof.summary = f"XML document; starts: {' '.join(prof.text.split())[:120]}"
    return bool(prof.text.strip())
