from __future__ import annotations

import pytest

from lakeboard.schemas.profiles import ColumnProfile, FileProfile, TableProfile


def table_profile(path: str, columns: dict[str, list[str]], *, notes=(), rows=None, **kw) -> FileProfile:
    cols = [
        ColumnProfile(name=name, dtype="object" if vals and not vals[0].replace(".", "").isdigit() else "int64",
                      examples=vals[:5], top_values=vals if vals and not vals[0].isdigit() else [],
                      minimum=min(vals) if vals and vals[0].isdigit() else None,
                      maximum=max(vals) if vals and vals[0].isdigit() else None)
        for name, vals in columns.items()
    ]
    sample = rows or [dict(zip(columns, vals)) for vals in zip(*columns.values())]
    return FileProfile(path=path, format="csv", kind="table", tables=[TableProfile(columns=cols, notes=list(notes), sample_rows=sample)], **kw)


@pytest.fixture
def small_lake() -> list[FileProfile]:
    return [
        table_profile("air/sensor_readings.csv", {"station": ["north", "south"], "pm25": ["1.2", "3.4"], "date": ["2024-01-01", "2024-01-02"]}),
        table_profile("budget/city_budget_2023.csv", {"department": ["Parks", "Transit", "Police"], "amount": ["100", "200", "300"]}),
        table_profile("transit/ridership.csv", {"line": ["Red", "Blue"], "year": ["2001", "2024"], "riders": ["5", "6"]},
                      notes=["Annual ridership by transit line"]),
        table_profile("transit/ridership_dictionary.csv",
                      {"variable": ["line", "year", "riders"], "description": ["the transit line", "calendar year", "boardings per year"]}),
        table_profile("people/by_district/north.csv", {"district": ["north"], "population": ["10"]}),
        table_profile("people/by_district/south.csv", {"district": ["south"], "population": ["20"]}),
        table_profile("people/by_district/east.csv", {"district": ["east"], "population": ["30"]}),
        FileProfile(path="broken.parquet", format="parquet", status="unreadable", reason="truncated file"),
    ]
