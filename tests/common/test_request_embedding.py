"""The request's embedding: made once by the host, sent in a call's _meta, used by file agents."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fastmcp import Client, Context, FastMCP

from lakeboard.common.card_vectors import CardVectors
from lakeboard.common.minilm import MODEL_NAME, embed
from lakeboard.common.request_embedding import (
    META_KEY,
    embed_request,
    embedding_from_meta,
    embedding_meta,
    embedding_text,
    lake_similarity,
    request_embedding,
    similarity_from_meta,
)
from lakeboard.schemas.messages import LakeSimilarity
from lakeboard.schemas.clusters import ClusterConfig

REQUEST = "Daily rainfall in Ashford in 2023. Round the answer to 2 decimal places."


LONG = ("Use the monthly rainfall table of Ashford. Drop the months with missing gauges first. "
        "Then fit a linear trend to the yearly totals. Round the answer to 2 decimal places.")


def test_the_vector_is_the_models_embedding_of_the_requests_data_part():
    vectors = request_embedding(REQUEST)
    assert "Round" not in embedding_text(REQUEST)
    assert len(vectors) == 1, "a request of one sentence is embedded once"
    assert np.allclose(vectors[0], embed([embedding_text(REQUEST)])[0], atol=1e-6)
    assert np.allclose(embedding_from_meta(embedding_meta(vectors)), vectors, atol=0)


def test_a_request_of_several_sentences_is_embedded_whole_and_sentence_by_sentence():
    vectors = request_embedding(LONG)
    sentences = ["Use the monthly rainfall table of Ashford.", "Drop the months with missing gauges first.",
                 "Then fit a linear trend to the yearly totals."]  # not the answer's form
    assert np.allclose(vectors, embed([embedding_text(LONG), *sentences]), atol=1e-5)
    sent = embedding_meta(vectors)
    assert len(sent[META_KEY]["sentences"]) == 3
    assert np.allclose(embedding_from_meta(sent), vectors, atol=0)


def test_the_two_passes_give_the_rows_of_passes_made_in_turn_and_their_errors():
    texts = [embedding_text(LONG), "Use the monthly rainfall table of Ashford.", "Drop the months with missing gauges first."]
    assert np.array_equal(embed_request(embed, texts), np.vstack([embed(texts[:1]), embed(texts[1:])]))
    assert np.array_equal(embed_request(embed, texts[:1]), embed(texts[:1]))

    def fails_on_sentences(batch: list[str]) -> np.ndarray:
        if len(batch) > 1:
            raise RuntimeError("the sentences' pass failed")
        return embed(batch)

    with pytest.raises(RuntimeError, match="sentences' pass"):
        embed_request(fails_on_sentences, texts)


def _unit(n: int = 384) -> list[float]:
    v = np.ones(n) / np.sqrt(n)
    return [float(x) for x in v]


@pytest.mark.parametrize("meta", [
    None,
    {},
    {META_KEY: "not a mapping"},
    {META_KEY: {"model": "another-model", "vector": _unit()}},
    {META_KEY: {"model": MODEL_NAME, "vector": _unit(383)}},
    {META_KEY: {"model": MODEL_NAME, "vector": [float("nan")] + _unit()[1:]}},
    {META_KEY: {"model": MODEL_NAME, "vector": [True] + _unit()[1:]}},
    {META_KEY: {"model": MODEL_NAME, "vector": ["0.05"] + _unit()[1:]}},
    {META_KEY: {"model": MODEL_NAME, "vector": [3 * x for x in _unit()]}},  # not unit length
    {META_KEY: {"model": MODEL_NAME, "vector": "0.1,0.2"}},
    {META_KEY: {"model": MODEL_NAME, "vector": _unit(), "sentences": _unit()}},
    {META_KEY: {"model": MODEL_NAME, "vector": _unit(), "sentences": [_unit(), _unit(383)]}},
    {META_KEY: {"model": MODEL_NAME, "vector": _unit(), "sentences": [_unit()] * 17}},
], ids=["none", "empty", "not-mapping", "other-model", "short", "nan", "bool", "text", "not-unit", "not-list",
        "sentences-not-rows", "a-bad-sentence", "too-many-sentences"])
def test_a_vector_this_side_cannot_use_is_ignored(meta):
    assert embedding_from_meta(meta) is None


def _request(demo_config) -> str:
    config = ClusterConfig.model_validate_json((demo_config / "clusters.json").read_text())
    first = sorted(config.clusters[0].files)[0]
    return f"the data of {first.rsplit('/', 1)[-1].rsplit('.', 1)[0].replace('_', ' ')}"


async def test_a_file_agent_ranks_with_the_vector_it_was_sent(demo_config, tmp_path):
    from lakeboard.servers.file_agent.agent import FileAgent
    from lakeboard.servers.file_agent.analysis_store import AnalysisStore
    from lakeboard.servers.file_agent.server import build_server

    config = ClusterConfig.model_validate_json((demo_config / "clusters.json").read_text())
    agent = FileAgent(config, config.clusters[0].name)
    assert agent.engine.dense, "the demo lake is indexed with card vectors"
    request = _request(demo_config)
    async with Client(build_server(agent, AnalysisStore(tmp_path))) as client:
        async def matches(meta):
            result = await client.call_tool("respond", {"request": request}, meta=meta)
            return [(m["path"], m["score"]) for m in result.structured_content["matches"]]

        own = await matches(None)
        assert own, "the request names a file of the partition"
        assert await matches(embedding_meta(request_embedding(request))) == own
        assert await matches({META_KEY: {"model": MODEL_NAME, "vector": _unit(383)}}) == own
        # a vector of other words moves the scores: the agent used what it was sent
        assert await matches(embedding_meta(request_embedding("passenger counts of night ferries"))) != own


async def test_the_blackboard_sends_every_helper_one_embedding_of_the_request():
    from lakeboard.host.blackboard import Blackboard
    from lakeboard.host.pool import ClientPool, InMemoryServer

    seen: list[tuple[str, list[list[float]] | None]] = []

    def helper(name: str) -> FastMCP:
        mcp = FastMCP(name)

        @mcp.tool
        def can_help(request: str, ctx: Context, reason: str = "") -> dict:
            vector = embedding_from_meta(ctx.request_context.meta)
            seen.append((name, None if vector is None else vector.tolist()))
            return {"agent_name": name, "can_help": False, "reason": "no", "confidence": 0.0}

        return mcp

    pool = ClientPool({n: InMemoryServer(helper(n)) for n in ("a", "b", "c")})
    async with pool:
        from lakeboard.schemas.messages import BlackboardRequest

        posting = await Blackboard(pool).post(BlackboardRequest(request=REQUEST))
        assert "embedding" not in posting.request.model_dump(mode="json"), "traces never carry the vector"
        await Blackboard(pool, embed_requests=False).post(BlackboardRequest(request=REQUEST))
        await Blackboard(pool).post(BlackboardRequest(request=LONG))
    sent = [v for _, v in seen[:3]]
    assert sorted(n for n, _ in seen[:3]) == ["a", "b", "c"]
    assert all(v is not None and np.allclose(v, request_embedding(REQUEST), atol=1e-6) for v in sent)
    assert [v for _, v in seen[3:6]] == [None, None, None]
    # a request of several sentences: each helper gets the whole's vector and each sentence's
    assert all(len(v) == 4 and np.allclose(v, request_embedding(LONG), atol=1e-6) for _, v in seen[6:])


GOOD = {"best": 0.5, "nearest": 0.6, "mean": 0.1, "std": 0.2, "files": 40}


@pytest.mark.parametrize("lakes", [
    None, "0.5", {"/other/index": GOOD}, {"/lake/index": 0.5}, {"/lake/index": {**GOOD, "best": "0.5"}},
    {"/lake/index": {**GOOD, "mean": True}}, {"/lake/index": {**GOOD, "std": float("nan")}},
    {"/lake/index": {**GOOD, "best": 7.0}}, {"/lake/index": {**GOOD, "std": -0.1}}, {"/lake/index": {"best": 0.5}},
    {"/lake/index": {**GOOD, "files": 0}}, {"/lake/index": {**GOOD, "files": 4.5}},
], ids=["none", "not-mapping", "other-lake", "a-number", "text", "bool", "nan", "no-cosine", "negative-spread",
        "incomplete", "no-files", "files-not-a-count"])
def test_a_lake_similarity_this_agent_cannot_use_is_ignored(lakes):
    meta = {META_KEY: {"model": MODEL_NAME, "vector": _unit(), "lakes": lakes}}
    assert similarity_from_meta(meta, "/lake/index") is None
    sent = embedding_meta(_unit(), {"/lake/index": LakeSimilarity(**GOOD)})
    assert similarity_from_meta(sent, "/lake/index") == LakeSimilarity(**GOOD)


def test_the_lake_similarity_is_the_best_over_the_lakes_files_and_their_spread(tmp_path):
    CardVectors.quantize(np.eye(384, dtype=np.float32)[:5]).save(tmp_path)
    query = [0.0] * 384
    query[3], query[7] = 0.8, 0.6
    found = lake_similarity(tmp_path, [query])
    assert found.best == found.nearest == pytest.approx(0.8, abs=0.005) and found.mean == pytest.approx(0.16, abs=0.005)
    assert found.files == 5 and found.std == pytest.approx(0.32, abs=0.005)
    # two standard deviations above the mean, less what the best of five files reaches by chance
    assert found.standing == pytest.approx(2.0 - math.sqrt(2 * math.log(5)), abs=0.05)
    assert lake_similarity(tmp_path / "missing", [query]) is None
    assert lake_similarity(tmp_path, [query[:10]]) is None  # another model's size
    assert lake_similarity(tmp_path, []) is None


def test_the_same_standing_counts_for_less_in_a_bigger_lake():
    """The best of many files stands out further by chance: the standing allows for it, so a gate
    fitted on small lakes does not decline a big lake's requests for how far its best file stands."""
    small = LakeSimilarity(best=0.6, nearest=0.6, mean=0.2, std=0.1, files=20)
    big = small.model_copy(update={"files": 50_000})
    assert small.standing == pytest.approx(4.0 - math.sqrt(2 * math.log(20)))
    assert big.standing < small.standing
    assert LakeSimilarity(best=0.6, nearest=0.6, mean=0.6, std=0.0, files=3).standing == 0.0


