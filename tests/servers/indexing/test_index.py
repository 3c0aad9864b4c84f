import json
import os
import shutil
import sys

from lakeboard.schemas.clusters import ClusterConfig
from lakeboard.servers.indexing import index_lake
from lakeboard.servers.profiling import ProfileCache
from lakeboard.servers.relevance import LakeIndex
from tests.conftest import DEMO_LAKE


def test_index_writes_clusters_servers_and_records_bad_files(demo_config):
    config = ClusterConfig.model_validate_json((demo_config / "clusters.json").read_text())
    files = {f for c in config.clusters for f in c.files}
    assert "districts/population_2024.csv" in files and len(config.clusters) >= 4
    assert all(c.description and c.reason for c in config.clusters)
    # the traps: a truncated parquet and an empty csv are recorded with a reason, not fatal
    assert "transit/ridership_2023.parquet" in config.errors and "inbox/untitled.csv" in config.errors
    # families are recorded with their slot and each member's value and time coverage
    [monthly] = [f for f in config.families if f.pattern == "air_quality/sensors/readings_<slot>.csv"]
    assert monthly.slot == "month" and len(monthly.members) == 12
    assert monthly.members[0].value == "2024-01" and str(monthly.members[0].coverage.end) == "2024-01-31"
    assert monthly.members[0].path == "air_quality/sensors/readings_2024-01.csv"
    # on disk, a member's path that its family's pattern and value give is left out
    raw = json.loads((demo_config / "clusters.json").read_text())
    [stored] = [f for f in raw["families"] if f["pattern"] == monthly.pattern]
    assert stored["members"][0] == {"value": "2024-01", "coverage": monthly.members[0].coverage.model_dump(mode="json")}

    servers = json.loads((demo_config / "servers.json").read_text())["mcpServers"]
    agents = [e for e in servers.values() if "lakeboard.servers.file_agent" in e["args"]]
    assert len(agents) == len(config.clusters)
    for entry in servers.values():
        assert entry["command"] == sys.executable
        assert all(not a.startswith(("configs/", "./")) for a in entry["args"])  # absolute paths only
    assert any("lakeboard.servers.search_agent" in e["args"] and str(DEMO_LAKE / "docs") in e["args"] for e in servers.values())
    assert any("lakeboard.servers.kernel" in e["args"] for e in servers.values())
    assert (demo_config / "servers.d").is_dir()


def test_reindex_touches_only_changed_files_and_records_copies(tmp_path):
    lake = tmp_path / "lake"
    shutil.copytree(DEMO_LAKE / "districts", lake / "districts")
    shutil.copytree(DEMO_LAKE / "weather", lake / "weather")
    first = index_lake(lake, out=tmp_path / "configs")
    cache = first.config_dir / "profiles"
    (lake / "weather" / "new_notes.txt").write_text("station moved in May\n")
    (lake / "notes_copy.txt").write_text("station moved in May\n")  # the same bytes under another name
    # Same size and modification time, other text: only profiling it again would see the change.
    csv = lake / "districts" / "population_2024.csv"
    st = csv.stat()
    csv.write_bytes(b"Q" + csv.read_bytes()[1:])
    os.utime(csv, ns=(st.st_atime_ns, st.st_mtime_ns))
    second = index_lake(lake, out=tmp_path / "configs")
    assert second.n_files == first.n_files + 2
    facts = {f.path: f for f in LakeIndex.load(second.config_dir / "relevance").facts}
    assert facts["notes_copy.txt"].copies == ["weather/new_notes.txt"]
    assert facts["weather/new_notes.txt"].copies == ["notes_copy.txt"]
    assert sum(bool(f.copies) for f in facts.values()) == 2
    with ProfileCache(cache) as profiles:
        cached = profiles.load_many(["districts/population_2024.csv", "weather/new_notes.txt"])
    assert cached["districts/population_2024.csv"].tables[0].title.startswith("City of")  # not profiled again
    assert "weather/new_notes.txt" in cached


def test_missing_lake_is_a_clear_error(tmp_path):
    import pytest

    with pytest.raises(NotADirectoryError, match="is not a folder"):
        index_lake(tmp_path / "nope", out=tmp_path)


def _search_entries(config_dir):
    servers = json.loads((config_dir / "servers.json").read_text())["mcpServers"]
    return [e for e in servers.values() if "lakeboard.servers.search_agent" in e["args"]]


def test_a_lake_without_documents_gets_no_search_agent_unless_a_web_backend_is_asked(tmp_path):
    lake = tmp_path / "lake"
    shutil.copytree(DEMO_LAKE / "districts", lake / "districts")
    res = index_lake(lake, out=tmp_path / "configs")
    assert res.search_backend is None and _search_entries(res.config_dir) == []

    res = index_lake(lake, out=tmp_path / "configs", search_backend="searxng")
    (entry,) = _search_entries(res.config_dir)
    args = entry["args"]
    assert args[args.index("--backend") + 1] == "searxng" and "--docs" not in args


def test_local_search_without_documents_fails_before_profiling(tmp_path):
    import pytest

    lake = tmp_path / "lake"
    shutil.copytree(DEMO_LAKE / "districts", lake / "districts")
    with pytest.raises(ValueError, match="needs documents: pass --docs"):
        index_lake(lake, out=tmp_path / "configs", search_backend="local")
    assert not (tmp_path / "configs" / "lake" / "profiles").exists()
