"""FASTA files: one row per sequence, its lines joined."""

from __future__ import annotations

from pathlib import Path

from lakeboard.servers.profiling.sequences import looks_like, read_fasta
from lakeboard.servers.relevance.index_fields import field_tokens
from tests.servers.profiling.loading import profile_and_load

RECORDS = [">sp|P69905|HBA_HUMAN Hemoglobin subunit alpha", "MVLSPADKTNVKAAWGKVGAHAGEYGAEALERMFLSFPTTKTYFPHF",
           "DLSHGSAQVKGHGKKVADALTNAVAHV", "; a comment line", ">seq2", "ACGTACGTNN"]


def test_records_join_their_lines_and_keep_id_and_description() -> None:
    first, second = read_fasta(RECORDS)
    assert first["id"] == "sp|P69905|HBA_HUMAN" and first["description"] == "Hemoglobin subunit alpha"
    assert first["sequence"].endswith("AVAHV") and first["length"] == 74
    assert second == {"id": "seq2", "description": "", "length": 10, "sequence": "ACGTACGTNN"}
    assert looks_like(RECORDS) and not looks_like([">note", "this is prose, not a sequence"])
    assert not looks_like(["id,name", ">1,2"])


def test_a_fasta_file_is_a_table_of_sequences_and_its_loader_reads_it(tmp_path: Path) -> None:
    f = tmp_path / "proteins.faa"
    f.write_text("\n".join(f">p{i} protein {i}\n" + "MKT" * (20 + i) for i in range(30)) + "\n")
    prof, ns = profile_and_load(f)
    df = ns["data"]
    assert prof.format == "fasta" and prof.tables[0].n_rows == 30 and prof.loader_check.verified
    assert list(df.columns) == ["id", "description", "length", "sequence"] and df["length"].tolist()[:2] == [60, 63]
    assert "FASTA sequences: 30 records, 60 to 147 residues" in prof.summary
    tokens = field_tokens(prof)
    assert "sequenc" in tokens["titles"] and not any("mkt" in v for v in tokens["values"])  # letters stay out
