"""Reference programs for lakes/demo-questions.json.

Each program is what a data scientist would write after finding the right files: a few
lines of pandas that read the lake (a `pathlib.Path` bound to `lake`) and assign the
result to `answer`. They are independent of lakes/make_demo.py, which computes the
answers from its in-memory data, so agreement means the files really encode the answers.
Other tests replay them (e.g. a scripted model sends them to the kernel server).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

_READINGS = """
frames = [pd.read_csv(f, skiprows=3, parse_dates=["date"]) for f in sorted((lake / "air_quality/sensors").glob("readings_*.csv"))]
readings = pd.concat(frames, ignore_index=True)
"""
_POPULATION = """
pop = pd.read_csv(lake / "districts/population_2024.csv", skiprows=3, nrows=8)
"""
_WEATHER = """
wx = pd.read_fwf(lake / "weather/daily_weather_2024.dat", widths=[10, 5, 7, 7, 7], skiprows=[0, 1, 3], na_values=["-99.9"])
meta = pd.read_csv(lake / "weather/station_metadata.tsv", sep="\\t")
"""

SOLUTIONS: dict[str, str] = {
    "demo-easy-1": """
df = pd.read_parquet(lake / "transit/ridership_2024.parquet")
answer = int(df["boardings"].sum())
""",
    "demo-easy-2": """
df = pd.read_json(lake / "services/service_requests_2024.jsonl", lines=True)
answer = df["category"].value_counts().idxmax()
""",
    "demo-easy-3": """
df = pd.read_excel(lake / "air_quality/annual_summary_2023.xlsx", sheet_name="NO2", skiprows=3).dropna(subset=["Annual mean (ug/m3)"])
answer = df.loc[df["Annual mean (ug/m3)"].idxmax(), "Station"]
""",
    "demo-easy-4": """
data = json.loads((lake / "inbox/bike_docks_export.txt").read_text())
df = pd.DataFrame(data["stations"])
answer = int(df.loc[df["district"] == "Old Town", "docks"].sum())
""",
    "demo-easy-5": """
import cdflib
cdf = cdflib.CDF(str(lake / "weather/wind_mast_2024.cdf"))
df = pd.DataFrame({"time": cdflib.cdfepoch.to_datetime(cdf.varget("Epoch")), "speed": cdf.varget("wind_speed")})
answer = round(float(df.loc[df["time"].dt.month == 3, "speed"].mean()), 2)
""",
    "demo-easy-6": """
grid = np.load(lake / "weather/rainfall_grid_2024.npz")
answer = round(float(grid["rain_mm"].sum(axis=0).max()), 1)
""",
    "demo-easy-7": """
cap = pd.read_excel(lake / "budget/department_budget_2024.xlsx", sheet_name="Capital", skiprows=1)
answer = int(cap.loc[cap["division"] == "Parks", "value"].sum())
""",
    "demo-easy-8": """
ex = pd.read_csv(lake / "budget/expenditures_2024.csv", sep=";", decimal=",", encoding="latin-1")
answer = round(float(ex.loc[ex["vendor"] == "Société Générale d'Éclairage", "value"].sum()), 2)
""",
    "demo-easy-9": """
inv = json.loads((lake / "air_quality/sensor_inventory.json").read_text())
sensors = pd.json_normalize(inv["sensors"])
answer = int((pd.to_datetime(sensors["calibration.due"]) < "2025-01-01").sum())
""",
    "demo-easy-10": """
import geopandas as gpd
stops = gpd.read_file(lake / "transit/stops.geojson")
answer = int((stops["district"] == "Harbour").sum())
""",
    "demo-medium-1": """
df = pd.read_parquet(lake / "transit/ridership_2024.parquet")
routes = pd.DataFrame(json.loads((lake / "transit/routes.json").read_text())["routes"])
best = df.groupby("route_id")["boardings"].sum().idxmax()
answer = routes.set_index("id").loc[best, "name"]
""",
    "demo-medium-2": """
