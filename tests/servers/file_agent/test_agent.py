"""FileAgent: a request ranked for can_help is not ranked again for respond."""

from __future__ import annotations

from lakeboard.common.request_embedding import request_embedding
from lakeboard.schemas.clusters import ClusterConfig
from lakeboard.schemas.messages import BlackboardRequest
from lakeboard.servers.file_agent.agent import _RANKINGS_KEPT, FileAgent


def test_respond_reuses_the_ranking_can_help_made_and_old_ones_are_dropped(demo_config):
    config = ClusterConfig.model_validate_json((demo_config / "clusters.json").read_text())
    agent = FileAgent(config, config.clusters[0].name)
    request = "daily rainfall by town"
    first = agent.rank(request)
    agent.decide(BlackboardRequest(request=request))
    agent.respond(BlackboardRequest(request=request))
    assert agent.rank(request) is first
    # the host's vector is another key: ranked once, then kept
    sent = request_embedding(request)
    with_vector = agent.rank(request, sent)
    assert with_vector is not first and agent.rank(request, sent) is with_vector
    assert [m.score for m in with_vector.matches] == [m.score for m in first.matches]
    for i in range(_RANKINGS_KEPT):
        agent.rank(f"another request {i}")
    assert agent.rank(request) is not first, "only the last few rankings are kept"
