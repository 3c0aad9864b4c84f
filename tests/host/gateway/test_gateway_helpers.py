"""`lakeboard serve` while its helpers change: a servers.d entry added during the session is used, one
removed is dropped, and a helper killed mid-request is reported while the gateway carries on. That the
gateway's helpers are forks of one fork server however python is spelled is checked on the demo gateway in
test_gateway_stdio.py.

The gateway is the one `lakeboard serve` builds (with its trace), served in this process over fastmcp's
in-memory transport: what is tested is the gateway's, not the transport's, and its helpers and kernel are
still processes of their own. `lakeboard serve` over stdio, as a process, is tested in test_gateway_disk.py
and tests/e2e/test_gateway.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
import uuid
from pathlib import Path

import psutil
import pytest

from lakeboard.host.gateway.models import HelpBoard, Partitions
from lakeboard.schemas.execution import ExecutionResult
from tests.host.gateway.conftest import gateway_in_memory, keep_only, trace_events
from tests.support.servers import toy_entry

pytestmark = pytest.mark.timeout(300)

REQUEST = "daily PM2.5 readings of the air quality sensors in 2024"


def drop_in(config: Path, name: str, entry: dict) -> Path:
    path = config / "servers.d" / f"{name}.json"
    path.write_text(json.dumps({"mcpServers": {name: entry}}))
    return path


async def help_board(client, request: str = REQUEST) -> HelpBoard:
    return HelpBoard.model_validate((await client.call_tool("request_help", {"request": request})).structured_content)


async def wait_for(predicate, timeout_s: float = 60.0):
    deadline = time.monotonic() + timeout_s
    while not (found := predicate()):
        assert time.monotonic() < deadline, "not reached in time"
        await asyncio.sleep(0.1)
    return found


def process_named(name: str) -> psutil.Process | None:
    for process in psutil.process_iter(["cmdline"]):
        cmdline = " ".join(process.info["cmdline"] or []).split()  # a forked helper's title is one string
        if "tests.support.toy_helper" in cmdline and name in cmdline:
            return process
    return None


async def test_servers_d_entries_come_and_go_and_a_killed_helper_is_reported(
        gateway_config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    keep_only(gateway_config, "demo-sensors", "demo-kernel")
    async with gateway_in_memory(gateway_config, monkeypatch) as client:
        assert [o.helper for o in (await help_board(client)).responses] == ["demo-sensors"]

        # A helper dropped into servers.d/ during the session answers the next request.
        extra = drop_in(gateway_config, "extra", toy_entry("extra", "--confidence", "1.0"))
        board = await help_board(client)
        assert [o.helper for o in board.responses] == ["extra", "demo-sensors"]  # most confident first
        assert board.responses[0].response.files == ["extra/data.csv"]
        extra.unlink()
        assert [o.helper for o in (await help_board(client)).responses] == ["demo-sensors"]

        # A helper killed while it answers: the posting reports it, the others' answers stand.
        victim = f"victim-{uuid.uuid4().hex[:8]}"
        victim_file = drop_in(gateway_config, "victim", toy_entry(victim, "--hang-on", "respond"))
        posting = asyncio.ensure_future(help_board(client))
        await wait_for(lambda: any(e["kind"] == "decision" and e["server"] == "victim" for e in trace_events(gateway_config)))
        process = await wait_for(lambda: process_named(victim))
        os.kill(process.pid, signal.SIGKILL)
        board = await posting
        (failure,) = board.failed
        assert (failure.helper, failure.phase, failure.kind) == ("victim", "respond", "died")
        assert [o.helper for o in board.responses] == ["demo-sensors"]

        # The gateway carries on: with the victim's file gone, requests and code run as before.
        victim_file.unlink()
        board = await help_board(client)
        assert [o.helper for o in board.responses] == ["demo-sensors"] and board.failed == []
        ran = await client.call_tool("run_code", {"code": "21 * 2"})
        assert ExecutionResult.model_validate(ran.structured_content).result == "42"


async def test_servers_d_files_unusable_at_start_are_noted_and_a_hanging_helper_costs_one_timeout(
        toy_config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # One gateway of toy helpers for both parts: a second would cost its start and its helpers' first answers.
    timeout_s = 4.0  # ample for a warm toy helper on a loaded machine: only `held` is to time out
    # One bad servers.d file stopped `serve` from starting, a FIFO hung it, a 300 MB file was read whole
    # (issue 24 item 14): now each is skipped with a note, at start as later.
    extra = toy_config / "servers.d"
    drop_in(toy_config, "toy-c", toy_entry("toy-c"))
    os.mkfifo(extra / "pipe.json")
    with open(extra / "huge.json", "wb") as sparse:  # 300 MB that cost no disk
        sparse.write(b'{"mcpServers": {"huge": {"command": "python", "args": ["')
        sparse.truncate(300 * 1024 * 1024)
    (extra / "broken.json").write_text('{"mcpServers": {"toy-d": {"command": ')
    hold = tmp_path / "hold"
    hold.touch()
    async with gateway_in_memory(toy_config, monkeypatch, helper_timeout_s=timeout_s) as client:  # --timeout
        partitions = Partitions.model_validate((await client.call_tool("list_partitions", {})).structured_content)
        assert partitions.other_helpers == ["toy-a", "toy-b", "toy-c"]
        notes = "\n".join(partitions.notes)
        assert len(partitions.notes) == 3 and notes.count("the file is skipped") == 3
        assert "pipe.json: it is a named pipe" in notes and "huge.json: it is larger than" in notes
        assert "broken.json is not valid JSON" in notes
        # The helpers answer once first: on a loaded machine a helper's first call alone can take longer
        # than the timeout, and only the held helper may time out below.
        assert len((await help_board(client, "rainfall per station")).notes) == 3
        board = await help_board(client, "rainfall per station")
        assert board.helpers == 3 and sorted(r.helper for r in board.responses) == ["toy-a", "toy-c"]
        assert len(board.notes) == 3
        overview = (await client.read_resource("lakeboard://lake"))[0].text
        assert "pipe.json: it is a named pipe" in overview

        # A hanging helper costs one timeout, then is skipped until it answers.
        drop_in(toy_config, "held", toy_entry("held", "--hold-while", str(hold)))
        started = time.monotonic()
        first = await help_board(client, "rainfall per station")
        assert time.monotonic() - started >= timeout_s
        assert [(f.helper, f.phase) for f in first.timed_out] == [("held", "can_help")]

        # The next requests do not wait for it: it is named as skipped.
        started = time.monotonic()
        second = await help_board(client, "rainfall per station")
        assert time.monotonic() - started < timeout_s  # waiting for it would take the whole timeout
        (skipped,) = second.skipped
        assert skipped.helper == "held" and skipped.kind == "skipped"
        assert f"did not answer can_help within {timeout_s:g} s last time" in skipped.message
        assert second.helpers == 3 and sorted(o.helper for o in second.responses) == ["toy-a", "toy-c"]  # those asked
        assert second.timed_out == [] and second.failed == []

        # It recovers: its late answer arrives and it answers a ping; the next request asks it again.
        hold.unlink()
        await wait_for(lambda: any(e["kind"] == "server_recovered" and e["server"] == "held"
                                   for e in trace_events(toy_config)))
        third = await help_board(client, "rainfall per station")
        assert sorted(o.helper for o in third.responses) == ["held", "toy-a", "toy-c"] and third.skipped == []