st = pd.read_csv(lake / "air_quality/stations.csv")
dic = pd.read_csv(lake / "air_quality/stations_dictionary.csv")
codes = dict(c.split(" = ") for c in dic.set_index("variable").loc["site_type", "codes"].split("; "))
industrial = int(next(k for k, v in codes.items() if v == "industrial"))
answer = int((st["site_type"] == industrial).sum())
""",
    "demo-medium-3": _READINGS + """
answer = round(float(readings["pm25"].mean()), 2)
""",
    "demo-medium-4": _READINGS + """
answer = readings.groupby(readings["date"].dt.strftime("%Y-%m"))["no2"].mean().idxmax()
""",
    "demo-medium-5": _READINGS + """
days = readings[readings["pm10"] > 50].groupby("station_id").size()
answer = sorted(days[days > 21].index)
""",
    "demo-medium-6": _POPULATION + """
req = pd.read_json(lake / "services/service_requests_2024.jsonl", lines=True)
rate = req["district"].value_counts() / pop.set_index("district")["population"] * 1000
answer = rate.idxmax()
""",
    "demo-medium-7": _POPULATION + """
op = pd.read_excel(lake / "budget/department_budget_2024.xlsx", sheet_name="Operating", skiprows=4)
answer = round(float(op["Budget 2024 (EUR)"].sum() / pop["population"].sum()), 2)
""",
    "demo-medium-8": """
op24 = pd.read_excel(lake / "budget/department_budget_2024.xlsx", sheet_name="Operating", skiprows=4)["Budget 2024 (EUR)"].sum()
op23 = pd.read_excel(lake / "budget/budget_2023.xls", sheet_name="Operating 2023", engine="openpyxl")["amount_eur"].sum()
answer = round(float((op24 - op23) / op23 * 100), 2)
""",
    "demo-medium-9": _POPULATION + """
import geopandas as gpd
geo = gpd.read_file(lake / "districts/districts.gpkg")
m = pop.merge(geo[["district", "area_km2"]], on="district")
answer = m.loc[(m["population"] / m["area_km2"]).idxmax(), "district"]
""",
    "demo-medium-10": _POPULATION + """
prof = pd.read_html(lake / "districts/district_profiles.html", match="Median household income")[0]
biggest = pop.loc[pop["population"].idxmax(), "district"]
answer = int(prof.set_index("District").loc[biggest, "Median household income (EUR)"])
""",
    "demo-medium-11": _WEATHER + """
code = meta.loc[meta["name"].str.contains("Airport"), "code"].item()
answer = float(wx.loc[wx["STN"] == code, "TMAX"].max())
""",
    "demo-medium-12": _WEATHER + """
code = meta.loc[meta["name"] == "Hillcrest Observatory", "code"].item()
answer = float(wx.loc[wx["STN"] == code, "TMIN"].min())
""",
    "demo-hard-1": _READINGS + """
st = pd.read_csv(lake / "air_quality/stations.csv")
dic = pd.read_csv(lake / "air_quality/stations_dictionary.csv")
codes = dict(c.split(" = ") for c in dic.set_index("variable").loc["site_type", "codes"].split("; "))
roadside = int(next(k for k, v in codes.items() if v.startswith("roadside")))
ids = st.loc[st["site_type"] == roadside, "id"]
answer = round(float(readings.loc[readings["station_id"].isin(ids), "no2"].mean()), 2)
""",
}


def run_solution(qid: str, lake: Path) -> Any:
    """Execute the reference program of one question against a lake folder; return its answer."""
    import json
    import re

    import numpy as np
    import pandas as pd

    scope: dict[str, Any] = {"pd": pd, "np": np, "json": json, "re": re, "lake": Path(lake)}
    exec(compile(SOLUTIONS[qid], f"<solution {qid}>", "exec"), scope)
    return scope["answer"]
