"""The request's embedding: made once by the host, sent in a call's _meta, used by file agents."""

from __future__ import annotations

import numpy as np
import pytest
from fastmcp import Client, Context, FastMCP

from lakeboard.common.minilm import MODEL_NAME, embed
from lakeboard.common.request_embedding import (
    META_KEY,
    embedding_from_meta,
    embedding_meta,
    embedding_text,
    request_embedding,
)
from lakeboard.schemas.clusters import ClusterConfig

REQUEST = "Daily rainfall in Ashford in 2023. Round the answer to 2 decimal places."


def test_the_vector_is_the_models_embedding_of_the_requests_data_part():
    vector = request_embedding(REQUEST)
    assert "Round" not in embedding_text(REQUEST)
    assert np.allclose(vector, embed([embedding_text(REQUEST)])[0], atol=1e-6)
    assert np.allclose(embedding_from_meta(embedding_meta(vector)), vector, atol=0)


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
], ids=["none", "empty", "not-mapping", "other-model", "short", "nan", "bool", "text", "not-unit", "not-list"])
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

    seen: list[tuple[str, list[float] | None]] = []

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
    sent = [v for _, v in seen[:3]]
    assert sorted(n for n, _ in seen[:3]) == ["a", "b", "c"]
    assert all(v is not None and np.allclose(v, request_embedding(REQUEST), atol=1e-6) for v in sent)
    assert [v for _, v in seen[3:]] == [None, None, None]
