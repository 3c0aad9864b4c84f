from __future__ import annotations

import pytest
from pydantic import BaseModel

from lakeboard.common.json_replies import JSONReplyError, extract_json_object, parse_json_reply


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('Sure! Here it is:\n```json\n{"a": {"b": [1, 2]}}\n```\nAnything else?', {"a": {"b": [1, 2]}}),
        # A json-labelled block wins over an earlier unlabelled one.
        ('```\n{"x": 0}\n```\n```JSON\n{"x": 1}\n```', {"x": 1}),
        ('The answer is {"code": "if x: {y}", "ok": true} as shown.', {"code": "if x: {y}", "ok": True}),
        ('First {not json at all} then {"real": "one"}', {"real": "one"}),
        ('<think>maybe {"draft": 1}?</think>{"final": 2}', {"final": 2}),
        ('{"a": 1, "b": [1, 2,],}', {"a": 1, "b": [1, 2]}),  # trailing commas
        ("{'a': True, 'b': None, 'c': 'it\\'s'}", {"a": True, "b": None, "c": "it's"}),  # Python literals
        ('```json\n{"unterminated": "fence"}', {"unterminated": "fence"}),
    ],
)
def test_extracts_the_first_object(text, expected):
    assert extract_json_object(text) == expected


def test_no_object_says_so():
    with pytest.raises(JSONReplyError, match="contained no JSON object"):
        extract_json_object("I think the answer is 42.")
    with pytest.raises(JSONReplyError, match="contained no JSON object"):
        extract_json_object("[1, 2, 3]")


def test_broken_object_asks_for_a_valid_one():
    with pytest.raises(JSONReplyError, match="could not be parsed"):
        extract_json_object('{"a": 1, "b": ')


class Decision(BaseModel):
    can_help: bool
    confidence: float


def test_parse_json_reply_validates_and_names_missing_fields():
    assert parse_json_reply('```json\n{"can_help": true, "confidence": 0.5}\n```', Decision) == Decision(
        can_help=True, confidence=0.5
    )
    with pytest.raises(JSONReplyError, match="expected fields \\(confidence: Field required\\)"):
        parse_json_reply('{"can_help": false}', Decision)
