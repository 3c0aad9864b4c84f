"""Answer scores with the semantics of KramaBench's official evaluation script, offline.

KramaBench (Lai et al., 2025) scores each task by its `answer_type` with a list of metrics;
its total score is the mean, over every task, of one headline metric per type (a task with
no answer counts 0). Lakeboard computes the same headline metrics:

| answer_type | metric (KramaBench's name) | how | `correct` (ours) when |
| --- | --- | --- | --- |
| numeric_exact, string_exact | success | see `success` below | score == 1 |
| numeric_approximate | rae_score | 1 / (1 + abs(p - t) / abs(t)); 0 when either is not a number, or t is 0 | relative error <= 1% |
| string_approximate | rouge | ROUGE-1 F1 over lower-cased alphanumeric words (no stemming) | normalised text equal, or F1 >= 0.8 |
| list_exact | f1 | F1 of list elements matched as below, exact | F1 == 1 |
| list_approximate | f1_approximate | the same, numbers within 1% relative error | F1 == 1 |

The rules, as KramaBench's metrics apply them:
- success: a number or numeric text ("12.5", " 7 ", "12.5%" read as 12.5; booleans count as
  0 and 1; "1,234" is text) is compared as a number: equal numbers succeed; when either side
  is a float, a zero target needs abs(p) < 1e-6, else a relative error below 1e-6, an
  absolute difference below 1e-6, or one below 1e-4 of the larger magnitude (a rounded
  value) succeeds; two unequal integers fail. Two texts succeed when equal after trimming
  and lower-casing. Anything else succeeds only when equal (so a one-element list is not
  its element).
- rae_score and list numbers read text as numbers with "50%" as 0.5.
- f1: a predicted text is read as a JSON list, then as a Python literal, then split at
  commas. For every target element the first matching predicted element counts it as
  recalled (text targets: equal after trimming and lower-casing `str(p)`; number targets:
  relative error below 1e-6, or 1% for f1_approximate); precision is the share of predicted
  elements that matched some target. An empty target scores 1 only against an empty list;
  a scalar against a list target scores 0.
- A task's `accepted_answers` are alternative targets: the best score counts.

Where KramaBench asks an LLM (the `llm_paraphrase` headline of string_approximate, and
text elements of list_approximate), Lakeboard stays offline and reproducible: ROUGE-1 F1
stands in for the paraphrase judge, and text elements of approximate lists match when
equal after lower-casing and dropping everything but letters and digits. KramaBench's
secondary metrics (bleu, mean absolute and squared error, list precision and recall) are
reported in `details` where they are cheap (absolute and squared error, precision, recall),
not scored. KramaBench's `eval` of predicted text is `ast.literal_eval` here.

A predicted answer given as a program's whole output (`{"answer": x}`,
`{"main-task": x, ...}`, `{"structured_response": ...}`) is unwrapped first.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lakeboard.host.agents.programs import answer_of

ANSWER_TYPES = (
    "numeric_exact",
    "numeric_approximate",
    "string_exact",
    "string_approximate",
    "list_exact",
    "list_approximate",
)
METRICS = {
    "numeric_exact": "success",
    "numeric_approximate": "rae_score",
    "string_exact": "success",
    "string_approximate": "rouge",
    "list_exact": "f1",
    "list_approximate": "f1_approximate",
}
_APPROX_REL = 0.01
_EXACT_LIST_REL = 1e-6
_STRING_APPROX_PASS = 0.8


@dataclass(frozen=True)
class AnswerScore:
    answer_type: str
    metric: str
    score: float
    correct: bool
    details: dict[str, Any] = field(default_factory=dict)


def score_answer(predicted: Any, target: Any, answer_type: str | None, *, accepted: Sequence[Any] = ()) -> AnswerScore:
    """Score `predicted` against the workload's `target` (or its `accepted` alternatives).

    An unknown or missing answer type is inferred from the target (list, number or string).
    """
    kind = answer_type if answer_type in ANSWER_TYPES else _infer_type(target)
    predicted = answer_of(predicted)
    if predicted is None:
        return AnswerScore(kind, METRICS[kind], 0.0, False, {"reason": "no answer"})
    scores = [_score_one(predicted, candidate, kind) for candidate in [target, *accepted]]
    return max(scores, key=lambda s: (s.score, s.correct))


def _score_one(predicted: Any, target: Any, kind: str) -> AnswerScore:
    metric = METRICS[kind]
    if kind in ("numeric_exact", "string_exact"):
        ok = success(predicted, target)
        return AnswerScore(kind, metric, float(ok), ok)
    if kind == "numeric_approximate":
        return _rae_score(predicted, target)
    if kind == "string_approximate":
        p, t = str(predicted), str(target)
        f1 = rouge1_f1(p, t)
        return AnswerScore(kind, metric, round(f1, 6), _normalise(p) == _normalise(t) or f1 >= _STRING_APPROX_PASS)
    f1, details = list_f1(predicted, target, approximate=kind == "list_approximate")
    return AnswerScore(kind, metric, round(f1, 6), f1 == 1.0, details)


def _infer_type(target: Any) -> str:
    if isinstance(target, list):
        return "list_exact"
    if isinstance(target, bool):
        return "string_exact"
    if isinstance(target, (int, float)):
        return "numeric_exact"
    return "string_exact"


# -- numbers --------------------------------------------------------------------------
def to_number(value: Any) -> int | float | None:
    """How `success` reads a value as a number: numbers (booleans too) as they are, text by
    `float()` after trimming and dropping a trailing "%"; None when it is not a number."""
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text.endswith("%"):
            text = text[:-1].strip()
        try:
            return float(text)
        except ValueError:
            return None
    return None


def percent_number(value: Any) -> float | None:
    """How rae_score and list metrics read a value: text by `float()`, "50%" as 0.5."""
    if isinstance(value, bool) or isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip("%")) / 100 if value.endswith("%") else float(value)
        except ValueError:
            return None
    return None


def success(predicted: Any, target: Any) -> bool:
    """KramaBench's `success` (see the module docstring for its rules)."""
    if predicted is None:
        return False
    p, t = to_number(predicted), to_number(target)
    if p is not None and t is not None:
        if p == t:
            return True
        if not (isinstance(p, float) or isinstance(t, float)):
            return False  # two unequal integers
        if t == 0:
            return abs(p) < 1e-6
        diff = abs(p - t)
        return diff / abs(t) < 1e-6 or diff < 1e-6 or diff < max(abs(p), abs(t)) * 1e-4
    if isinstance(predicted, str) and isinstance(target, str):
        return predicted.strip().lower() == target.strip().lower()
    return predicted == target


