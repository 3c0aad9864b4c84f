"""The lake-wide confidence scale means the same on both sides of the process boundary."""

from __future__ import annotations

from lakeboard.common.confidence import EVIDENCE_FLOOR, RELATIVE_SHARE
from lakeboard.host.file_selection import SelectionPolicy, select_files
from lakeboard.schemas.messages import FileMatch
from lakeboard.servers.file_agent.agent import AgentPolicy


def test_file_agents_and_the_host_read_one_scale():
    assert AgentPolicy().volunteer_at == SelectionPolicy().floor == EVIDENCE_FLOOR
    assert AgentPolicy().relative == SelectionPolicy().relative == RELATIVE_SHARE


def test_the_host_keeps_a_file_exactly_when_its_agent_would_volunteer_for_it():
    weights = {"rain": 1.0, "river": 1.0}
    for score in (EVIDENCE_FLOOR - 0.001, EVIDENCE_FLOOR, EVIDENCE_FLOOR + 0.001):
        kept = select_files([FileMatch(path="rain.csv", score=score, matched_terms=["rain"])], weights)
        assert bool(kept) == (score >= AgentPolicy().volunteer_at)
