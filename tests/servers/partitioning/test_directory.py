from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.partitioning import DirectoryStrategy, PartitionError, strategy_named
from lakeboard.servers.profiling.families import find_families, name_pattern


def prof(path, cols=("a", "b")):
    from tests.servers.relevance.conftest import table_profile

    return table_profile(path, {c: ["x", "y"] for c in cols})


def test_folders_become_clusters_and_tiny_folders_join_their_parent():
    profiles = [prof("a/1.csv"), prof("a/2.csv"), prof("b/x.csv"), prof("b/y.csv"), prof("b/deep/only.csv")]
    clusters = DirectoryStrategy().partition(profiles)
    assert {c.name: sorted(c.files) for c in clusters} == {
        "a": ["a/1.csv", "a/2.csv"], "b": ["b/deep/only.csv", "b/x.csv", "b/y.csv"]}
    assert all(c.description and c.reason for c in clusters)


def test_large_folders_split_without_breaking_families():
    series = [prof(f"big/readings_2024-{m:02d}.csv") for m in range(1, 13)]
    others = [prof(f"big/file{c}.csv", cols=(c, c + "z")) for c in "abcdefgh"]
    clusters = DirectoryStrategy(max_files=10).partition(series + others)
    holding = [c for c in clusters if "big/readings_2024-01.csv" in c.files]
    assert len(holding) == 1 and all(s.path in holding[0].files for s in series)
    assert sum(len(c.files) for c in clusters) == 20 and len({c.name for c in clusters}) == len(clusters)


def test_cluster_count_can_be_asked_for():
    profiles = [prof(f"d{i}/f{j}.csv", cols=(f"c{i}{j}", "k")) for i in range(5) for j in range(2)]
    assert len(DirectoryStrategy(n_clusters=2).partition(profiles)) == 2


def test_families():
    assert name_pattern("x/readings_2024-01.csv") == "x/readings_#-#.csv"
    fams = find_families([prof("s/AL.csv"), prof("s/AK.csv"), prof("s/AZ.csv"), prof("s/odd.csv", cols=("q", "r"))])
    assert set(fams) == {"s/AL.csv", "s/AK.csv", "s/AZ.csv"}


def test_unknown_strategy_and_llm_without_model_fail_clearly(monkeypatch):
    for var in ("LAKEBOARD_LLM_MODEL", "OPENAI_MODEL", "LAKEBOARD_LLM_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    import pytest

    with pytest.raises(PartitionError, match="unknown partition strategy"):
        strategy_named("nope")
    with pytest.raises(PartitionError, match="needs a model"):
        strategy_named("llm").partition([prof("a.csv")])
    assert isinstance(FileProfile(path="a", format="csv"), FileProfile)


def test_item_folders_of_the_same_layout_are_one_cluster():
    profiles = []
    for i in range(40):
        profiles.append(prof(f"vessels/V{i:03d}/V{i:03d}_track.csv", cols=("t", "lat", "lon")))
        profiles.append(prof(f"vessels/V{i:03d}/meta.csv", cols=("key", "value")))
    profiles += [prof(f"{d}/f{j}.csv", cols=(d + "x", d + "y")) for d in "abc" for j in range(3)]
    clusters = {c.name: c for c in DirectoryStrategy().partition(profiles)}
    assert len(clusters["vessels"].files) == 80
    assert "40 folders of the same layout" in clusters["vessels"].reason
    # folders that share file names but not columns stay apart
    assert {"a", "b", "c"} <= set(clusters)


def test_the_number_of_clusters_is_capped():
    profiles = [prof(f"d{i:03d}/f{j}.csv", cols=(f"c{i}{j}", "k")) for i in range(300) for j in range(5)]
    clusters = DirectoryStrategy().partition(profiles)
    assert len(clusters) == 8
    assert sorted(f for c in clusters for f in c.files) == sorted(p.path for p in profiles)


def test_merging_chunks_through_a_heap_chooses_as_scanning_every_pair_does():
    import random

    from lakeboard.servers.partitioning.directory import _merge_to
    from tests.support.chunk_merging import merge_by_scanning

    rng = random.Random(7)
    for _ in range(500):
        chunks = [(f"d{rng.randint(0, 3)}/f{k:03d}" + ("/*" if rng.random() < 0.2 else ""),
                   [f"x{k}_{j}" for j in range(rng.choice([1, 1, 2, 3, 5, 8]))]) for k in range(rng.randint(0, 40))]
        n = rng.randint(0, 12)
        given = [(f, list(names)) for f, names in chunks]
        assert _merge_to(chunks, n) == merge_by_scanning(chunks, n)
        assert chunks == given  # the caller's lists are left as they were