def _rae_score(predicted: Any, target: Any) -> AnswerScore:
    kind, metric = "numeric_approximate", "rae_score"
    p, t = percent_number(predicted), percent_number(target)
    if p is None or t is None or not math.isfinite(p) or not math.isfinite(t):
        return AnswerScore(kind, metric, 0.0, False, {"reason": "not a number"})
    if t == 0:
        return AnswerScore(kind, metric, 0.0, False, {"reason": "the target is 0, where the relative error is undefined"})
    error = abs(p - t)
    rel = error / abs(t)
    return AnswerScore(
        kind, metric, round(1.0 / (1.0 + rel), 6), rel <= _APPROX_REL,
        {"relative_error": rel, "absolute_error": error, "squared_error": error * error},
    )


# -- lists ----------------------------------------------------------------------------
def list_f1(predicted: Any, target: Any, *, approximate: bool) -> tuple[float, dict[str, Any]]:
    """KramaBench's f1 (exact) or f1_approximate, with precision and recall as details."""
    if isinstance(target, str) and (approximate or isinstance(predicted, list)):
        target = _parse_list_text(target, json_only=True)
    if isinstance(predicted, str) and (approximate or isinstance(target, list)):
        parsed = _parse_list_text(predicted)
        if parsed is None and not approximate:
            parsed = [x.strip() for x in predicted.split(",") if x.strip()]
        predicted = parsed
    if isinstance(predicted, str) and isinstance(target, str):
        return float(predicted.strip().lower() == target.strip().lower()), {}
    if not isinstance(predicted, (list, tuple)) or not isinstance(target, (list, tuple)):
        return 0.0, {"reason": "not a list"}
    if not target:
        return float(not predicted), {}
    matched: set[int] = set()
    recalled = 0
    for t in target:
        for j, p in enumerate(predicted):
            if _element_match(p, t, approximate):
                matched.add(j)
                recalled += 1
                break
    recall = recalled / len(target)
    precision = len(matched) / len(predicted) if predicted else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return f1, {"precision": precision, "recall": recall}


def _parse_list_text(text: str, *, json_only: bool = False) -> list[Any] | None:
    """A list written as JSON (or, unless `json_only`, as a Python literal); None otherwise."""
    for parse in (json.loads,) if json_only else (json.loads, ast.literal_eval):
        try:
            parsed = parse(text.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(parsed, (list, tuple)):
            return list(parsed)
    return None


def _element_match(p: Any, t: Any, approximate: bool) -> bool:
    if isinstance(t, str):
        if approximate:
            return _normalise(str(p)) == _normalise(t)
        return t.strip().lower() == str(p).strip().lower()
    if isinstance(t, (int, float)):
        pn = percent_number(p)
        if pn is None:
            return False
        rel = abs(pn - t) / max(abs(t), 1e-12)
        return rel <= _APPROX_REL if approximate else rel < _EXACT_LIST_REL
    return p == t


# -- text -----------------------------------------------------------------------------
def _normalise(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def rouge1_f1(predicted: str, target: str) -> float:
    """ROUGE-1 F1 (unigram overlap) over lower-cased alphanumeric words, as rouge_score's
    default tokenizer splits them."""
    p, t = Counter(_words(predicted)), Counter(_words(target))
    overlap = sum((p & t).values())
    if not overlap:
        return 0.0
    precision = overlap / sum(p.values())
    recall = overlap / sum(t.values())
    return 2 * precision * recall / (precision + recall)
