"""Document readers, passages, and the local index (paths, ranking, mtime-keyed cache)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from lakeboard.servers.search_agent.passages import (
    UnreadableDocument,
    read_document,
    split_passages,
)
from lakeboard.servers.search_agent.local_index import LocalIndex


def test_readers_extract_titles_and_text(lake: Path) -> None:
    docs = lake / "docs"
    md = read_document(docs / "air_quality_index.md")
    assert (md.kind, md.title) == ("markdown", "Air Quality Index")
    assert "## How the AQI is computed" in md.text
    html = read_document(docs / "glossary.html")
    assert (html.kind, html.title) == ("html", "Glossary")
    assert "Heat index: An apparent temperature that combines air temperature and relative humidity." in html.text
    assert "console.log" not in html.text
    pdf = read_document(docs / "drift.pdf")
    assert (pdf.kind, pdf.title) == ("pdf", "Sensor drift correction")
    assert "subtracting a linear trend" in pdf.text
    txt = read_document(docs / "more" / "retention.txt")
    assert txt.kind == "text" and txt.title == "Retention period"


def test_unsupported_and_broken_documents_are_clear_errors(tmp_path: Path) -> None:
    (tmp_path / "x.xyz").write_text("?")
    with pytest.raises(UnreadableDocument, match="unsupported type"):
        read_document(tmp_path / "x.xyz")
    (tmp_path / "bad.pdf").write_bytes(b"%PDF-1.4 garbage")
    with pytest.raises(UnreadableDocument, match="not a readable PDF"):
        read_document(tmp_path / "bad.pdf")


def test_passages_follow_headings_and_size() -> None:
    text = "# Title\n\nIntro paragraph.\n\n## Part A\n\n" + "\n\n".join(f"Sentence {i} of part A." for i in range(60))
    text += "\n\n## Part B\n\nOnly paragraph of B."
    passages = split_passages(text, source="d.md", title="Title", target_chars=300, max_chars=400)
    assert passages[0].heading == "Title" and passages[0].text == "Intro paragraph."
    part_a = [p for p in passages if p.heading == "Part A"]
    assert len(part_a) > 3 and all(len(p.text) <= 400 for p in part_a)
    assert passages[-1].heading == "Part B" and passages[-1].text == "Only paragraph of B."
    long = split_passages("word " * 1000, source="s", title="t", max_chars=500)
    assert all(len(p.text) <= 500 for p in long) and sum(len(p.text) for p in long) >= 4000


def test_index_lists_documents_relative_to_the_docs_parent(lake: Path) -> None:
    index = LocalIndex([lake / "docs"]).build()
    paths = sorted(d.path for d in index.documents)
    assert paths == ["docs/air_quality_index.md", "docs/drift.pdf", "docs/glossary.html", "docs/more/retention.txt"]
    assert index.skipped == []  # notes.xyz is not a document type: not even tried


def test_index_paths_relative_to_an_explicit_lake_root(lake: Path, tmp_path: Path) -> None:
    index = LocalIndex([lake / "docs" / "more"], root=lake).build()
    assert [d.path for d in index.documents] == ["docs/more/retention.txt"]
    outside = LocalIndex([lake / "docs" / "more"], root=tmp_path / "elsewhere").build()
    assert [d.path for d in outside.documents] == ["more/retention.txt"]  # falls back to the folder's parent


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How is the air quality index computed from pollutant concentrations?", "docs/air_quality_index.md"),
        ("What does dew point mean?", "docs/glossary.html"),
        ("How is sensor drift corrected?", "docs/drift.pdf"),
        ("How is the retention period of a record computed?", "docs/more/retention.txt"),
    ],
)
def test_search_ranks_the_right_document_first(lake: Path, question: str, expected: str) -> None:
    index = LocalIndex([lake / "docs"]).build()
    hits = index.search(question, k=3)
    assert hits[0].document.path == expected
    assert hits[0].score == index.best_score(question) > 0.1
    assert all(p.source == expected for p in hits[0].passages)


def test_unrelated_text_matches_nothing(lake: Path) -> None:
    index = LocalIndex([lake / "docs"]).build()
    assert index.search("quarterly revenue of shipping companies", 3) == []
    assert index.best_score("quarterly revenue of shipping companies") == 0.0


def test_cache_is_reused_until_a_file_changes(lake: Path, tmp_path: Path, monkeypatch) -> None:
    cache = tmp_path / "cache"
    LocalIndex([lake / "docs"], cache_dir=cache).build()
    files = list(cache.glob("docs-*.json"))
    assert len(files) == 1
    stored = json.loads(files[0].read_text())
    assert len(stored["documents"]) == 4

    import lakeboard.servers.search_agent.local_index as module

    reads: list[str] = []
    real = module.parse_document
    monkeypatch.setattr(module, "parse_document", lambda data, name: reads.append(name) or real(data, name))
    again = LocalIndex([lake / "docs"], cache_dir=cache).build()
    assert reads == [] and len(again.documents) == 4  # everything came from the cache

    md = lake / "docs" / "air_quality_index.md"
    md.write_text(md.read_text() + "\nThe AQI is reported daily.\n")
    os.utime(md, ns=(md.stat().st_atime_ns, md.stat().st_mtime_ns + 1_000_000_000))
    changed = LocalIndex([lake / "docs"], cache_dir=cache).build()
    assert reads == ["air_quality_index.md"]
    assert changed.search("reported daily", 1)[0].document.path == "docs/air_quality_index.md"


def test_unwritable_cache_is_not_fatal(lake: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x")
    index = LocalIndex([lake / "docs"], cache_dir=blocker / "cache").build()
    assert len(index.documents) == 4


def test_broken_document_is_skipped_with_a_reason(lake: Path) -> None:
    (lake / "docs" / "broken.pdf").write_bytes(b"%PDF-1.4 garbage")
    index = LocalIndex([lake / "docs"]).build()
    assert len(index.documents) == 4
    assert len(index.skipped) == 1 and index.skipped[0].startswith("docs/broken.pdf: ")


def test_markdown_unwraps_hard_wrapped_paragraphs_and_lists() -> None:
    from lakeboard.servers.search_agent.passages import markdown_to_text

    raw = ("# T\n\nA paragraph that is\nhard wrapped over\nthree lines, with *emphasis* and **strong** words.\n\n"
           "* First item that\n  continues here.\n* Second item.\n\n    code_line = 1\n    other_line = 2\n\n"
           "| a | b |\n| --- | --- |\n| 1 | 2 |\n\nKeep I_hi - I_lo and `x * y` as written.\n")
    title, text = markdown_to_text(raw)
    assert title == "T"
    assert "A paragraph that is hard wrapped over three lines, with emphasis and strong words." in text
    assert "* First item that continues here.\n* Second item." in text
    assert "code_line = 1\nother_line = 2" in text
    assert "| a | b |\n| --- | --- |\n| 1 | 2 |" in text
    assert "Keep I_hi - I_lo and x * y as written." in text


def test_definition_entries_are_passages_of_their_own() -> None:
    text = "# Glossary\n\n" + "\n\n".join(f"Term {i}: definition number {i} of the glossary." for i in range(8))
    passages = split_passages(text, source="g.html", title="Glossary")
    assert len(passages) == 8 and passages[3].text == "Term 3: definition number 3 of the glossary."
    assert [p.position for p in passages] == list(range(8))
