"""The trace is best effort: a full disk or an unwritable folder costs the record, never the run (issue 24 item 6)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from lakeboard.host.trace import Trace, read_trace
from tests.conftest import REPO


def test_a_trace_on_a_full_disk_warns_once_and_never_raises(tmp_path: Path, caplog) -> None:
    os.symlink("/dev/full", tmp_path / "trace.jsonl")  # every write: "No space left on device"
    with caplog.at_level(logging.WARNING, logger="lakeboard.host.trace"), Trace(tmp_path / "trace.jsonl") as trace:
        events = [trace.emit("broadcast", request_id=str(n), answer="x" * n) for n in range(50)]
    assert [e.request_id for e in events] == [str(n) for n in range(50)]
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1 and "No space left on device" in warnings[0] and "carries on" in warnings[0]


def test_a_trace_whose_folder_cannot_be_made_warns_once_and_never_raises(tmp_path: Path, caplog) -> None:
    (tmp_path / "traces").write_text("a file where the folder should be")
    with caplog.at_level(logging.WARNING, logger="lakeboard.host.trace"), Trace(tmp_path / "traces" / "t.jsonl") as trace:
        for n in range(5):
            trace.emit("broadcast", request_id=str(n))
    assert len(caplog.records) == 1 and str(tmp_path / "traces") in caplog.records[0].getMessage()


def test_a_write_cut_short_leaves_no_partial_line_and_later_events_are_written(tmp_path: Path) -> None:
    # A file-size limit makes the kernel write part of a line, then refuse the rest (EFBIG), as a disk
    # that fills mid-line does; the limit is then lifted, as when space is freed.
    path = tmp_path / "trace.jsonl"
    script = textwrap.dedent(f"""
        import resource, signal
        from lakeboard.host.trace import Trace
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        with Trace({str(path)!r}) as trace:
            trace.emit("first", answer="a" * 100)
            resource.setrlimit(resource.RLIMIT_FSIZE, (600, hard))
            for n in range(20):
                trace.emit("lost", answer="b" * 97 + str(n))
            resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
            trace.emit("after", answer="c")
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("cannot be written") == 1, done.stderr
    kinds = [e.kind for e in read_trace(path)]  # raises on a line that is not a whole event
    assert kinds[0] == "first" and kinds[-1] == "after" and set(kinds[1:-1]) <= {"lost"} and len(kinds) < 22
    assert path.read_bytes().endswith(b"\n")
