"""profile_file: lake-relative paths, timing, and no exception whatever the input."""

from __future__ import annotations

from pathlib import Path

from lakeboard.servers.profiling import profile_file


def test_paths_are_lake_relative_posix(tmp_path: Path) -> None:
    f = tmp_path / "a b" / "c" / "data.csv"
    f.parent.mkdir(parents=True)
    f.write_text("x,y\n1,2\n")
    prof = profile_file(f, tmp_path)
    assert prof.path == "a b/c/data.csv"
    assert prof.size_bytes == f.stat().st_size and prof.mtime_ns == f.stat().st_mtime_ns
    assert prof.profiled_in_s is not None and prof.profiled_in_s >= 0
    assert prof.summary and prof.loader


def test_never_raises(tmp_path: Path) -> None:
    (tmp_path / "folder.csv").mkdir()
    odd = [
        tmp_path / "folder.csv",  # a directory
        tmp_path / "missing.parquet",  # gone
    ]
    for name, content in {
        "nul.json": b"\x00" * 64,
        "half.xlsx": b"PK\x03\x04" + b"\x00" * 10,
        "bad.npz": b"PK\x05\x06" + b"\x00" * 18,
        "bad.cdf": b"\xcd\xf3\x00\x01" + b"\x00" * 50,
        "bad.gpkg": b"SQLite format 3\x00" + b"\x01" * 90,
        "bad.pdf": b"%PDF-1.7\n%%EOF",
        "bad.png": b"\x89PNG\r\n\x1a\n",
        "bad.parquet": b"PAR1PAR1",
        "bad.feather": b"ARROW1\x00\x00",
        "bad.npy": b"\x93NUMPY\x01\x00",
        "bad.gz": b"\x1f\x8b\x08\x00broken",
        "bad.html": b"<html><table><tr><td>1</td>",
        "weird.xyz": "ünïcödé text\n".encode("utf-16"),
    }.items():
        (tmp_path / name).write_bytes(content)
        odd.append(tmp_path / name)
    for f in odd:
        prof = profile_file(f, tmp_path)
        assert prof.path == f.name
        assert prof.status == "ok" or prof.reason, f.name
        assert prof.loader and prof.summary, f.name
        compile(prof.loader, f.name, "exec")


def test_prose_whose_commas_pandas_cannot_parse_is_a_text_document(tmp_path: Path) -> None:
    """A survey's codebook: one variable a line, its codes listed between commas. Its commas made
    a table of 6 columns whose loader failed ('expected 6 fields, saw 4'); it is a document."""
    f = tmp_path / "codebook.txt"
    f.write_text("ESS10 - codebook extract\n"
                 "nwspol  News about politics, watching, reading or listening, in minutes. 7777 Refusal, 8888 Don't know, 9999 No answer\n"
                 "ppltrst Most people can be trusted. 0-10. 77 Refusal, 88 Don't know, 99 No answer\n"
                 "stflife How satisfied with life as a whole. 0-10. 77 Refusal, 88 Don't know, 99 No answer\n"
                 "happy   How happy are you. 0-10. 77 Refusal, 88 Don't know, 99 No answer\n"
                 "agea    Age of respondent, calculated. 999 Not available\n"
                 "gndr    Gender. 1 Male, 2 Female, 9 No answer\n"
                 "hhmmb   Number of people in the household. 77 Refusal, 88 Don't know, 99 No answer\n")
    prof = profile_file(f, tmp_path)
    assert prof.format == "text" and prof.kind == "document" and prof.loader_check.verified
    assert "read as text" in prof.attributes["note"]
