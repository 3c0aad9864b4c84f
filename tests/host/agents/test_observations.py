"""What the main agent sees of a posting."""

from __future__ import annotations

from schemas.board import HelperError, HelperOutcome, Posting
from schemas.messages import BlackboardRequest, FileAgentResponse, HelpDecision, SearchAgentResponse


def outcome(name: str, confidence: float, response=None, error=None, can_help=True) -> HelperOutcome:
    return HelperOutcome(
        helper=name,
        decision=HelpDecision(agent_name=name, can_help=can_help, reason="r", confidence=confidence),
        response=response,
        error=error,
    )


def file_response(name: str, confidence: float, code: str = "df = 1") -> FileAgentResponse:
    return FileAgentResponse(
        agent_name=name, can_help=True, reason=f"{name} has it", files=[f"{name}/a.csv"], code=code,
        data_explanation="columns: a, b", data_sample="a | b", necessary_steps=["skip 3 lines"],
        libraries=["pandas"], confidence=confidence,
    )


def test_responses_most_confident_first_with_code_and_steps():
    from host.agents.observations import render_posting

    posting = Posting(request=BlackboardRequest(request="rain", id="r1"), outcomes=[
        outcome("low", 0.3, file_response("low", 0.3)),
        outcome("high", 0.9, file_response("high", 0.9, code="import pandas as pd\ndf = pd.read_csv('x')")),
        outcome("web", 0.5, SearchAgentResponse(agent_name="web", can_help=True, reason="found", answer="mm of rain",
                                                sources=["docs/rain.md"], confidence=0.5)),
        outcome("no", 0.01, can_help=False),
        outcome("dead", 0.0, error=HelperError(phase="respond", kind="timeout", message="slow")),
    ])
    text = render_posting(posting)
    assert text.startswith("Request r1 posted to 5 helpers; 4 volunteered, 3 responded.")
    assert text.index("== high") < text.index("== web") < text.index("== low")
    assert "```python\nimport pandas as pd\ndf = pd.read_csv('x')\n```" in text
    assert "necessary steps:\n- skip 3 lines" in text and "answer: mm of rain" in text and "sources: docs/rain.md" in text
    assert "Declined: no" in text and "Did not answer: dead (respond: timeout)" in text


def test_long_postings_are_bounded():
    from host.agents.observations import render_posting

    outcomes = [outcome(f"a{i}", 0.9 - i / 100, file_response(f"a{i}", 0.9 - i / 100, code="x = 1\n" * 2000))
                for i in range(8)]
    text = render_posting(Posting(request=BlackboardRequest(request="q"), outcomes=outcomes))
    assert len(text) <= 12_100
    assert "more characters]" in text  # code clipped
    assert text.count("```python") <= 4  # only the most confident get their code shown


def test_no_responses_says_how_to_ask_better():
    from host.agents.observations import render_posting

    text = render_posting(Posting(request=BlackboardRequest(request="q"), outcomes=[outcome("n", 0.0, can_help=False)]))
    assert "No helper could answer" in text and "Declined: n" in text
