"""The blackboard over helper servers: concurrency, failures, the board and the trace.

Helpers whose answers are tested run in memory; those that die or fail to start are real processes.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest
import pytest_asyncio

from lakeboard.host.blackboard import Blackboard, ResponseBoard
from lakeboard.host.pool import ClientPool, InMemoryServer
from lakeboard.host.trace import Trace, read_trace
from lakeboard.schemas.board import Posting
from lakeboard.schemas.messages import BlackboardRequest, FileAgentResponse, SearchAgentResponse
from tests.support.servers import entries, toy_entry
from tests.support.toy_helper import build_server, parse_args

pytestmark = [
    pytest.mark.timeout(120),
    # The in-memory helpers that return bad output on purpose make fastmcp warn in this process.
    pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning"),
]


def memory_toy(name: str, *flags: str) -> InMemoryServer:
    """The toy helper, run in this process: for what the board does with its answers, not with its process."""
    return InMemoryServer(build_server(parse_args(["--name", name, *flags])))


async def test_posting_waits_for_the_slowest_helper_not_the_sum(tmp_path: Path) -> None:
    delay = ("--delay-ms", "400")
    servers = {
        "s1": memory_toy("s1", *delay, "--confidence", "0.9"),
        "s2": memory_toy("s2", *delay),
        "web1": memory_toy("web1", *delay, "--kind", "search"),
        "web2": memory_toy("web2", *delay),
        "kernel": memory_toy("kernel", "--not-helper"),
    }
    trace = Trace(tmp_path / "trace.jsonl")
    async with ClientPool(servers, trace=trace) as pool:
        board = Blackboard(pool, trace, can_help_timeout_s=10, respond_timeout_s=10)
        await board.post(BlackboardRequest(request="warm up"))  # first calls pay one-off costs
        posting = await board.post(BlackboardRequest(request="monthly sales", reason="plot them"))
    trace.close()

    assert [o.helper for o in posting.outcomes] == ["s1", "s2", "web1", "web2"]  # kernel is no helper
    assert all(o.error is None and o.volunteered and o.responded for o in posting.outcomes)
    # Each call takes at least its 400 ms; asked in parallel, a phase lasts about as long as its
    # slowest call, not as long as all four together (how close to 400 ms: bench_fanout.py).
    assert all(o.can_help_s >= 0.4 and o.respond_s >= 0.4 for o in posting.outcomes)
    assert 0.4 <= posting.can_help_phase_s < sum(o.can_help_s for o in posting.outcomes), posting
    assert 0.8 <= posting.elapsed_s < sum(o.can_help_s + o.respond_s for o in posting.outcomes), posting

    web1 = posting.outcome("web1")
    assert web1.response_kind == "search" and isinstance(web1.response, SearchAgentResponse)
    assert web1.response.answer == "web1 found it" and web1.response_raw["answer"] == "web1 found it"
    s1 = posting.outcome("s1")
    assert isinstance(s1.response, FileAgentResponse) and s1.response.files == ["s1/data.csv"]
    assert s1.decision is not None and s1.decision.confidence == 0.9

    # The board holds both postings' responses; the trace has every step of both.
    assert len(board.board) == 8
    assert [e.helper for e in board.board.for_request(posting.request.id)] == ["s1", "s2", "web1", "web2"]
    events = [e for e in read_trace(tmp_path / "trace.jsonl") if e.request_id == posting.request.id]
    kinds = [e.kind for e in events]
    assert kinds[0] == "post" and kinds[-1] == "posting"
    assert sorted(e.server for e in events if e.kind == "decision") == ["s1", "s2", "web1", "web2"]
    assert sorted(e.server for e in events if e.kind == "response") == ["s1", "s2", "web1", "web2"]
    assert events[0].data["request"]["reason"] == "plot them"
    assert all(e.elapsed_s is not None for e in events if e.kind in ("decision", "response"))

    # A posting survives a JSON round trip with each response as its own model.
    again = Posting.model_validate_json(posting.model_dump_json())
    assert isinstance(again.outcome("web1").response, SearchAgentResponse)
    assert isinstance(again.outcome("s1").response, FileAgentResponse)


@pytest.mark.asyncio(loop_scope="module")
async def test_killing_a_helper_mid_broadcast_returns_the_others_and_it_comes_back(tmp_path: Path, zoo) -> None:
    hold = tmp_path / "hold"
    hold.touch()
    servers = {
        # A real process, to kill; it holds every call while `hold` exists, so it is killed mid-call.
        **entries(victim=toy_entry("victim", "--hold-while", str(hold))),
        **{f"h{i}": memory_toy(f"h{i}", "--delay-ms", "200") for i in range(3)},
    }
    trace_path = tmp_path / "trace.jsonl"
    with Trace(trace_path) as trace:
        # Forked by the zoo's fork server (below), as the gateway's kernels are by its helpers': a fork
        # server of its own would cost its start and imports again.
        async with ClientPool(servers, trace=trace, forks_from=zoo[0]) as pool:
            # no embedding of the request first: the kill below must land while the call is held
            board = Blackboard(pool, trace, can_help_timeout_s=20, respond_timeout_s=20, embed_requests=False)
            victim_pid = (await pool.call("victim", "whoami", timeout_s=10)).json()["pid"]

            post = asyncio.ensure_future(board.post(BlackboardRequest(request="who has it?")))
            await asyncio.sleep(0.4)
            os.kill(victim_pid, signal.SIGKILL)
            posting = await post

            # Its death ended its call: nobody waited for the 20 s timeout.
            assert posting.elapsed_s < board.can_help_timeout_s
            victim = posting.outcome("victim")
            assert victim.error is not None and (victim.error.phase, victim.error.kind) == ("can_help", "died")
            assert victim.response is None
            assert sorted(o.helper for o in posting.responses) == ["h0", "h1", "h2"]

            # The next request works: the pool restarted the helper (waiting for the restart
            # counts against can_help's timeout; a loaded machine may need more than 5 s).
            board.can_help_timeout_s = 60
            hold.unlink()
            posting = await board.post(BlackboardRequest(request="and now?"))
            assert posting.errors == []
            assert sorted(o.helper for o in posting.responses) == ["h0", "h1", "h2", "victim"]
            assert (await pool.call("victim", "whoami", timeout_s=10)).json()["pid"] != victim_pid

    events = read_trace(trace_path)
    errors = [e for e in events if e.kind == "helper_error"]
    assert len(errors) == 1 and errors[0].server == "victim" and errors[0].data["error_kind"] == "died"
    assert any(e.kind == "server_died" and e.server == "victim" for e in events)
    assert any(e.kind == "server_restarted" and e.server == "victim" for e in events)
    summary = [e for e in events if e.kind == "posting"][0]
    assert summary.data["errors"] == {"victim": "can_help: died"}


MISBEHAVING = ["good", "shy", "hangs", "slow_answer", "raises", "garbled", "bad_response", "crashes"]
RANKED = ["low", "high", "mid", "no", "impatient"]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def zoo(tmp_path_factory: pytest.TempPathFactory):
    """One pool of helpers behaving in every way, shared by the tests below (starting is slow)."""
    broken = tmp_path_factory.mktemp("zoo") / "broken.py"
    broken.write_text("raise SystemExit('no lake here')\n")
    # Real processes for what only a process does: exit mid-call, fail to start, read its entry's timeout.
    real = entries(
        crashes=toy_entry("crashes", "--crash-on", "respond"),
        # Its entry's own timeout (ms, mcpServers format) overrides the blackboard's.
        impatient={**toy_entry("impatient", "--hang-on", "can_help"), "timeout": 300},
        broken={"command": "python", "args": [str(broken)]},
    )
    servers = {
        "good": memory_toy("good"),
        "shy": memory_toy("shy", "--volunteer", "no"),
        "hangs": memory_toy("hangs", "--hang-on", "can_help"),
        "slow_answer": memory_toy("slow_answer", "--hang-on", "respond"),
        "raises": memory_toy("raises", "--error-on", "respond"),
        "garbled": memory_toy("garbled", "--bad-output-on", "can_help"),
        "bad_response": memory_toy("bad_response", "--bad-output-on", "respond"),
        "crashes": real["crashes"],
        "low": memory_toy("low", "--confidence", "0.2"),
        "high": memory_toy("high", "--confidence", "0.9"),
        "mid": memory_toy("mid", "--confidence", "0.6"),
        "no": memory_toy("no", "--volunteer", "no", "--confidence", "1.0"),
        "impatient": real["impatient"],
        "broken": real["broken"],
        "kernel": memory_toy("kernel", "--not-helper"),
    }
    trace = Trace()
    async with ClientPool(servers, trace=trace, connect_timeout_s=120) as pool:
        yield pool, trace


async def test_a_helper_that_timed_out_is_skipped_until_it_answers_again(tmp_path: Path) -> None:
    hold = tmp_path / "hold"
    hold.touch()
    servers = {"good": memory_toy("good"), "held": memory_toy("held", "--hold-while", str(hold))}
    trace = Trace()
    async with ClientPool(servers, trace=trace, health_timeout_s=1) as pool:
        board = Blackboard(pool, trace, can_help_timeout_s=1, respond_timeout_s=1)
        first = await board.post(BlackboardRequest(request="monthly sales"))
        assert first.outcome("held").error.kind == "timeout" and first.elapsed_s >= 1

        # Not asked again while its late answer is outstanding: the posting does not wait for it
        # (waiting would have cost the 1 s timeout again).
        second = await board.post(BlackboardRequest(request="monthly sales"))
        assert second.elapsed_s < board.can_help_timeout_s, second.elapsed_s
        error = second.outcome("held").error
        assert (error.phase, error.kind) == ("can_help", "skipped")
        assert error.message.startswith("skipped: it did not answer can_help within 1 s last time")
        assert [o.helper for o in second.responses] == ["good"]
        assert any(e.kind == "helper_error" and e.server == "held" and e.data["error_kind"] == "skipped"
                   for e in trace.events)

        hold.unlink()  # it recovers: its late answer arrives, it answers a ping, and it is asked again
        deadline = time.monotonic() + 40
        while pool.slow("held") is not None:
            assert time.monotonic() < deadline, "the helper was never asked again"
            await asyncio.sleep(0.1)
        third = await board.post(BlackboardRequest(request="monthly sales"))
        assert sorted(o.helper for o in third.responses) == ["good", "held"] and third.errors == []


@pytest.mark.asyncio(loop_scope="module")
async def test_misbehaving_helpers_are_recorded_and_skipped(zoo) -> None:
    pool, trace = zoo
    board = Blackboard(pool, trace, can_help_timeout_s=1.5, respond_timeout_s=1.5)
    started = time.monotonic()
    posting = await board.post(BlackboardRequest(request="anything"), helpers=MISBEHAVING)
    elapsed = time.monotonic() - started

    # Bounded by the two per-call timeouts (1.5 s each), however badly helpers behave: without
    # them 'hangs' and 'slow_answer' would hold the posting for ever. A wide margin for load.
    assert elapsed < 1.5 + 1.5 + 10, elapsed
    errors = {o.helper: (o.error.phase, o.error.kind) for o in posting.errors if o.error}
    assert errors == {
        "hangs": ("can_help", "timeout"),
        "slow_answer": ("respond", "timeout"),
        "raises": ("respond", "tool_error"),
        "garbled": ("can_help", "invalid_output"),
        "bad_response": ("respond", "invalid_output"),
        "crashes": ("respond", "died"),
    }
    assert "raises failed on purpose in respond" in posting.outcome("raises").error.message
    # Checked against the tool's output schema on arrival: the message says what is wrong.
    assert posting.outcome("bad_response").error.message.endswith(
        "returned an invalid respond result: 'can_help' is a required property"
    )
    shy = posting.outcome("shy")
    assert shy.decision is not None and not shy.volunteered and shy.respond_s is None and shy.error is None
    assert [o.helper for o in posting.responses] == ["good"]
    assert [e.helper for e in board.board] == ["good"]  # only responses reach the board
    mine = [e for e in trace.events if e.kind == "helper_error" and e.request_id == posting.request.id]
    assert {e.server for e in mine} == set(errors)


@pytest.mark.asyncio(loop_scope="module")
async def test_max_responders_asks_only_the_most_confident_volunteers(zoo) -> None:
    pool, _ = zoo
    board = Blackboard(pool, can_help_timeout_s=10, respond_timeout_s=10)
    posting = await board.post(BlackboardRequest(request="x"), helpers=RANKED, max_responders=2)
    assert sorted(o.helper for o in posting.responses) == ["high", "mid"]
    assert posting.outcome("low").volunteered and posting.outcome("low").respond_s is None
    impatient = posting.outcome("impatient")
    assert impatient.error is not None and impatient.error.kind == "timeout"
    # Its own 0.3 s, not the board's 10 s.
    assert "within 0.3s" in impatient.error.message and impatient.can_help_s < board.can_help_timeout_s / 2

    only = await board.post(BlackboardRequest(request="y"), helpers=["low"])
    assert [o.helper for o in only.outcomes] == ["low"]
    with pytest.raises(KeyError, match="not in the pool: ghost"):
        await board.post(BlackboardRequest(request="z"), helpers=["ghost"])


@pytest.mark.asyncio(loop_scope="module")
async def test_by_default_every_helper_is_asked_and_a_failed_start_is_reported(zoo) -> None:
    pool, _ = zoo
    board = Blackboard(pool, can_help_timeout_s=1.5, respond_timeout_s=1.5)
    posting = await board.post(BlackboardRequest(request="x"))
    # The kernel lists no can_help; whether `broken` is a helper is unknown, so it is tried.
    assert [o.helper for o in posting.outcomes] == [*MISBEHAVING, *RANKED, "broken"]
    error = posting.outcome("broken").error
    assert error is not None and error.kind == "unavailable" and "broken" in error.message


def test_response_board_is_empty_until_responses_are_added() -> None:
    board = ResponseBoard()
    assert len(board) == 0 and board.entries == [] and board.for_request("nope") == []


def test_trace_appends_flushed_lines_and_survives_a_cut_last_line(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "trace.jsonl"
    with Trace(path) as trace:
        trace.emit("post", request_id="r1", helpers=["a"])
        # Flushed per event: readable while the trace is still open.
        assert [e.kind for e in read_trace(path)] == ["post"]
        trace.emit("decision", request_id="r1", server="a", elapsed_s=0.25, can_help=True)
    with Trace(path) as trace:  # a second run appends
        trace.emit("posting", request_id="r2")
    with path.open("a") as f:
        f.write('{"kind": "response", "server": "a", "da')  # a crash mid-write
    events = read_trace(path)
    assert [(e.kind, e.request_id) for e in events] == [("post", "r1"), ("decision", "r1"), ("posting", "r2")]
    assert events[1].server == "a" and events[1].elapsed_s == 0.25 and events[1].data == {"can_help": True}
    path.write_text('{"kind": "post"}\nnot json\n{"kind": "post"}\n')
    with pytest.raises(ValueError, match="line 2: not a trace event"):
        read_trace(path)
    memory = Trace()
    memory.emit("post")
    assert [e.kind for e in memory.events] == ["post"]
