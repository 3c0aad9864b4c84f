"""HTML pages: the tables in them (pandas.read_html on a bounded read), title and leading text."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import TYPE_CHECKING

from lakeboard.schemas.profiles import FileProfile, TableProfile
from lakeboard.servers.profiling.column_stats import flatten_columns, profile_frame
from lakeboard.servers.profiling.detect import Detection
from lakeboard.servers.profiling.signed_numbers import signed_column, signed_dtype
from lakeboard.servers.profiling.text_sample import read_text_sample

if TYPE_CHECKING:
    import pandas as pd

HTML_BYTES = 4 << 20
MAX_TABLES = 60
LEADING_CHARS = 3000
_CHARSET = re.compile(rb"""<meta[^>]+charset=["']?([A-Za-z0-9_\-]+)""", re.IGNORECASE)


def profile(path: Path, prof: FileProfile, det: Detection) -> None:
    import lxml.html
    import pandas as pd

    prof.format = "html"
    prof.kind = "document"
    sample = read_text_sample(path, head_bytes=HTML_BYTES, compression=det.compression)
    text = sample.text
    prof.encoding = sample.encoding
    if not text.strip():
        prof.status, prof.reason = "empty", "the page holds only whitespace"
        return
    try:
        doc = lxml.html.fromstring(text.encode("utf-8", "replace"), parser=lxml.html.HTMLParser(encoding="utf-8"))
    except Exception as e:  # noqa: BLE001 - lxml's errors are many
        prof.status, prof.reason = "unreadable", f"could not parse the HTML: {e}"
        return
    for bad in doc.xpath("//script|//style|//noscript"):
        bad.drop_tree()
    title = " ".join((doc.findtext(".//title") or "").split())
    headings = [" ".join(h.text_content().split()) for h in doc.iter("h1", "h2", "h3")]
    headings = [h for h in headings if h][:30]
    paragraphs = []
    for p in doc.iter("p"):
        t = " ".join(p.text_content().split())
        if len(t) > 40:
            paragraphs.append(t)
        if sum(map(len, paragraphs)) > LEADING_CHARS:
            break
    if title:
        prof.attributes["title"] = title[:200]
    if headings:
        prof.attributes["headings"] = " | ".join(headings)[:1000]
    lead = "\n".join(([title] if title else []) + headings[:10] + paragraphs)
    prof.text = lead[:LEADING_CHARS] if lead else None

    captions = [" ".join((t.findtext("caption") or "").split()) for t in doc.iter("table")]
    try:
        tables = pd.read_html(io.StringIO(text), flavor="lxml")
    except ValueError:  # "No tables found"
        tables = []
    except Exception as e:  # noqa: BLE001 - malformed tables: keep the page as a document
        prof.attributes["tables_error"] = str(e)[:200]
        tables = []
    use_captions = len(captions) == len(tables)
    for i, df in enumerate(tables[:MAX_TABLES]):
        if df.shape[0] < 1 or df.shape[1] < 1:
            continue
        multi = hasattr(df.columns, "levels")
        df = flatten_columns(df)
        name = captions[i] if use_captions and captions[i] else None
        tp = TableProfile(name=name or f"table {i}", options={"index": i})
        if multi:
            tp.options["flatten_columns"] = True
        tp.n_rows, tp.n_rows_exact = int(df.shape[0]), sample.complete
        df = _signed(df, tp)
        tp.columns, tp.sample_rows = profile_frame(df)
        prof.tables.append(tp)
    if not sample.complete:
        prof.attributes["note"] = f"only the first {HTML_BYTES >> 20} MB of the page were profiled"
    data_tables = [t for t in prof.tables if (t.n_rows or 0) >= 2 and len(t.columns) >= 2]
    if data_tables:
        prof.kind = "table"
    biggest = sorted(data_tables, key=lambda t: -(t.n_rows or 0))[:3]
    desc = "; ".join(f"{t.name} ({t.n_rows} rows: {', '.join(c.name for c in t.columns[:5])})" for t in biggest)
    what = f"HTML page '{title[:100]}'" if title else "HTML page"
    if prof.tables:
        prof.summary = (
            f"{what} with {len(prof.tables)} tables; largest: {desc}" if desc else f"{what} with small tables"
        )
    else:
        prof.summary = f"{what} without tables; " + (
            headings[0][:100] if headings else (paragraphs[0][:100] if paragraphs else "")
        )


def _signed(df: "pd.DataFrame", tp: TableProfile) -> "pd.DataFrame":
    """`df` with its columns of numbers written with a currency or percent sign ("−0.71%", "$5M")
    as numbers, and the citation marks after its names ("Tokyo[1]") dropped, as the loader does
    (the options `signed_numbers` and `citations`)."""
    import pandas as pd

    signed, cited = [], []
    df = df.copy()  # read_html's frame, changed column by column below
    for j, column in enumerate(df.columns):
        if df.dtypes.iloc[j].kind in "biufcmM":
            continue
        cells = [None if v is None or (isinstance(v, float) and v != v) else str(v) for v in df.iloc[:, j].tolist()]
        read = signed_column(cells, frozenset())
        if read and not read[2]:
            df.isetitem(j, pd.Series(read[0], index=df.index, dtype=signed_dtype(read[0])))
            signed.append([column, read[1]])
        elif sum(1 for c in cells if c and _CITATION.search(c) and _CITATION.sub("", c)) * 10 >= len(cells):
            # an encyclopedia's citations after names ("Tokyo[1]"): the loader drops them too
            cells = [c if c is None else _CITATION.sub("", c) for c in cells]
            df.isetitem(j, pd.Series(cells, index=df.index, dtype=df.dtypes.iloc[j]))
            cited.append(column)
    if signed:
        tp.options["signed_numbers"] = signed
    if cited:
        tp.options["citations"] = cited
    return df


_CITATION = re.compile(r"(?:\[\w{1,3}\])+$")
