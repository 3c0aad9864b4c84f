"""The part of a request that says what data it needs.

Questions carry instructions about the answer ("Round to 2 decimal places.", "Answer as
YYYY-MM-DD.", "Give the crane number."): their words describe the output, not the data,
and placeholder words such as YYYY are rare enough in a lake to outweigh everything else.
"""

from __future__ import annotations

import re

_SENTENCE = re.compile(r"[^.?!\n]+[.?!\n]*")
# a sentence that starts with one of these words instructs about the answer
_INSTRUCTION = re.compile(
    r"(?i)^\s*[-*(]*\s*(answer|round|rounded|give|express|format|respond|return|provide|output|print|report\s+(?:the|your)\s+answer|"
    r"your\s+answer|the\s+answer|no\s+explanation|only\s+answer|please)\b"
)
_SENTENCE_WORDS = 3  # shorter sentences ("See above.") say nothing of the data
MAX_SENTENCES = 16  # of a longer request, its first: each sentence costs the host a pass of the model
_PLACEHOLDER = re.compile(r"(?i)\b(?:yyyy|yy|mm|dd|hh|ss)(?:[-/:.](?:yyyy|yy|mm|dd|hh|ss))+\b|\byyyymmdd\b")


def data_part(request: str) -> str:
    """The request without its sentences about the answer's form, and without placeholders."""
    sentences = _SENTENCE.findall(request) or [request]
    kept = [s for i, s in enumerate(sentences) if i == 0 or not _INSTRUCTION.match(s)]
    return _PLACEHOLDER.sub(" ", "".join(kept))


def data_sentences(data: str) -> list[str]:
    """The sentences of a request's data part (`data_part`) of three words or more, where it has two
    or more of them (else none).

    A long request asks for its data in one sentence and says how to work on it in the others;
    its embedding as a whole is diluted by the method, and one sentence of it may still be near
    a file. Cross-validated on the real lakes, the gate reading the nearest of the whole and its
    sentences (benchmarks/fit_relevance.py) passed more of the long questions a lake can answer.
    """
    found = [s.strip() for s in _SENTENCE.findall(data)]
    found = [s for s in found if len(s.split()) >= _SENTENCE_WORDS]
    return found[:MAX_SENTENCES] if len(found) >= 2 else []