def test_a_sentence_nearer_a_file_than_the_whole_request_counts_in_the_spread(tmp_path):
    """`best` stays the whole request's; each file's nearest similarity makes `nearest`, `mean` and `std`."""
    CardVectors.quantize(np.eye(384, dtype=np.float32)[:5]).save(tmp_path)
    whole, sentence = [0.0] * 384, [0.0] * 384
    whole[3], whole[7] = 0.8, 0.6
    sentence[1] = 1.0
    found = lake_similarity(tmp_path, [whole, sentence])
    assert found.best == pytest.approx(0.8, abs=0.005) and found.nearest == pytest.approx(1.0, abs=0.005)
    assert found.mean == pytest.approx(0.36, abs=0.005)  # (1.0 + 0.8) / 5


@pytest.mark.parametrize("method", ["", " Then drop the rows with missing values and sort them by date. "
                                         "Report the mean of each group."], ids=["one-sentence", "three-sentences"])
async def test_an_agent_sent_the_lakes_similarity_weighs_only_its_own_files_alike(demo_config, tmp_path, method):
    """Its files' scores and its gate are those it finds weighing the whole lake itself, for a
    request of one sentence as for one of several (whose sentences are sent too)."""
    from pathlib import Path

    from lakeboard.servers.file_agent.agent import FileAgent
    from lakeboard.servers.file_agent.analysis_store import AnalysisStore
    from lakeboard.servers.file_agent.server import build_server

    config = ClusterConfig.model_validate_json((demo_config / "clusters.json").read_text())
    index = Path(config.relevance_index)
    request = _request(demo_config) + ("." + method if method else "")
    vector = request_embedding(request)
    assert len(vector) == (4 if method else 1)
    lake = lake_similarity(index, vector)
    assert lake is not None
    for cluster in config.clusters:
        agent = FileAgent(config, cluster.name)
        async with Client(build_server(agent, AnalysisStore(tmp_path))) as client:
            async def answer(meta):
                decision = (await client.call_tool("can_help", {"request": request}, meta=meta)).structured_content
                result = (await client.call_tool("respond", {"request": request}, meta=meta)).structured_content
                return decision["confidence"], [(m["path"], m["score"]) for m in result["matches"]]

            alone = await answer(embedding_meta(vector))
            assert await answer(embedding_meta(vector, {str(index): lake})) == alone
            # a best far above the lake's (as no file has) lowers every file: it was used
            if alone[1]:
                assert await answer(embedding_meta(vector, {str(index): lake.model_copy(update={"best": 1.0})})) != alone


