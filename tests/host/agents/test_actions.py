"""Parsing the main agent's replies into actions, forgiving the usual slips."""

from __future__ import annotations

import json

import pytest

from lakeboard.host.agents.main_agent import parse_action
from lakeboard.host.llm import JSONReplyError
from lakeboard.schemas.agent import AnswerAction, PlanAction, ReasonAction, RequestHelpAction, RunCodeAction


def test_each_action_parses():
    assert parse_action('{"action": "plan", "plan": ["a", "b"]}') == PlanAction(action="plan", plan=["a", "b"])
    assert isinstance(parse_action('{"action": "reason", "reasoning": "hm"}'), ReasonAction)
    help_ = parse_action('{"action": "request_help", "request": "rainfall 2024", "reason": "sum it"}')
    assert isinstance(help_, RequestHelpAction) and help_.reason == "sum it"
    code = parse_action(json.dumps({"action": "run_code", "code": "print(1)", "timeout_s": 30}))
    assert isinstance(code, RunCodeAction) and code.timeout_s == 30
    answer = parse_action(json.dumps({
        "action": "answer", "code": "print(1)",
        "response": {"id": "t1", "query": "q", "data_sources": "a.csv", "subtasks": ["load a", {"query": "sum"}]},
    }))
    assert isinstance(answer, AnswerAction)
    assert answer.response.data_sources == ["a.csv"]
    assert [(s.id, s.query) for s in answer.response.subtasks] == [("subtask-1", "load a"), ("subtask-2", "sum")]


def test_prose_fences_and_other_spellings_are_forgiven():
    text = 'Let me run this.\n```json\n{"action": "Run Code", "python": "x = 1\\nprint(x)"}\n```\nDone.'
    action = parse_action(text)
    assert isinstance(action, RunCodeAction) and action.code == "x = 1\nprint(x)"
    plan = parse_action('{"action": "PLAN", "plan": "1. load\\n2. sum"}')
    assert plan.plan == ["1. load", "2. sum"]
    final = parse_action('{"action": "final_answer", "program": "print(2)", "data_sources": ["b.csv"]}')
    assert isinstance(final, AnswerAction) and final.code == "print(2)" and final.response.data_sources == ["b.csv"]
    nested = parse_action('{"action": {"name": "request-help", "request": "wind speed"}}')
    assert isinstance(nested, RequestHelpAction) and nested.request == "wind speed"
    thought = parse_action('{"action": "reason", "thought": "what next"}')
    assert isinstance(thought, ReasonAction) and thought.reasoning == "what next"


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("I will look at the data first.", "no JSON object"),
        ('{"plan": ["x"]}', 'no "action" field'),
        ('{"action": "dance"}', '"dance" is not an action'),
        ('{"action": "run_code"}', "'run_code' action is missing fields or has wrong ones (code: Field required)"),
        ('{"action": "answer", "code": ""}', "(code: String should have at least 1 character)"),
        ('{"action": "request_help", "request": ""}', "request: String should have at least 1 character"),
    ],
)
def test_unusable_replies_say_what_to_fix(reply, message):
    with pytest.raises(JSONReplyError) as caught:
        parse_action(reply)
    assert message in str(caught.value)
