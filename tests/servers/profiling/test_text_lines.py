"""TextLines: the lines of a text as split("\\n") gives them, cut out only when asked for."""

from __future__ import annotations

import random

import pytest

from lakeboard.servers.profiling.text_lines import TextLines


def _split(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


TEXTS = [
    "",
    "\n",
    "\n\n\n",
    "a,b\n1,2\n",
    "a,b\n1,2",  # no line end after the last line
    "title\n\n  \n,,,\na,b\n1,2\n\n",
    "名前,値\n東京,1\n\n",  # beyond Latin-1
    "ça,é\n\n1,2\n",  # Latin-1, not ASCII
    '"a","b"\n"1","2"\n""\n',  # every line starts with a quote
]


@pytest.mark.parametrize("text", TEXTS)
def test_lines_match_split_and_blank_lines_match_strip(text: str) -> None:
    lines, ref = TextLines(text), _split(text)
    assert len(lines) == len(ref)
    assert list(lines) == ref and lines[:] == ref and lines[1:3] == ref[1:3]
    assert [lines[i] for i in range(len(ref))] == ref
    if ref:
        assert lines[-1] == ref[-1]
    assert lines.take(list(range(len(ref)))[::-1]) == ref[::-1]
    chars = ' \t"\','
    assert lines.blank_lines(chars) == [k for k, ln in enumerate(ref) if not ln.strip(chars)]
    assert [lines.offset(k) for k in range(len(ref) + 1)] == [sum(len(ln) + 1 for ln in ref[:k]) for k in range(len(ref) + 1)]


def test_random_texts_agree_with_split() -> None:
    rng = random.Random(7)
    alphabet = ["a", "1", ",", " ", "\t", '"', "'", "\n", "\n", "é", "€"]
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 60)))
        lines, ref = TextLines(text), _split(text)
        assert list(lines) == ref and lines[:] == ref
        assert lines.blank_lines(" \t,") == [k for k, ln in enumerate(ref) if not ln.strip(" \t,")]


def test_an_index_past_the_end_is_an_index_error() -> None:
    with pytest.raises(IndexError):
        TextLines("a\nb\n")[2]
    assert TextLines("a\nb\n")[5:9] == []


def test_of_lines_rebuilds_them() -> None:
    assert list(TextLines.of(["x", "", "y"])) == ["x", "", "y"]


@pytest.mark.parametrize("text", TEXTS + ["a,b\n1,2\na,b\nxa,b\na,b,c\na,b"])
def test_find_gives_the_lines_equal_to_one(text: str) -> None:
    lines, expected = TextLines(text), _split(text)
    for line in set(expected):
        for start, stop in ((0, len(expected)), (1, len(expected) - 1)):
            want = [k for k in range(start, stop) if expected[k] == line]
            assert lines.find(line, start, stop) == want, (line, start, stop)
