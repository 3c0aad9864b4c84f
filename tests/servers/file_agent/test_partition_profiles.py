"""PartitionProfiles: a partition's profiles read on demand from the profile cache."""

from __future__ import annotations

import pytest

from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.file_agent.partition_profiles import PartitionProfiles
from lakeboard.servers.profiling.cache import ProfileCache


def _profile(path: str) -> FileProfile:
    return FileProfile(path=path, format="csv", status="ok", summary=f"rows of {path}")


def test_profiles_are_read_when_asked_for_and_only_the_latest_are_kept(tmp_path):
    paths = [f"data/t{i}.csv" for i in range(12)]
    with ProfileCache(tmp_path) as cache:
        for p in paths[:10]:
            cache.put(_profile(p))
    profiles = PartitionProfiles(tmp_path, paths, {"data/t10.csv": "unreadable: bad header"}, keep=4)
    assert len(profiles) == 12 and list(profiles) == paths and "data/t3.csv" in profiles
    assert "data/other.csv" not in profiles
    with pytest.raises(KeyError):
        profiles["data/other.csv"]
    assert profiles["data/t3.csv"].summary == "rows of data/t3.csv"
    assert profiles["data/t3.csv"] is profiles["data/t3.csv"], "a profile just read is kept"
    skipped = profiles["data/t10.csv"]
    assert skipped.status == "skipped" and skipped.reason == "unreadable: bad header"
    assert "index" in profiles["data/t11.csv"].reason
    every = list(profiles.values())
    assert [p.path for p in every] == paths
    assert dict(profiles.items()).keys() == set(paths)
    assert len(profiles._kept) == 4, "iterating every profile keeps only the latest few"
