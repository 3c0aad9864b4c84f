"""FASTA files: DNA, RNA or protein sequences, each after a ">id description" line.

Read as text they are a wall of letters; read as records they are one row per sequence: its
id, its description, its length and the sequence. `read_fasta` is also the loader's parser
(`text_records`).
"""

from __future__ import annotations

from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.profiling.text_records import records_table
from lakeboard.servers.profiling.text_sample import TextSample

HEAD_LINES = 60
_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz*-.")
SAMPLED_RESIDUES = 200  # of each sequence, in the profile's sample (the loader reads them whole)


def read_fasta(lines):
    """One dict per record of `lines`: id, description, length, sequence (its lines joined)."""
    rows, header, parts = [], None, []

    def record():
        name, _, description = header[1:].strip().partition(" ")
        sequence = "".join(parts)
        return {"id": name, "description": description.strip(), "length": len(sequence), "sequence": sequence}

    for line in lines:
        line = line.strip()
        if line.startswith(">"):
            if header is not None:
                rows.append(record())
            header, parts = line, []
        elif line and header is not None and not line.startswith(";"):  # ";" starts a comment
            parts.append(line)
    if header is not None:
        rows.append(record())
    return rows


def looks_like(lines: list[str]) -> bool:
    """A ">" header first, and only sequence letters on the other lines of the head."""
    head = [ln.strip() for ln in lines[:HEAD_LINES] if ln.strip()]
    if len(head) < 2 or not head[0].startswith(">"):
        return False
    body = [ln for ln in head if not ln.startswith((">", ";"))]
    return bool(body) and all(set(ln) <= _LETTERS for ln in body)


def profile(prof: FileProfile, sample: TextSample, lines: list[str]) -> None:
    rows = read_fasta(lines)
    if not sample.complete and len(rows) > 1:
        rows = rows[:-1]  # the head may end inside the last record
    shown = [{**r, "sequence": r["sequence"][:SAMPLED_RESIDUES]} for r in rows]
    tp = records_table(prof, sample, "fasta", shown, ["id", "description", "length", "sequence"],
                       "sequences in FASTA format (DNA, RNA or protein)")
    for c in tp.columns:
        if c.name == "sequence":  # letters, not words: kept out of the search index's values
            c.top_values, c.examples = [], []  # the sample rows still show them
    lengths = [r["length"] for r in rows]
    span = f", {min(lengths):,} to {max(lengths):,} residues" if lengths else ""
    prof.summary = f"FASTA sequences: {tp.n_rows:,} records{span} (id, description, length, sequence)"
