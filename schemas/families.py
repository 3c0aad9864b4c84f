"""Families: many files of one layout, split on a slot of their names (year, date, place, id).

The indexer finds them and records, for each member, the slot's value and the time the
member covers, so that a file agent can pick the members a request needs.
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import (BaseModel, Field, SerializationInfo, SerializerFunctionWrapHandler, model_serializer,
                      model_validator)

from lakeboard.schemas.storage import is_stored

SlotKind = Literal["year", "month", "date", "date_range", "id", "entity", "none"]


class TimeCoverage(BaseModel):
    """The days a file's data covers, both ends included, and where that was read."""

    start: date
    end: date
    source: Literal["name", "data"]


class FamilyMember(BaseModel):
    path: str
    value: str = Field(description="the slot's text in this member's name, e.g. '2005', 'north-ridge', '80412'")
    coverage: TimeCoverage | None = Field(None, exclude_if=lambda c: c is None)


class Family(BaseModel):
    key: str = Field(description="stable identifier, also FileMatch.group")
    slot: SlotKind = Field(description="what the varying part of the members' names is")
    pattern: str = Field(description="the members' path with the slot shown as <slot>")
    members: list[FamilyMember]

    # In clusters.json (context=STORED) a member whose path is the pattern with its value in the
    # slot is written without the path, which reading puts back: 1.1 of the 5.3 MB of clusters.json
    # at 50k generated files.
    @model_serializer(mode="wrap")
    def _without_derived_paths(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> dict:
        data = handler(self)
        if is_stored(info):
            for member, stored in zip(self.members, data["members"]):
                if member.path == _member_path(self.pattern, member.value):
                    del stored["path"]
        return data

    @model_validator(mode="before")
    @classmethod
    def _derived_paths(cls, data: object) -> object:
        if isinstance(data, dict) and isinstance(data.get("pattern"), str) and isinstance(data.get("members"), list):
            data = {**data, "members": [
                {**m, "path": _member_path(data["pattern"], m["value"])}
                if isinstance(m, dict) and "path" not in m and isinstance(m.get("value"), str) else m
                for m in data["members"]]}
        return data

    def describe(self) -> str:
        """One line for a person: 'one file per year, 2001-2024 (24 files)'."""
        n = len(self.members)
        values = [m.value for m in self.members]
        if self.slot in ("year", "month", "date", "date_range"):
            dated = [m.coverage for m in self.members if m.coverage is not None]
            span = f", {min(c.start for c in dated)} to {max(c.end for c in dated)}" if dated else ""
            if self.slot == "year":
                span = f", {min(values)}-{max(values)}"
            unit = {"year": "year", "month": "month", "date": "date", "date_range": "period"}[self.slot]
            return f"one file per {unit}{span} ({n} files, {self.pattern})"
        if self.slot == "id":
            return f"one file per id ({n} files, {self.pattern}), e.g. {', '.join(values[:3])}"
        if self.slot == "entity":
            return f"one file per name ({n} files, {self.pattern}): {', '.join(values[:6])}{' ...' if n > 6 else ''}"
        return f"{n} files of the same layout ({self.pattern})"


def _member_path(pattern: str, value: str) -> str:
    """The path a member with this slot value has when its name follows the pattern."""
    return pattern.replace("<slot>", value)
