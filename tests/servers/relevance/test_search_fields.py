"""A profile's texts for the search index and the card: what the file holds, not how it is read."""

from __future__ import annotations

from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.relevance.index_fields import card_text
from lakeboard.servers.relevance.search_fields import profile_texts


def test_the_reading_engine_is_no_evidence_but_sheet_names_are() -> None:
    prof = FileProfile(path="rain/gauges.xlsx", format="excel", attributes={"engine": "calamine", "sheets": "Rainfall"})
    texts = profile_texts(prof)
    assert "Rainfall" in texts.titles and "calamine" not in texts.titles
    assert "calamine" not in card_text(prof) and "Rainfall" in card_text(prof)
