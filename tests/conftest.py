"""Shared fixtures: the repository's demo lake and the KramaBench reference lakes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DEMO_LAKE = REPO / "lakes" / "demo"
KRAMABENCH = (REPO.parent / "shared" / "kramabench").resolve()
KRAMA_DOMAINS = ("archeology", "legal", "wildfire")

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def krama_lake(domain: str) -> Path:
    lake = KRAMABENCH / domain / "input"
    if not lake.is_dir():
        pytest.skip(f"KramaBench data not found at {lake}")
    return lake


@pytest.fixture(scope="session")
def demo_config(tmp_path_factory) -> Path:
    """lakes/demo indexed once per test session; returns the config folder."""
    from lakeboard.servers.indexing import index_lake

    out = tmp_path_factory.mktemp("configs")
    return index_lake(DEMO_LAKE, name="demo", out=out).config_dir
