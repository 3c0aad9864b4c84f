"""A final program's JSON answer and the lake files it reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakeboard.host.agents.programs import NoJSONOutput, answer_of, data_sources_in, parse_program_output, subtask_answers


def test_the_last_json_line_is_the_output():
    assert parse_program_output('loading...\n{"answer": 13}\n') == {"answer": 13}
    assert parse_program_output('{"answer": 1}\nmore prose\n{"answer": 2}\n\n') == {"answer": 2}
    assert parse_program_output("rows: 5\n42\n") == 42
    assert parse_program_output('["AQ01", "AQ05"]') == ["AQ01", "AQ05"]
    assert parse_program_output('{\n  "answer": "Noise"\n}\n') == {"answer": "Noise"}  # indented JSON
    assert answer_of({"answer": [1, 2]}) == [1, 2] and answer_of(7) == 7


def test_indented_json_printed_after_other_output_is_found():
    printed = 'rows: 120\nDone loading.\n{\n    "subtask-1": 3,\n    "main-task": 17584234\n}\n'
    output = parse_program_output(printed)
    assert output == {"subtask-1": 3, "main-task": 17584234}
    assert answer_of(output) == 17584234 and subtask_answers(output) == {"subtask-1": 3}
    nested = 'x\n[\n    {\n        "id": "main-task",\n        "answer": [\n            1,\n            2\n        ]\n    }\n]\n'
    assert answer_of(parse_program_output(nested)) == [1, 2]  # the inner lines are not values of their own
    assert parse_program_output("2024-01-05 loaded\n7\n") == 7  # a date is not the number 2024
    with pytest.raises(NoJSONOutput):
        parse_program_output("2024-01-05 loaded\n")


def test_the_papers_structured_response_is_understood():
    output = {"structured_response": {"id": "main-task", "answer": "Noise",
                                      "subtasks": [{"id": "subtask-1", "answer": 4}]}}
    assert answer_of(output) == "Noise" and subtask_answers(output) == {"subtask-1": 4}


def test_no_json_tells_the_model_what_to_print():
    with pytest.raises(NoJSONOutput) as caught:
        parse_program_output("The answer is Noise\n")
    message = str(caught.value)
    assert 'print(json.dumps({"answer": ...}))' in message and "The answer is Noise" in message
    with pytest.raises(NoJSONOutput, match="printed: \\(nothing\\)"):
        parse_program_output("")


def test_data_sources_named_in_a_program():
    root = Path("/lakes/demo")
    paths = ["a/x.csv", "a/y.csv", "b/z.json", "c.txt"]
    code = (
        "df = pd.read_csv('/lakes/demo/a/x.csv')\n"
        'z = json.load(open(lake / "b/z.json"))\n'
        "frames = [pd.read_csv(p) for p in (lake / 'a').glob('*.csv')]\n"
        "other = '/elsewhere/c.txt'\n"
    )
    assert data_sources_in(code, root, paths) == ["a/x.csv", "b/z.json", "a/y.csv"]
