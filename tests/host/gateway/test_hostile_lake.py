"""A lake whose file names hold line breaks, quotes, '#', '?' and '%': the gateway lists them on one
line each and reads each file's sample from its file agent by its exact name.

The gateway is served in this process over fastmcp's in-memory transport (test_gateway_helpers.py's
gateway_in_memory). The names still cross a stdio channel whole: the file agent, a process of its own, answers
over the stdio transport `lakeboard serve` uses too (common/stdio_transport.py)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest

from lakeboard.host.gateway.models import HelpBoard
from tests.host.gateway.conftest import gateway_in_memory
from tests.support.hostile_names import file_name, hostile_names

pytestmark = pytest.mark.timeout(300)

BREAKS = ("\r", "\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c")


def hostile_file_names() -> list[str]:
    names = [file_name(n, ".csv") for n in hostile_names(10, seed=1919)]
    return names + ["a b#c?d%25e.csv", "ünïcode 'quoted' \"double\".csv"]


async def test_hostile_file_names_through_the_gateway(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from lakeboard.servers.indexing import index_lake

    lake = tmp_path / "lake"
    (lake / "rain").mkdir(parents=True)
    names = hostile_file_names()
    for i, name in enumerate(names):
        (lake / "rain" / name).write_text(f"station,rainfall_mm\nS{i},{i}.5\n")
    # Profiled in this process: two profiling workers for twelve one-line files cost more than they save.
    config = index_lake(lake, name="hostile", out=tmp_path / "configs", workers=0).config_dir

    async with gateway_in_memory(config, monkeypatch) as client:
        overview = (await client.read_resource("lakeboard://lake"))[0].text
        assert not any(b in overview for b in BREAKS)
        for name in names:
            path = f"rain/{name}"
            sample = (await client.read_resource(f"lakeboard://files/{quote(path, safe='/')}"))[0].text
            assert "rainfall_mm" in sample, name

        result = await client.call_tool("request_help", {"request": "rainfall in mm at each station"})
        board = HelpBoard.model_validate(result.structured_content)
        assert set(board.files) <= {f"rain/{n}" for n in names} and board.files
        ranked = result.content[0].text.split("\n\n")[0]
        assert ranked.startswith("**Files the blackboard ranks best**:")
        assert all(line.startswith("- `") and line.count("`") == 2 for line in ranked.splitlines()[1:])
        assert not any(b in ranked for b in BREAKS)
