"""Tables that hold the form of an answer, not data: sample submissions and expected-output files.

`sample_submission.csv` lists the ids to predict with 0 (or 0.5) in every row; an output
template names the columns an answer must have and leaves them blank. Their column names
echo the request ("average_temperature"), so their words can outrank the data's own
(`temp_c`). They are told apart by their values alone, whatever their names: one column is a
key (whole numbers or text, a distinct value in every row) and every other one is empty or
one placeholder value. A file agent chooses such a file only where no data file matches.
"""

from __future__ import annotations

from lakeboard.schemas.profiles import STATS_ROWS, ColumnProfile, FileProfile, TableProfile

# What a template fills in: nothing, zero, or one half (a probability no one has predicted yet)
_PLACEHOLDER_NUMBERS = (0.0, 0.5)
_BLANKS = frozenset({"", "-", "?", "na", "n/a", "nan", "null", "none"})


def _placeholder(value: str) -> bool:
    text = value.strip()
    try:
        return float(text) in _PLACEHOLDER_NUMBERS
    except ValueError:
        return text.lower() in _BLANKS


def _filled_in(c: ColumnProfile) -> bool:
    """Empty, or one placeholder value in every row."""
    if c.null_fraction is not None and c.null_fraction >= 1.0:
        return True
    if c.n_unique != 1:
        return False
    seen = [*c.top_values, *c.examples, *(v for v in (c.minimum, c.maximum) if v is not None)]
    return bool(seen) and all(_placeholder(v) for v in seen)


def _key(c: ColumnProfile, rows: int) -> bool:
    """Whole numbers or text, a distinct value in every row profiled (up to STATS_ROWS of them).
    Decimals are measurements, not ids: they differ from row to row too."""
    whole_or_text = c.dtype.startswith(("int", "uint", "Int", "UInt", "str", "object", "string"))
    return whole_or_text and c.null_fraction == 0 and c.n_unique is not None and c.n_unique >= min(rows, STATS_ROWS)


def _template_table(t: TableProfile) -> bool:
    """One key column, and every other column filled in."""
    rows = t.n_rows or 0
    if rows < 2 or len(t.columns) < 2:  # one row is a summary, not a template
        return False
    rest = [c for c in t.columns if not _filled_in(c)]
    return len(rest) == 1 and _key(rest[0], rows)


def is_answer_template(profile: FileProfile) -> bool:
    """Every table of the file holds only keys and blanks or placeholders."""
    return profile.status == "ok" and bool(profile.tables) and all(_template_table(t) for t in profile.tables)
