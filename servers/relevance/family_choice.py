"""Which members of a family a request needs: the years, places or ids it names.

A family is one dataset split on a slot of its file names. A request that names values of
that slot ("2005 to 2016", "Upton and Marsh End", "sensor 80412") needs exactly the members
with those values; a request that names none needs the whole family, as one unit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lakeboard.schemas.families import Family, FamilyMember
from lakeboard.servers.relevance.constraints import Constraints

_SEPARATORS = re.compile(r"[\s_\-.]+")


@dataclass(frozen=True)
class FamilyChoice:
    family: Family
    members: list[str]  # the chosen paths, in the family's order
    constrained: bool  # the request picked members (else the whole family)
    reason: str  # for a person: what the family is and why these members
    named: bool = False  # the request named the chosen members (their names or ids)


def _normal(text: str) -> str:
    return " " + _SEPARATORS.sub(" ", text.lower()).strip() + " "


def _named(member: FamilyMember, request: str) -> bool:
    value = _normal(member.value).strip()
    return len(value) >= 2 and f" {value} " in request


def _same_id(member: FamilyMember, numbers: list[str]) -> bool:
    v = member.value.lstrip("0") or "0"
    return any((n.lstrip("0") or "0") == v for n in numbers)


def choose_members(family: Family, constraints: Constraints, request: str) -> FamilyChoice:
    """The members that meet the request's names, ids or period; all of them if it sets none."""
    said = _normal(re.sub(r"[^\w\s\-]", " ", request))
    members = family.members
    picked: list[FamilyMember] = []
    why = ""
    if family.slot == "entity":
        picked = [m for m in members if _named(m, said)]
        why = "named in the request"
    elif family.slot == "id" and constraints.numbers:
        picked = [m for m in members if _same_id(m, constraints.numbers)]
        why = f"the request's id{'s' if len(picked) > 1 else ''}"
    named = bool(picked)
    if not picked and constraints.has_time and all(m.coverage is not None for m in members):
        picked = [m for m in members if constraints.covers(m.coverage.start, m.coverage.end)]
        why = f"covering the request's {constraints.describe() or 'period'!r}"
        if not picked:
            return FamilyChoice(family, [], True, f"{family.describe()}; none covers {constraints.describe()!r}")
    if not picked:
        return FamilyChoice(
            family, [m.path for m in members], False,
            f"{family.describe()}; the request names no {_slot_word(family)} of it, so all {len(members)} files",
        )
    shown = ", ".join(m.value for m in picked[:8]) + (" ..." if len(picked) > 8 else "")
    return FamilyChoice(
        family, [m.path for m in picked], True, f"{family.describe()}; chosen {len(picked)} ({shown}), {why}", named
    )


def _slot_word(family: Family) -> str:
    return {"year": "year", "month": "month", "date": "date", "date_range": "period", "id": "id",
            "entity": "name"}.get(family.slot, "member")
