"""A running gateway notices a changed lake before request_help: re-indexes, restarts the file agents of the
changed partitions only, says so.

One gateway for the whole story, the one `lakeboard serve CONFIG --index-check 0` builds, served in this process
over fastmcp's in-memory transport: what it answers is the gateway's, not the transport's (`lakeboard serve` over
stdio is tested in test_gateway_disk.py and tests/e2e/test_gateway.py), and in this process its pool shows which
file agents were started anew. Its file agents and the indexer it runs are processes of their own."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest
from fastmcp import Client

from lakeboard.host.gateway.models import HelpBoard
from lakeboard.host.lakes import file_agent_partition

pytestmark = pytest.mark.timeout(300)

GLACIERS = "glacier melt in millimetres per glacier and year"
# The indexer's options, recorded with the index, so the gateway re-indexes with them too: profiled in the
# indexer's process (a profiling worker for the one changed file costs more than it saves).
INDEX_ARGS = ["--strategy", "directory", "--workers", "0"]


def _lake(root: Path) -> Path:
    """Two partitions of one folder each (the directory strategy), with files to spare."""
    lake = root / "lake"
    (lake / "weather").mkdir(parents=True)
    (lake / "transit").mkdir()
    files = {
        "weather/rain_2023.csv": "station,date,rain_mm\nNorth,2023-01-01,3.5\nSouth,2023-01-02,0.0\n",
        "weather/wind_2023.csv": "station,date,wind_kmh\nNorth,2023-01-01,12\nSouth,2023-01-02,30\n",
        "weather/sun_2023.csv": "station,date,sun_hours\nNorth,2023-01-01,2.5\nSouth,2023-01-02,6.0\n",
        "transit/ridership.csv": "line,date,riders\nL1,2023-01-01,1200\nL2,2023-01-01,800\n",
        "transit/delays.csv": "line,date,delay_min\nL1,2023-01-01,4\nL2,2023-01-01,11\n",
    }
    for name, text in files.items():
        (lake / name).write_text(text)
    return lake


async def test_a_changed_lake_is_reindexed_before_request_help_and_only_changed_partitions_agents_restart(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from lakeboard.host.gateway import gateway as gateway_module
    from lakeboard.host.gateway.gateway import Gateway
    from lakeboard.host.gateway.server import build_server
    from lakeboard.host.lakes import Lake
    from lakeboard.servers.indexing import index_lake

    lake = _lake(tmp_path)
    config = index_lake(lake, out=tmp_path / "configs", workers=0, index_args=INDEX_ARGS).config_dir
    current = os.readlink(config / "current")
    gateway = Gateway(Lake(config, lake), index_check_s=0)  # --index-check 0
    async with Client(build_server(gateway), mode="legacy", timeout=180) as client:
        result = await client.call_tool("request_help", {"request": "daily wind speed per station"})
        board = HelpBoard.model_validate(result.structured_content)
        assert "weather/wind_2023.csv" in board.files
        assert not any("re-indexed" in n for n in board.notes)
        assert os.readlink(config / "current") == current  # an unchanged lake: no re-index
        names = {p: n for n, e in gateway.mounts.helpers.items()
                 if (p := file_agent_partition(e, config / "clusters.json"))}
        clients = {p: gateway.pool.client(n) for p, n in names.items()}
        assert await gateway.refresh_index() is None  # unchanged: nothing restarted
        assert all(gateway.pool.client(names[p]) is c for p, c in clients.items())

        (lake / "weather" / "glacier_melt_2024.csv").write_text(
            "glacier,year,melt_mm\nAletsch,2024,1450\nRhone,2024,1720\nGorner,2024,1310\n")
        os.remove(lake / "weather" / "wind_2023.csv")
        result = await client.call_tool("request_help", {"request": GLACIERS})
        board = HelpBoard.model_validate(result.structured_content)
        text = result.content[0].text
        line = "the lake changed since it was indexed (1 file added, 1 removed); re-indexed in "
        assert any(n.startswith(line) for n in board.notes) and line in text
        assert "weather/glacier_melt_2024.csv" in board.files and "glacier_melt_2024.csv" in text
        assert os.readlink(config / "current") != current
        current = os.readlink(config / "current")
        assert gateway.pool.client(names["transit"]) is clients["transit"]  # its partition is as it was
        assert gateway.pool.client(names["weather"]) is not clients["weather"]  # started anew on the new index

        for request in ("daily wind speed per station", "weather readings per station"):
            result = await client.call_tool("request_help", {"request": request})
            assert "wind_2023" not in result.content[0].text
            assert "wind_2023" not in str(result.structured_content)  # a deleted file is never offered
            assert not any("re-indexed" in n for n in HelpBoard.model_validate(result.structured_content).notes)
        assert os.readlink(config / "current") == current

        clients = {p: gateway.pool.client(n) for p, n in names.items()}
        os.remove(lake / "weather" / "rain_2023.csv")
        answer = await gateway.request_help("rain per station")
        assert answer.board.notes[0].startswith("the lake changed since it was indexed (1 file removed)")
        assert "rain_2023" not in answer.text
        assert gateway.pool.client(names["transit"]) is clients["transit"]
        assert gateway.pool.client(names["weather"]) is not clients["weather"]

        gateway.index_check_s = 3600
        (lake / "weather" / "rain_2025.csv").write_text("station,date,rain_mm\nNorth,2025-01-01,1.0\n")
        assert await gateway.refresh_index() is None  # within the interval: not even looked at

        # A look that takes long (as at 50k files, about a second) spaces the next ones out.
        looks = []

        def slow_look(config_dir: Path, root: Path) -> None:
            looks.append(root)
            time.sleep(0.2)

        monkeypatch.setattr(gateway_module, "refresh_index", slow_look)
        gateway.index_check_s = 0.01
        # Once past both the interval and twenty times the last real look, the gateway looks again.
        deadline = time.monotonic() + 30
        while not looks:
            assert time.monotonic() < deadline, "the gateway never looked at the lake again"
            assert await gateway.refresh_index() is None
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)  # twenty times the interval, but not twenty times the look
        assert await gateway.refresh_index() is None
        assert looks == [lake]  # the second came within 20 x 0.2 s of the first
