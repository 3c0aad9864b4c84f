"""Text formats whose lines make records, each read by its own parser (orbital element sets,
FASTA sequences): the table their rows make. The parser is also the loader's: its source is
written into the loader as it is (`loader_code`)."""

from __future__ import annotations

from typing import Any

from lakeboard.schemas.profiles import FileProfile, TableProfile
from lakeboard.servers.profiling.column_stats import profile_typed
from lakeboard.servers.profiling.text_sample import TextSample


def records_table(prof: FileProfile, sample: TextSample, fmt: str, rows: list[dict[str, Any]], names: list[str],
                  note: str) -> TableProfile:
    """The one table of `rows` (dicts keyed by `names`), as `prof`'s; its row count estimated from the
    sample's share of the file when the sample is the file's head. `note` says what the file holds,
    in words a request uses: the search index reads a table's notes."""
    prof.kind, prof.format = "table", fmt
    tp = TableProfile(options={"layout": fmt}, notes=[note])
    tp.n_rows, tp.n_rows_exact = len(rows), sample.complete
    if not sample.complete and sample.text:
        tp.n_rows = None if sample.compression else int(len(rows) * sample.size / len(sample.text))
    tp.columns, tp.sample_rows = profile_typed(names, [[r[k] for r in rows] for k in names])
    for c in tp.columns:
        if c.null_fraction == 1.0:  # a field no record fills (sets without names): pandas holds None as objects
            c.dtype = "object"
    prof.tables = [tp]
    return tp
