"""Scripted main-agent turns for the demo lake's questions.

A turn that needs data reads it from the observation the agent was given, the way a model
would: the file paths come from the loading code the volunteers posted on the board, so a
scenario only reaches the right answer if the blackboard request really brought them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DEMO_LAKE = REPO / "lakes" / "demo"
QUESTIONS = {q["id"]: q for q in json.loads((REPO / "lakes" / "demo-questions.json").read_text())}


def act(action: str, **fields: Any) -> str:
    return json.dumps({"action": action, **fields})


def observation(body: dict[str, Any]) -> str:
    """The last message the main agent received (the previous action's observation)."""
    return body["messages"][-1]["content"]


def board_path(text: str, name: str) -> str:
    """The absolute path of lake file `name` as the volunteers' code wrote it."""
    found = re.search(r"'(/[^'\n]*/" + re.escape(name) + r")'", text)
    if not found:
        raise AssertionError(f"{name} is not in the observation: {text[:1500]}")
    return found.group(1)


def answer(code: str, *sources: str, subtasks: list[dict[str, Any]] | None = None) -> str:
    return act("answer", code=code, response={"data_sources": list(sources), "subtasks": subtasks or []})


# -- demo-medium-1: the busiest route's name needs the ridership and the route names ----
def busiest_route_turns() -> list[Any]:
    paths: dict[str, str] = {}

    def explore(body: dict[str, Any]) -> str:
        text = observation(body)
        paths["ridership"] = board_path(text, "transit/ridership_2024.parquet")
        # the route names lie beside the ridership (the agent reads the folder the helper named)
        paths["routes"] = str(Path(paths["ridership"]).with_name("routes.json"))
        return act("run_code", code=(
            "import json, pandas as pd\n"
            f"rides = pd.read_parquet({paths['ridership']!r})\n"
            f"routes = json.loads(open({paths['routes']!r}).read())\n"
            "print(rides.columns.tolist(), list(routes))"
        ))

    def final(body: dict[str, Any]) -> str:
        assert "route_id" in observation(body), observation(body)
        return answer(
            "import json\nimport pandas as pd\n"
            f"rides = pd.read_parquet({paths['ridership']!r})\n"
            f"routes = pd.DataFrame(json.loads(open({paths['routes']!r}).read())['routes'])\n"
            "best = rides.groupby('route_id')['boardings'].sum().idxmax()\n"
            "print(json.dumps({'answer': routes.set_index('id').loc[best, 'name']}))",
            "transit/ridership_2024.parquet", "transit/routes.json",
            subtasks=[{"query": "Which route had the most boardings?", "data_sources": ["transit/ridership_2024.parquet"]},
                      {"query": "What is that route's name?", "data_sources": ["transit/routes.json"]}],
        )

    return [
        act("plan", plan=["find ridership per route and the route names", "sum boardings per route", "name the top route"]),
        act("request_help", request="passenger boardings per transit route in 2024, and the names of the transit routes",
            reason="to find the route that carried the most passengers"),
        explore,
        final,
    ]


# -- demo-easy-2: the first program names a column that does not exist -----------------
def service_category_turns() -> list[Any]:
    paths: dict[str, str] = {}

    def broken(body: dict[str, Any]) -> str:
        paths["requests"] = board_path(observation(body), "services/service_requests_2024.jsonl")
        return answer(
            "import json\nimport pandas as pd\n"
            f"df = pd.read_json({paths['requests']!r}, lines=True)\n"
            "print(json.dumps({'answer': df['Category'].value_counts().idxmax()}))",
            "services/service_requests_2024.jsonl",
        )

    def fixed(body: dict[str, Any]) -> str:
        assert "KeyError" in observation(body), observation(body)
        return answer(
            "import json\nimport pandas as pd\n"
            f"df = pd.read_json({paths['requests']!r}, lines=True)\n"
            "print(json.dumps({'answer': df['category'].value_counts().idxmax()}))",
            "services/service_requests_2024.jsonl",
        )

    return [
        act("request_help", request="service requests submitted by residents in 2024 with their category"),
        broken,
        fixed,
    ]


# -- demo-easy-1: total boardings, after two malformed replies --------------------------
def total_boardings_turns(*, malformed: bool = True) -> list[Any]:
    paths: dict[str, str] = {}

    def final(body: dict[str, Any]) -> str:
        paths["ridership"] = board_path(observation(body), "transit/ridership_2024.parquet")
        return (
            "Here is my final answer:\n```json\n"
            + answer(
                "import json\nimport pandas as pd\n"
                f"df = pd.read_parquet({paths['ridership']!r})\n"
                "print(json.dumps({'answer': int(df['boardings'].sum())}))",
                "transit/ridership_2024.parquet",
            )
            + "\n```"
        )

    bad = [
        "I think I should first look for the ridership data.",  # no JSON at all
        '{"action": "run_code", "thought": "load it"}',         # run_code without code
    ] if malformed else []
    return [
        *bad,
        act("request_help", request="passenger boardings of the transit network in 2024"),
        final,
    ]


# -- demo-easy-9: sensors due for calibration ------------------------------------------
def calibration_turns() -> list[Any]:
    def final(body: dict[str, Any]) -> str:
        inventory = board_path(observation(body), "air_quality/sensor_inventory.json")
        return answer(
            "import json\nimport pandas as pd\n"
            f"inv = json.loads(open({inventory!r}).read())\n"
            "sensors = pd.json_normalize(inv['sensors'])\n"
            "due = (pd.to_datetime(sensors['calibration.due']) < '2025-01-01').sum()\n"
            "print(json.dumps({'answer': int(due)}))",
            "air_quality/sensor_inventory.json",
        )

    return [
        act("reason", reasoning="I need the sensor inventory with calibration due dates."),
        act("request_help", request="air quality sensors inventory with calibration due dates"),
        final,
    ]
