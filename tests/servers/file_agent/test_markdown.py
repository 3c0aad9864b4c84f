"""A file agent's text content: short Markdown that lake text cannot break out of."""

from __future__ import annotations

import re

from lakeboard.schemas.messages import FileAgentResponse, FileMatch, HelpDecision
from lakeboard.servers.file_agent import markdown
from tests.support.hostile_names import hostile_names

SEPARATORS = ("\r", "\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x00")  # besides our own "\n"


def _response(files: list[str], code: str = "data = 1\n", steps: list[str] = (), group: str | None = None) -> FileAgentResponse:
    return FileAgentResponse(
        agent_name="sensors", can_help=True, reason=f"{files[0]} matches pm25", files=files, code=code,
        necessary_steps=list(steps), confidence=0.7,
        matches=[FileMatch(path=f, score=0.7, matched_terms=["pm25"], group=group) for f in files],
        term_weights={"pm25": 0.9},
    )


def test_the_text_names_files_code_and_steps_but_no_scoring():
    files = [f"air/readings_2024-{m:02d}.csv" for m in range(1, 13)]
    text = markdown.response(_response(files, "import pandas as pd\ndata = pd.read_csv('x')\n",
                                       ["skip the 3 lines above the header"], group="series:readings"), "sensors")
    assert text.startswith("**Partition `sensors` can help** (confidence 0.70)")
    assert "- `air/readings_2024-01.csv` and 11 more files of the same layout" in text
    assert "```python\nimport pandas as pd\ndata = pd.read_csv('x')\n```" in text
    assert "- skip the 3 lines above the header" in text
    assert "term_weights" not in text and "0.9" not in text and "matched_terms" not in text


def test_a_declining_decision_is_one_line():
    text = markdown.decision(HelpDecision(agent_name="a", can_help=False, reason="none of my files\ncovers it",
                                          confidence=0.01), "budget")
    assert text == "**Partition `budget` cannot help** (confidence 0.01): none of my files covers it"


def test_hostile_names_stay_on_their_line_and_the_code_in_its_block():
    for name in hostile_names(60, seed=19, nul=True) + ["a```b", "`x`", "````"]:
        # A model may write a fence line into its code; lake names sit in literals and comments.
        code = f"data = load({name!r})  # ```\n```\nmore = 1\n"
        text = markdown.response(_response([name], code, [f"{name}: the header is on row 2"]), name)
        # Outside the code block every line is one of ours: lake text has no line break left.
        fence = re.search(r"^(`{3,})python$", text, re.M).group(1)
        before, block, after = re.split(rf"^{fence}(?:python)?$", text, flags=re.M)
        assert block == f"\n{code.strip()}\n"  # the code exactly as written, and its fence closes it
        for line in (before + after).splitlines():
            assert line == "" or line.startswith(("**", "- ")), repr(line)
        assert not any(sep in before + after for sep in SEPARATORS)
        (file_line,) = [line for line in before.splitlines() if line.startswith("- `")]
        assert file_line.count("`") == 2  # the name is one code span


def test_a_files_copies_are_named_on_its_line_whatever_their_names():
    for name in hostile_names(20, seed=23, nul=True) + ["a```b"]:
        answer = _response(["fires.csv"])
        answer.matches[0].copies = [name, "old/fires.csv"]
        text = markdown.response(answer, "fires")
        (file_line,) = [line for line in text.splitlines() if line.startswith("- `")]
        assert file_line.startswith("- `fires.csv` (the same bytes as `") and file_line.endswith("`old/fires.csv`)")
        assert not any(sep in text for sep in SEPARATORS)
