"""Statistics in the TSV layout of Eurostat's bulk downloads (SDMX-TSV).

The first field of each line joins the codes of the series' dimensions (`A,PC,AT`), named in the
header's first field before a backslash (`freq,unit,geo\\TIME_PERIOD`); the other fields are the
periods, each value written with its flags (`12.3 p`: provisional) or as `:` (not available).
Read as a TSV, every column is text and the codes stay joined. Read as records, there is one row
per series and period: the dimensions, the period, the value as a number and its flags.
`read_sdmx_tsv` is also the loader's parser (`text_records`).
"""

from __future__ import annotations

import re

from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.profiling.text_records import records_table
from lakeboard.servers.profiling.text_sample import TextSample

_HEADER = re.compile(r"^[A-Za-z_][\w]*(?:,[A-Za-z_][\w]*)*\\[A-Za-z_][\w]*$")


def read_sdmx_tsv(lines):
    """One dict per series and period of `lines`: the dimensions, the period, the value (None
    for ":") and its flags."""
    rows, dims, periods, time = [], None, [], None
    for line in lines:
        fields = line.rstrip("\r\n").split("\t")
        if dims is None:
            names, _, time = fields[0].partition("\\")
            dims, periods = names.split(","), [p.strip() for p in fields[1:]]
            continue
        codes = fields[0].split(",")
        if len(codes) != len(dims):
            continue  # a line cut short, or not a series
        for period, cell in zip(periods, fields[1:]):
            number, _, flags = cell.strip().partition(" ")
            try:
                value = float(number) if number not in ("", ":") else None
            except ValueError:
                value = None
            rows.append({**dict(zip(dims, codes)), time: period, "value": value, "flag": flags.strip()})
    return rows


def looks_like(lines: list[str]) -> bool:
    """A tab-separated header whose first field names dimensions, a backslash, then the periods'."""
    first = next((ln for ln in lines if ln.strip()), "")
    return "\t" in first and bool(_HEADER.match(first.split("\t")[0].strip()))


def profile(prof: FileProfile, sample: TextSample, lines: list[str]) -> None:
    head = lines if sample.complete else lines[:-1]  # the head may end inside its last line
    rows = read_sdmx_tsv(head)
    names, _, time = lines[0].split("\t")[0].strip().partition("\\")
    columns = [*names.split(","), time, "value", "flag"]
    tp = records_table(prof, sample, "sdmx_tsv", rows, columns,
                       "statistics in Eurostat's TSV layout: a row per series and period, values with their flags")
    prof.summary = (f"SDMX-TSV statistics: {tp.n_rows:,} values of {len(columns) - 3} dimensions "
                    f"({', '.join(columns[:-3])}) by {time}")
