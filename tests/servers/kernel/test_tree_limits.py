"""Limits that hold for the sandbox's whole process tree, not for each process alone.

Each test starts its own server with small limits (one server checks several of them, one after the
other): with the cgroup the machine allows, and with --no-cgroup, where the server's watchdog enforces
the totals. The servers are served in this process over fastmcp's in-memory transport (the kernel, its
sandbox, its cgroup and the server's watchdog are the real ones); the kernel server in its own process
is tested in test_sandbox.py and test_server.py (stdio) and test_sessions.py (HTTP), and in the last test
here, which needs its command.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fastmcp import Client

from lakeboard.schemas.execution import SandboxPolicy
from tests.servers.kernel.conftest import REPO, in_memory_client, make_lake, require_sandbox, run, server_env


async def policy_of(client) -> SandboxPolicy:  # type: ignore[no-untyped-def]
    contents = await client.read_resource("kernel://sandbox")
    return SandboxPolicy.model_validate_json(contents[0].text)


async def children_past_the_memory_limit_are_stopped(client) -> None:  # type: ignore[no-untyped-def]
    """On a server started with --memory-mb 256: four children, each far under the limit, pass it together."""
    await run(client, "kept = 'still here'")
    # Four children of 100 MB each: every one is far under the 256 MB limit, together they pass it.
    code = (
        "import subprocess, sys\n"
        "child = \"import time\\nb = b'x' * (100 * 1024**2)\\ntime.sleep(120)\"\n"
        "children = [subprocess.Popen([sys.executable, '-c', child]) for _ in range(4)]\n"
        "codes = [c.wait() for c in children]"
    )
    result = await run(client, code, timeout_s=60)
    assert not result.timed_out, result
    assert result.error is not None and result.error.name == "MemoryLimitExceeded", result.error
    assert "memory limit of 256 MB" in result.error.value
    after = await run(client, "(kept, [c.poll() is None for c in children])")
    assert after.error is None and after.result == "('still here', [False, False, False, False])"


@pytest.mark.asyncio
async def test_with_a_cgroup_where_possible_children_past_memory_mb_a_busy_child_and_a_full_workdir_are_stopped(
    kernel_dirs: dict[str, Path], tmp_path: Path
) -> None:
    """One server with the cgroup the machine allows: children past --memory-mb together, then a busy
    child left running when its cell ends, then a cell writing past --workdir-mb."""
    require_sandbox()
    d = kernel_dirs
    async with in_memory_client(d["lake"], tmp_path, "--memory-mb", "256", "--workdir-mb", "20") as client:
        await children_past_the_memory_limit_are_stopped(client)

        code = "import os\nkept = 'still here'\nbusy = os.fork()\nif busy == 0:\n    while True:\n        pass\nbusy"
        result = await run(client, code)
        assert result.error is None, result.error
        assert result.stopped_processes == 1
        assert result.warning is not None and "left running" in result.warning
        after = await run(client, "import os\n(kept, os.path.exists(f'/proc/{busy}'))")
        assert after.result == "('still here', False)"
        # A cell whose child ends in time leaves nothing to stop, and says nothing.
        quiet = await run(client, "import subprocess\nsubprocess.run(['true']).returncode")
        assert quiet.result == "0" and quiet.stopped_processes == 0 and quiet.warning is None

        # The workdir limit.
        assert (await policy_of(client)).workdir_mb == 20
        code = (
            "import time\nwritten = 0\n"
            "for i in range(200):\n"
            "    with open(f'fill{i}.bin', 'wb') as f:\n"
            "        f.write(b'0' * 1024**2)\n"
            "    written += 1\n"
            "    time.sleep(0.02)"
        )
        result = await run(client, code, timeout_s=120)
        assert result.error is not None and result.error.name == "WorkdirLimitExceeded", result.error
        assert "limit of 20 MB" in result.error.value and not result.timed_out
        # Every writer is stopped with the kernel, and the newest files go until the workdir is under the limit.
        assert result.restarted is True and "newest files and folders were removed" in result.error.value
        assert sum(f.stat().st_blocks * 512 for f in tmp_path.glob("fill*.bin")) <= 20 * 1024**2
        assert (tmp_path / "fill0.bin").exists()  # the oldest stay
        # The restarted kernel runs cells. (It may not write: the trim stops at the limit, and 20 files of
        # 1 MB may stay.) A file deleted makes room again.
        again = await run(client, "import os\nos.remove(sorted(f for f in os.listdir() if f.startswith('fill'))[-1])\n"
                                  "open('small.bin', 'wb').write(b'0' * 1024)")
        assert again.error is None and again.result == "1024"


@pytest.mark.asyncio
async def test_without_a_cgroup_the_watchdog_holds_the_memory_and_process_limits(
    kernel_dirs: dict[str, Path], tmp_path: Path
) -> None:
    """One server with --no-cgroup: children past --memory-mb together, then more processes than --max-procs."""
    require_sandbox()
    d = kernel_dirs
    flags = ("--no-cgroup", "--memory-mb", "256", "--max-procs", "32")
    async with in_memory_client(d["lake"], tmp_path, *flags) as client:
        policy = await policy_of(client)
        assert policy.memory_limit == "watchdog"
        assert policy.process_limit == ("watchdog" if os.geteuid() == 0 else "rlimit")
        await children_past_the_memory_limit_are_stopped(client)

        code = (
            "import subprocess\nsleepers = []\n"
            "for _ in range(40):\n"
            "    sleepers.append(subprocess.Popen(['sleep', '120']))\n"
            "for s in sleepers:\n"
            "    s.wait()"
        )
        result = await run(client, code, timeout_s=60)
        assert not result.timed_out and result.error is not None
        assert "process" in f"{result.error.value} {result.warning}", result
        after = await run(client, "(kept, sum(s.poll() is None for s in sleepers))")
        assert after.result == "('still here', 0)"


@pytest.mark.asyncio
async def test_cpu_budget_restarts_the_kernel_and_counts_the_whole_process_tree(
    kernel_dirs: dict[str, Path], tmp_path: Path
) -> None:
    require_sandbox()
    d = kernel_dirs
    async with in_memory_client(d["lake"], tmp_path, "--cpu-seconds", "2") as client:
        # The kernel itself spinning past the budget.
        result = await run(client, "while True:\n    pass", timeout_s=120)
        assert result.restarted is True and result.error is not None and result.error.name == "KernelDied", result
        assert "CPU" in result.error.value and not result.timed_out
        assert (await run(client, "1 + 1")).result == "2"
        notebook = json.loads((await client.read_resource("kernel://notebook.ipynb"))[0].text)
        assert "CPU" in json.dumps(notebook["cells"])
        # Two children of 1.2 s of CPU each: each stays under its own 2 s limit, together they pass it (a fresh
        # kernel's tree has used about 0.5 s of the budget, so one child with it stays under the budget too).
        # A budget of 2 s, no more: this test burns through it twice.
        code = (
            "import subprocess, sys\n"
            "child = 'import time\\nwhile time.process_time() < 1.2:\\n    pass'\n"
            "codes = [p.wait() for p in [subprocess.Popen([sys.executable, '-c', child]) for _ in range(2)]]"
        )
        result = await run(client, code, timeout_s=300)
        assert result.restarted is True and result.error is not None and result.error.name == "KernelDied", result
        assert "CPU-time budget of 2 s" in result.error.value
        assert (await run(client, "1 + 1")).result == "2"


def test_refuses_to_start_when_no_limit_can_be_enforced(tmp_path: Path) -> None:
    """Without /proc the server can neither create a cgroup nor watch its processes."""
    bwrap = shutil.which("bwrap")
    if bwrap is None or os.geteuid() != 0:
        pytest.skip("needs bwrap run as root, to hide /proc from the server")
    lake = make_lake(tmp_path)
    argv = [bwrap, "--dev-bind", "/", "/", "--tmpfs", "/proc", "--chdir", str(REPO), sys.executable, "-m",
            "lakeboard.servers.kernel", "--lake", str(lake), "--unsafe-no-sandbox"]

    def server(workdir: str, *flags: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*argv, "--workdir", str(tmp_path / workdir), *flags], env=server_env(tmp_path),
                              capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, check=False)

    # Without the flag and with it, side by side, each in a workdir of its own.
    with ThreadPoolExecutor(2) as pool:
        refusing, unsafe = pool.submit(server, "w"), pool.submit(server, "w-unsafe", "--unsafe-no-limits")
        done, started = refusing.result(), unsafe.result()
    assert done.returncode == 2, done.stderr
    assert "refusing to start" in done.stderr and "--unsafe-no-limits" in done.stderr
    for limit in ("memory", "process-count", "CPU-time", "workdir-size"):
        assert limit in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    # With the flag it starts (and, its stdin closed, ends).
    assert "refusing" not in started.stderr and "UNSAFE (--unsafe-no-limits)" in started.stderr
