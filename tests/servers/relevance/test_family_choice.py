from datetime import date

from lakeboard.schemas.families import Family, FamilyMember, TimeCoverage
from lakeboard.servers.relevance.constraints import parse_constraints
from lakeboard.servers.relevance.family_choice import choose_members


def yearly(first: int, last: int) -> Family:
    return Family(
        key="series:insp", slot="year", pattern="insp/inspections-<slot>.csv",
        members=[
            FamilyMember(path=f"insp/inspections-{y}.csv", value=str(y),
                         coverage=TimeCoverage(start=date(y, 1, 1), end=date(y, 12, 31), source="name"))
            for y in range(first, last + 1)
        ],
    )


def choose(family: Family, request: str) -> list[str]:
    return [p.split("-")[-1].split(".")[0] for p in choose_members(family, parse_constraints(request), request).members]


def test_year_ranges_pick_the_years():
    fam = yearly(2001, 2024)
    assert choose(fam, "inspections from 2005 to 2016 (inclusive)") == [str(y) for y in range(2005, 2017)]
    assert choose(fam, "failed inspections since 2019") == [str(y) for y in range(2019, 2025)]
    assert choose(fam, "inspections in 2012 compared with 2011") == ["2011", "2012"]


def test_no_constraint_means_the_whole_family_and_says_so():
    fam = yearly(2001, 2024)
    choice = choose_members(fam, parse_constraints("how do inspections vary"), "how do inspections vary")
    assert len(choice.members) == 24 and not choice.constrained
    assert "all 24 files" in choice.reason


def test_reason_names_the_slot_and_the_choice():
    fam = yearly(2001, 2024)
    text = "inspections from 2005 to 2016"
    reason = choose_members(fam, parse_constraints(text), text).reason
    assert "one file per year, 2001-2024" in reason and "chosen 12" in reason and "2005 to 2016" in reason


def test_places_named_in_the_request():
    towns = ["upton", "lowfield", "marsh_end", "north", "northridge"]
    fam = Family(key="s", slot="entity", pattern="rainfall_<slot>.csv",
                 members=[FamilyMember(path=f"rainfall_{t}.csv", value=t) for t in towns])
    text = "Compare rainfall in Upton, Marsh End and Northridge."
    picked = choose_members(fam, parse_constraints(text), text).members
    assert sorted(picked) == sorted(
        ["rainfall_upton.csv", "rainfall_marsh_end.csv", "rainfall_northridge.csv"])
    assert "rainfall_north.csv" not in picked


def test_ids():
    fam = Family(key="r", slot="id", pattern="readings/<slot>.dat",
                 members=[FamilyMember(path=f"readings/{i}.dat", value=str(i)) for i in (80412, 80413, 91000)])
    text = "hourly readings of sensor 80412"
    assert choose_members(fam, parse_constraints(text), text).members == ["readings/80412.dat"]


def test_date_ranges_pick_the_covering_files():
    members = []
    start = date(2013, 1, 1)
    for n in range(0, 60):
        a = date.fromordinal(start.toordinal() + 10 * n)
        b = date.fromordinal(a.toordinal() + 9)
        members.append(FamilyMember(path=f"flux/flux-{n}-{a:%Y%m%d}_to_{b:%Y%m%d}.csv", value=f"{a:%Y%m%d}_to_{b:%Y%m%d}",
                                    coverage=TimeCoverage(start=a, end=b, source="name")))
    fam = Family(key="f", slot="date_range", pattern="flux/flux-<slot>.csv", members=members)
    text = "flux between 2013-03-05 and 2013-03-08"
    picked = choose_members(fam, parse_constraints(text), text).members
    assert len(picked) == 1 and "20130302_to_20130311" in picked[0]
    text = "flux in April 2013"
    picked = choose_members(fam, parse_constraints(text), text).members
    assert 3 <= len(picked) <= 4


def test_a_period_outside_the_family_picks_nothing():
    fam = yearly(2001, 2010)
    text = "inspections in 2019"
    choice = choose_members(fam, parse_constraints(text), text)
    assert choice.members == [] and choice.constrained
