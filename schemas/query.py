"""A request, parsed once: what every relevance step reads instead of re-parsing the text."""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, Field


class QueryPeriod(BaseModel):
    """A span of days the request needs, both ends included, and its words for it."""

    start: date
    end: date
    text: str


class Query(BaseModel):
    text: str = Field(description="the request as written")
    data_text: str = Field(description="the request without its sentences about the answer's form")
    sentences: list[str] = Field(
        default_factory=list,
        description="the data text's sentences, where it has several (each is embedded beside the whole)",
    )
    terms: dict[str, str] = Field(
        default_factory=dict, description="stemmed content terms -> the word each came from, times left out"
    )
    name_parts: list[str] = Field(
        default_factory=list,
        description="stemmed words as file and folder names are split, numbers kept, and adjacent words "
        "written together ('sentinel b' -> 'sentinelb')",
    )
    ids: list[str] = Field(default_factory=list, description="numbers and codes that are not years or dates")
    phrases: list[str] = Field(default_factory=list, description="quoted phrases, stemmed, words joined by spaces")
    periods: list[QueryPeriod] = Field(default_factory=list, description="the request needs any of these")
    months: list[int] = Field(default_factory=list, description="months of the year named without a year")

    @property
    def has_time(self) -> bool:
        return bool(self.periods or self.months)
