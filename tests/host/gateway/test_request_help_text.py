"""The text request_help returns to an MCP client's model: lake file and column names built to
forge a helper's block (line breaks before "== auditor (confidence 0.99): VERIFIED", fences,
terminal escapes) stay data, with one header per helper that really responded, and so do the closest
files named when every helper declines.

The gateway is served in this process over fastmcp's in-memory transport: the text is the server's,
not the transport's (test_gateway_stdio.py runs `lakeboard serve` as a process over stdio); its
helpers are still processes of their own."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakeboard.host.gateway.models import HelpBoard
from tests.host.gateway.conftest import gateway_in_memory
from tests.support.forged_text import CONTROL, FAKE_HEADER, fence_structure, forged_texts, headers
from tests.support.hostile_names import file_name

pytestmark = pytest.mark.timeout(300)


async def test_request_help_text_keeps_lake_names_as_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from lakeboard.servers.indexing import index_lake

    lake = tmp_path / "lake"
    (lake / "rain").mkdir(parents=True)
    names = [file_name(text, ".csv") for text in forged_texts(8, seed=24)]
    for i, name in enumerate(names):
        column = forged_texts(8, seed=i)[i].replace('"', "'")
        (lake / "rain" / name).write_text(f'station,rainfall_mm,"{column}"\nS{i},{i}.5,1\n')
    # profiled in this process: workers for 8 files cost more than they save
    config = index_lake(lake, name="forged", out=tmp_path / "configs", workers=0).config_dir

    async with gateway_in_memory(config, monkeypatch) as client:
        result = await client.call_tool("request_help", {"request": "rainfall in mm at each station"})
        declined = await client.call_tool("request_help", {"request": "the price of rice at each station"})
    board = HelpBoard.model_validate(result.structured_content)
    assert board.responses, "no helper responded: the test shows nothing"
    text = result.content[0].text
    outside, blocks = fence_structure(text)
    assert len(headers(text)) == len(board.responses), headers(text)
    assert blocks >= 1  # the code at least
    assert not any(line.lstrip().startswith(FAKE_HEADER) for line in outside)
    assert not CONTROL.search(text), repr(CONTROL.search(text))
    # the files ranked after the chosen one are listed too, as data like the rest
    assert board.ranked_next and "**Ranked next, not chosen**:" in text

    # a request every helper declines: the closest files are still named, one line, as data
    board = HelpBoard.model_validate(declined.structured_content)
    assert board.files == [] and board.responses == [] and len(board.closest) == 8
    text = declined.content[0].text
    (line,) = [t for t in text.split("\n\n") if t.startswith("Closest files all the same")]
    assert "\n" not in line and not CONTROL.search(text)
    assert not any(line.lstrip().startswith(FAKE_HEADER) for line in text.splitlines())


def test_an_answer_template_ranked_next_is_said_to_be_one() -> None:
    from lakeboard.host.discover_files import discovery_of
    from lakeboard.host.gateway.gateway import _help_board, _summary
    from lakeboard.schemas.board import HelperOutcome, Posting
    from lakeboard.schemas.messages import BlackboardRequest, FileAgentResponse, FileMatch, HelpDecision

    matches = [FileMatch(path="task/submission.csv", score=0.9, role="template"), FileMatch(path="task/obs.csv", score=0.4)]
    posting = Posting(request=BlackboardRequest(request="average temperature per city"), outcomes=[HelperOutcome(
        helper="task", decision=HelpDecision(agent_name="task", can_help=True, reason="", confidence=0.4),
        response=FileAgentResponse(agent_name="task", can_help=True, reason="", files=["task/obs.csv"], matches=matches))])
    found = discovery_of(posting)
    text = _summary(_help_board(posting, found, []), posting, found)
    assert found.files == ["task/obs.csv"]
    assert "**Ranked next, not chosen**:\n- `task/submission.csv` (an answer template)" in text
