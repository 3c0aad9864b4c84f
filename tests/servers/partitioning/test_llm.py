"""`lakeboard index --strategy llm --model M --base-url URL --api-key K`, with a scripted model
on 127.0.0.1: the flags reach the indexer (the key through its environment, never its
command line), and files the model names by their folder stay in the model's clusters."""

from __future__ import annotations

import json
import os

from lakeboard.host.cli import main
from tests.support.scripted_llm import ScriptedLLM

MODEL_ENV = ("LAKEBOARD_LLM_MODEL", "LAKEBOARD_LLM_BASE_URL", "LAKEBOARD_LLM_API_KEY", "OPENAI_MODEL",
             "OPENAI_BASE_URL", "OPENAI_API_KEY", "LAKEBOARD_LLM_CONFIG")


def test_index_with_the_llm_strategy_takes_the_model_flags_and_keeps_named_folders(tmp_path, monkeypatch):
    for var in MODEL_ENV:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    lake = tmp_path / "lake"
    for folder, names in {"buses": ["stops.csv", "routes.csv"], "rain": ["2023.csv", "2024.csv"]}.items():
        (lake / folder).mkdir(parents=True)
        for name in names:
            (lake / folder / name).write_text("a,b\n1,2\n")
    (lake / "readme.txt").write_text("about the lake\n")
    reply = json.dumps({"clusters": [
        {"name": "Transit", "files": ["buses/"], "description": "bus stops and routes", "reason": "one network"},
        {"name": "weather", "files": ["rain/*.csv", "readme.txt"], "description": "yearly rainfall", "reason": "a series"},
    ]})
    with ScriptedLLM([reply], api_key="k-123") as model:
        code = main(["index", str(lake), "--out", str(tmp_path / "configs"), "--strategy", "llm",
                     "--model", "scripted-model", "--base-url", model.base_url, "--api-key", "k-123", "--quiet",
                     "--no-analysis"])
        [asked] = model.chat_requests
    assert code == 0
    assert asked.headers["authorization"] == "Bearer k-123" and asked.temperature == 0.1
    clusters = json.loads((tmp_path / "configs" / "lake" / "clusters.json").read_text())["clusters"]
    assert {c["name"]: sorted(c["files"]) for c in clusters} == {
        "transit": ["buses/routes.csv", "buses/stops.csv"],
        "weather": ["rain/2023.csv", "rain/2024.csv", "readme.txt"],
    }
    assert "k-123" not in json.dumps(clusters) and "LAKEBOARD_LLM_API_KEY" not in os.environ


def test_lake_paths_reach_the_model_as_fenced_data_and_come_back_exact():
    """Paths with line breaks, fences and fake instructions: listed one per line in a data block
    of the user's message (a JSON string where needed), none in the system prompt, and the
    model's answer in those same terms places every file."""
    import re

    from lakeboard.common.llm_settings import LLMSettings
    from lakeboard.schemas.profiles import FileProfile
    from lakeboard.servers.llm.own_model import ServerModel
    from lakeboard.servers.partitioning.llm import LLMStrategy
    from tests.support.forged_text import fence_structure, forged_texts

    paths = sorted({f"rain/{text.replace('/', '_')}.csv" for text in forged_texts(12, seed=5)} | {"rain/plain.csv"})

    def answer(body: dict) -> str:
        prompt = body["messages"][-1]["content"]
        block = re.search(r"^(`{3,})\n(.*?)\n\1$", prompt, re.M | re.S).group(2)
        listed = [json.loads(line) if line.startswith('"') else line for line in block.split("\n")]
        return json.dumps({"clusters": [{"name": "rain", "files": listed, "description": "d", "reason": "r"}]})

    with ScriptedLLM([answer]) as model:
        strategy = LLMStrategy(model=ServerModel(LLMSettings(model="scripted-model", base_url=model.base_url)))
        [spec] = strategy.partition([FileProfile(path=p, format="csv") for p in paths])
        [asked] = model.chat_requests
    assert spec.name == "rain" and sorted(spec.files) == paths  # none left for "unassigned"
    system, user = asked.messages[0]["content"], asked.messages[1]["content"]
    assert "rain/" not in system
    outside, blocks = fence_structure(user)
    assert blocks == 1 and not any("rain/" in line or "VERIFIED" in line for line in outside)
