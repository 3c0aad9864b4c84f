"""lakeboard.common.process_exit: leave at once, without losing buffered output, logs or the exit code."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap


def test_exit_now_keeps_buffered_output_logs_and_the_exit_code() -> None:
    script = textwrap.dedent("""
        import logging, sys
        from lakeboard.common.process_exit import exit_now
        logging.basicConfig(stream=sys.stderr, format="%(message)s")
        sys.stdout.write("x" * 100_000)  # more than one buffer's worth, still partly buffered
        sys.stdout.write("END")
        logging.getLogger("t").warning("logged before exit")
        exit_now(3)
        print("never")
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3
    assert proc.stdout == "x" * 100_000 + "END"
    assert "logged before exit" in proc.stderr


def test_exit_now_survives_a_reader_that_has_gone() -> None:
    script = textwrap.dedent("""
        import sys
        from lakeboard.common.process_exit import exit_now
        sys.stdout.write("y" * 100)  # stays in the buffer until exit_now flushes it
        exit_now(0)
    """)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    proc.stdout.close()  # nobody reads: the flush hits a broken pipe
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err.decode()
    assert b"Traceback" not in err