async def test_the_blackboard_sends_the_lakes_similarity_with_the_embedding(tmp_path):
    from lakeboard.host.blackboard import Blackboard
    from lakeboard.host.pool import ClientPool, InMemoryServer
    from lakeboard.schemas.messages import BlackboardRequest

    CardVectors.quantize(np.eye(384, dtype=np.float32)[:3]).save(tmp_path)
    seen: list[LakeSimilarity | None] = []
    mcp = FastMCP("a")

    @mcp.tool
    def can_help(request: str, ctx: Context, reason: str = "") -> dict:
        seen.append(similarity_from_meta(ctx.request_context.meta, str(tmp_path)))
        return {"agent_name": "a", "can_help": False, "reason": "no", "confidence": 0.0}

    async with ClientPool({"a": InMemoryServer(mcp)}) as pool:
        await Blackboard(pool, lake_index=tmp_path).post(BlackboardRequest(request=REQUEST))
        await Blackboard(pool).post(BlackboardRequest(request=REQUEST))
    first = np.asarray(request_embedding(REQUEST))[0, :3]  # the similarities to the three files
    assert seen[0].best == pytest.approx(first.max(), abs=0.005) and seen[0].mean == pytest.approx(first.mean(), abs=0.005)
    assert seen[0].std == pytest.approx(first.std(), abs=0.005) and seen[1] is None
