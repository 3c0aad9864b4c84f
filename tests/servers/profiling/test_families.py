import json
from datetime import date

import pytest

from lakeboard.schemas.families import Family, FamilyMember
from lakeboard.schemas.profiles import ColumnProfile, FileProfile, TableProfile
from lakeboard.schemas.storage import STORED
from lakeboard.servers.profiling.families import describe_families, slot_values


@pytest.mark.parametrize(
    "paths, pattern, kind, values",
    [
        (["x/inspections-2001.csv", "x/inspections-2019.csv", "x/inspections-2024.csv"],
         "x/inspections-<slot>.csv", "year", ["2001", "2019", "2024"]),
        (["rainfall_north.csv", "rainfall_northridge.csv", "rainfall_sandy_bay.csv"],
         "rainfall_<slot>.csv", "entity", ["north", "northridge", "sandy_bay"]),
        (["readings/80412.dat", "readings/80413.dat", "readings/91000.dat"], "readings/<slot>.dat", "id",
         ["80412", "80413", "91000"]),
        (["f/flux-1-20130401_to_20130410.csv", "f/flux-2-20130411_to_20130420.csv", "f/flux-12-20170801_to_20170810.csv"],
         "f/flux-<slot>.csv", "date_range", ["20130401_to_20130410", "20130411_to_20130420", "20170801_to_20170810"]),
        (["a/readings_2024-01.csv", "a/readings_2024-02.csv", "a/readings_2024-12.csv"],
         "a/readings_<slot>.csv", "month", ["2024-01", "2024-02", "2024-12"]),
        (["d/log_2020-03-01.csv", "d/log_2020-03-02.csv", "d/log_2021-01-09.csv"],
         "d/log_<slot>.csv", "date", ["2020-03-01", "2020-03-02", "2021-01-09"]),
    ],
)
def test_slot_values(paths, pattern, kind, values):
    assert slot_values(paths) == (pattern, kind, values)


def _table(path: str, cols: dict[str, tuple[str, str]]) -> FileProfile:
    columns = [ColumnProfile(name=n, dtype="str", minimum=lo, maximum=hi) for n, (lo, hi) in cols.items()]
    return FileProfile(path=path, format="csv", kind="table", tables=[TableProfile(columns=columns)])


def test_members_carry_coverage_from_the_name_else_from_the_data():
    yearly = [_table(f"insp/inspections-{y}.csv", {"site": ("a", "b"), "score": ("1", "9")}) for y in (2001, 2002, 2003)]
    towns = [
        _table(f"rain/rainfall_{t}.csv", {"date": ("2019-01-01", "2019-12-31"), "mm": ("0", "40")})
        for t in ("upton", "lowfield", "marsh_end")
    ]
    families = {f.slot: f for f in describe_families(yearly + towns)}
    year = families["year"]
    assert [m.coverage.start for m in year.members] == [date(2001, 1, 1), date(2002, 1, 1), date(2003, 1, 1)]
    assert {m.coverage.source for m in year.members} == {"name"}
    assert "one file per year, 2001-2003" in year.describe()
    entity = families["entity"]
    assert sorted(m.value for m in entity.members) == ["lowfield", "marsh_end", "upton"]
    assert entity.members[0].coverage.start == date(2019, 1, 1) and entity.members[0].coverage.source == "data"


def test_a_stored_family_leaves_out_the_paths_its_pattern_gives():
    family = Family(key="k", slot="year", pattern="insp/<slot>.csv", members=[
        FamilyMember(path="insp/2001.csv", value="2001"), FamilyMember(path="old/insp/2002.csv", value="2002")])
    stored = json.loads(family.model_dump_json(context=STORED))
    assert stored["members"] == [{"value": "2001"}, {"path": "old/insp/2002.csv", "value": "2002"}]
    assert Family.model_validate(stored) == family
    assert json.loads(family.model_dump_json())["members"][0] == {"path": "insp/2001.csv", "value": "2001"}


def test_item_folders_make_a_family_named_by_the_folder():
    vessels = ["osprey", "kestrel", "merlin", "harrier"]
    profiles = [_table(f"fleet/{v}/particulars.csv", {"key": ("a", "z"), "value": ("1", "9")}) for v in vessels]
    profiles.append(_table("fleet/readme.csv", {"x": ("a", "b"), "y": ("1", "2")}))
    (family,) = describe_families(profiles)
    assert family.slot == "entity" and family.pattern == "fleet/<slot>/particulars.csv"
    assert sorted(m.value for m in family.members) == sorted(vessels)


def _workbook(path: str, sheets: dict[str, list[str]], header_row: int = 0) -> FileProfile:
    tables = [TableProfile(name=name, header_row=header_row, columns=[ColumnProfile(name=c, dtype="float64") for c in cols])
              for name, cols in sheets.items()]
    return FileProfile(path=path, format="excel", kind="table", tables=tables)


def test_a_family_holds_only_files_of_one_layout():
    from lakeboard.servers.profiling.families import find_families

    # Numbered workbooks whose sheets differ are not one family, though their names make a series.
    different = [_workbook(f"w/s{i}.xlsx", {f"sheet{i}": ["day", "mm"]}) for i in range(1, 6)]
    assert find_families(different) == {}
    # A series whose members share sheets and columns is one family, a title line above one
    # member's header aside (that member gets its own loader, not another family).
    same = [_workbook(f"m/rain_{y}.xlsx", {"daily": ["day", "mm"]}, header_row=1 if y == 2003 else 0)
            for y in range(2001, 2006)]
    # A member with a column more is left out of it (a layout two files share is no family).
    wider = [_workbook(f"m/rain_{y}.xlsx", {"daily": ["day", "mm", "flag"]}) for y in (2006, 2007)]
    families = find_families(same + wider)
    assert set(families) == {p.path for p in same} and len(set(families.values())) == 1
