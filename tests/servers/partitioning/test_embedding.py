"""The embedding strategy runs on the torch-free MiniLM (common/minilm.py), offline."""

import pytest


@pytest.mark.slow
def test_embedding_strategy_groups_similar_profiles_offline(monkeypatch):
    from lakeboard.servers.partitioning import strategy_named
    from tests.servers.relevance.conftest import table_profile

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    weather = [table_profile(f"w/weather_{i}.csv", {"temperature": ["1"], "rainfall": ["2"], "wind_speed": ["3"]})
               for i in range(3)]
    money = [table_profile(f"m/budget_{i}.csv", {"department": ["Parks"], "spending_usd": ["2"], "revenue": ["3"]})
             for i in range(3)]
    clusters = strategy_named("embedding", n_clusters=2).partition(weather + money)
    groups = sorted(sorted(c.files) for c in clusters)
    assert groups == [sorted(p.path for p in money), sorted(p.path for p in weather)]
