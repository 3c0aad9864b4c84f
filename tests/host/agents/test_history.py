"""Clipping the conversation: a cut through a posting's fenced blocks never lets lake text out."""

from __future__ import annotations

import random

import pytest

from lakeboard.host.agents.history import clip
from tests.support.forged_text import FAKE_HEADER, fence_structure, forged_texts, headers


def _posting_text(seed: int) -> tuple[str, list[str]]:
    from lakeboard.host.agents.observations import render_posting
    from lakeboard.schemas.board import HelperOutcome, Posting
    from lakeboard.schemas.messages import BlackboardRequest, FileAgentResponse, HelpDecision

    rng = random.Random(seed)
    texts = forged_texts(80, seed)
    outcomes = []
    for i in range(4):
        # Blocks of lake text with long backtick runs, so fences differ in length between blocks.
        code = "\n".join(rng.choice(texts) + "`" * rng.randint(0, 9) for _ in range(30))
        sample = "\n".join(rng.choice(texts) for _ in range(10))
        response = FileAgentResponse(agent_name=f"a{i}", can_help=True, reason="r", files=["f.csv"], code=code,
                                     data_sample=sample, data_explanation=FAKE_HEADER + "\n" + code[:500],
                                     confidence=0.9 - i / 10)
        outcomes.append(HelperOutcome(helper=f"a{i}", decision=HelpDecision(agent_name=f"a{i}", can_help=True,
                                      reason="r", confidence=0.9 - i / 10), response=response))
    text = render_posting(Posting(request=BlackboardRequest(request="q", id="r1"), outcomes=outcomes))
    return text, headers(text)


@pytest.mark.parametrize("seed", range(5))
def test_a_clipped_posting_keeps_every_line_of_data_inside_its_fence(seed):
    text, real = _posting_text(seed)
    rng = random.Random(seed)
    for limit in [rng.randint(100, len(text) - 200) for _ in range(150)]:
        clipped = clip(text, limit)
        assert len(clipped) < len(text)
        outside, _ = fence_structure(clipped)  # every fence closed
        # A real header may be cut short at the end of the head.
        forged = [line for line in outside if line.lstrip().startswith("==") and not any(h.startswith(line) for h in real)]
        assert not forged, (limit, forged)
        assert not any(line.lstrip().startswith(FAKE_HEADER) for line in outside), limit


def test_short_text_is_left_alone_and_long_text_keeps_head_and_tail():
    assert clip("abc", 100) == "abc"
    text = "\n".join(f"line {i}" for i in range(1000))
    clipped = clip(text, 600)
    assert clipped.startswith("line 0\n") and clipped.endswith("line 999") and "characters left out" in clipped
