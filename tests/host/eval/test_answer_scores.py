"""KramaBench answer-type scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lakeboard.host.eval.answer_scores import rouge1_f1, score_answer, success, to_number

KRAMABENCH = Path(__file__).resolve().parents[4] / "shared" / "kramabench"


@pytest.mark.parametrize(
    ("predicted", "target", "ok"),
    [
        (17584234, 17584234, True),
        (17584234.0, 17584234, True),
        ("17584234", 17584234, True),
        ("17,584,234", 17584234, False),  # float() does not read thousands separators: text, not a number
        (17584235, 17584234, False),  # two unequal integers
        ("17584235", 17584234, True),  # ... but numeric text is a float, within 1e-4 of the magnitude
        (310557.07, 310557.07, True),
        (310557.0700001, 310557.07, True),  # float noise
        (12.42, 12.4201, True),  # within 1e-4 of the magnitude (KramaBench's rounding allowance)
        (12.42, 12.4237, False),  # ... and no further
        (12.5, 12.42, False),
        ("6.83%", 6.83, True),  # success drops the percent sign and keeps the number
        ("6.83%", 0.0683, False),
        (0.0, 0.0, True),
        (1e-9, 0, True),
        (None, 5, False),
        ({"answer": 13}, 13, True),  # a program's {"answer": x} output
        ({"main-task": 17584234, "subtask-1": 3}, 17584234, True),  # KramaBench's and the paper's format
        ({"structured_response": {"id": "main-task", "answer": 13}}, 13, True),  # the paper's key
        ([{"id": "subtask-1", "answer": 2}, {"id": "main-task", "answer": 13}], 13, True),
        ([13], 13, False),  # a one-element list is not its element
        (True, 1, True),  # booleans are the numbers 0 and 1, as in Python
    ],
)
def test_numeric_exact_is_kramabench_success(predicted, target, ok):
    score = score_answer(predicted, target, "numeric_exact")
    assert score.correct is ok and score.score == float(ok) and score.metric == "success"


def test_the_issue_example_scores_one():
    assert score_answer({"main-task": 17584234}, 17584234, None).score == 1.0


@pytest.mark.parametrize(
    ("predicted", "target", "ok"),
    [("Noise", "Noise", True), (" noise ", "Noise", True), ("AQ02", "AQ2", False),
     ("2024-01", "2024-01", True), (2020, "2020", True), ("University Line", "University", False)],
)
def test_string_exact(predicted, target, ok):
    assert score_answer(predicted, target, "string_exact").correct is ok


def test_numeric_approximate_is_the_rae_score():
    close = score_answer(5.02, 5.0, "numeric_approximate")
    assert close.correct and close.score == pytest.approx(1 / 1.004) and close.details["relative_error"] == pytest.approx(0.004)
    assert close.metric == "rae_score" and close.details["squared_error"] == pytest.approx(0.0004)
    far = score_answer(6.0, 5.0, "numeric_approximate")
    assert not far.correct and far.score == pytest.approx(1 / 1.2)
    assert score_answer("n/a", 5.0, "numeric_approximate").score == 0.0
    assert score_answer("50%", 0.5, "numeric_approximate").score == 1.0  # here "50%" is 0.5
    assert score_answer(0.0, 0.0, "numeric_approximate").score == 0.0  # RAE is undefined at 0, as in KramaBench


def test_accepted_answers_count_their_best_score():
    assert score_answer(7, 5, "numeric_exact", accepted=[7]).correct
    assert score_answer(5.5, 5.0, "numeric_approximate", accepted=[5.4]).score == pytest.approx(1 / (1 + 0.1 / 5.4))


def test_list_exact_f1_precision_recall():
    exact = score_answer(["AQ01", "AQ05", "AQ10"], ["AQ01", "AQ05", "AQ10"], "list_exact")
    assert exact.correct and exact.score == 1.0
    missing = score_answer(["aq01", "AQ05"], ["AQ01", "AQ05", "AQ10"], "list_exact")
    assert not missing.correct and missing.score == 0.8
    assert missing.details == {"precision": 1.0, "recall": pytest.approx(2 / 3)}
    extra = score_answer(["AQ01", "AQ05", "AQ10", "AQ11"], ["AQ01", "AQ05", "AQ10"], "list_exact")
    assert extra.details["precision"] == 0.75 and extra.details["recall"] == 1.0
    # Lists given as text: JSON, Python literals, or comma-separated.
    assert score_answer('["AQ01", "AQ05", "AQ10"]', ["AQ01", "AQ05", "AQ10"], "list_exact").correct
    assert score_answer("AQ01, AQ05, AQ10", ["AQ01", "AQ05", "AQ10"], "list_exact").correct
    assert score_answer([6.326, 0.787], [6.326, 0.787], "list_exact").correct
    assert not score_answer([6.33, 0.787], [6.326, 0.787], "list_exact").correct
    # Every target element looks for its first match, as KramaBench's f1 does.
    assert score_answer(["a", "a"], ["a", "b"], "list_exact").score == 0.5
    assert score_answer(["a"], ["a", "a"], "list_exact").score == 1.0
    assert score_answer(5, [5], "list_exact").score == 0.0  # a scalar is not a list
    assert score_answer([], [], "list_exact").score == 1.0
    assert score_answer(["12.5%"], [0.125], "list_exact").correct  # list numbers read "%" as a share


def test_list_approximate_allows_one_percent():
    assert score_answer([6.33, 0.79], [6.326, 0.787], "list_approximate").correct
    assert not score_answer([6.5, 0.79], [6.326, 0.787], "list_approximate").correct
    assert score_answer(["Great-Basin"], ["great basin"], "list_approximate").correct  # stands in for the judge
    assert score_answer("a, b", ["a", "b"], "list_approximate").score == 0.0  # no comma split here


def test_string_approximate_by_word_overlap():
    assert score_answer("Great Basin", "Great Basin Area", "string_approximate").correct  # F1 0.8
    assert score_answer("great-basin area", "Great Basin Area", "string_approximate").score == 1.0
    assert score_answer("Great Basin", "Great Basin Area", "string_approximate").metric == "rouge"
    partial = score_answer("the Northwest in 2020", "Northwest, 2020", "string_approximate")
    assert partial.score == pytest.approx(rouge1_f1("the Northwest in 2020", "Northwest, 2020"))
    assert not partial.correct
    assert not score_answer("Yes", "No", "string_approximate").correct


def test_unknown_answer_types_are_inferred_from_the_target():
    assert score_answer([1, 2], [1, 2], None).metric == "f1"
    assert score_answer(3, 3, "numeric").metric == "success"
    assert score_answer("x", "X", "").correct


def test_helpers():
    assert to_number("1234.5") == 1234.5 and to_number("50%") == 50.0 and to_number("abc") is None
    assert to_number("1,234") is None and to_number(" 7 ") == 7.0
    assert success("Hillcrest", "hillcrest") and not success([1], 1) and success([1, 2], [1, 2])
    assert not success(5, "five")


def test_every_kramabench_reference_answer_scores_perfectly_against_itself():
    workloads = sorted((KRAMABENCH / "workload").glob("*.json"))
    if not workloads:
        pytest.skip(f"KramaBench data not found at {KRAMABENCH}")
    for path in workloads:
        for task in json.loads(path.read_text()):
            score = score_answer(task["answer"], task["answer"], task["answer_type"])
            assert score.correct and score.score == 1.0, (task["id"], task["answer"])
