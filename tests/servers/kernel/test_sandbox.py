"""Escape and abuse attempts against the sandboxed kernel.

Every attempt must fail cleanly (a clear error in the result, never a hung or dead server),
and the same server must run the next cell. One server serves the whole module.
"""

from __future__ import annotations

import ast
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastmcp import Client

from tests.servers.kernel.conftest import SECRET, run
from tests.servers.kernel.test_sessions import assert_never_an_import_path
from tests.support.shadow_modules import shadows

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.sandbox]


async def assert_alive(client: Client) -> None:
    """The server still runs cells after the abuse."""
    result = await run(client, "alive_probe = 41\nalive_probe + 1", timeout_s=30)
    assert result.error is None, result.error
    assert result.result == "42"
    assert result.sandboxed is True


async def test_reads_the_lake_at_its_real_absolute_path(kernel: Client, kernel_dirs: dict[str, Path]) -> None:
    lake = kernel_dirs["lake"]
    result = await run(kernel, f"import pandas as pd\ndf = pd.read_csv({str(lake / 'data.csv')!r})\nint(df.population.sum())")
    assert result.error is None, result.error
    assert result.result == "1000000"


async def test_cannot_write_into_the_lake(kernel: Client, kernel_dirs: dict[str, Path]) -> None:
    lake = kernel_dirs["lake"]
    attempts = {
        "create": f"open({str(lake / 'new.csv')!r}, 'w')",
        "overwrite": f"open({str(lake / 'data.csv')!r}, 'w')",
        "delete": f"import os; os.remove({str(lake / 'data.csv')!r})",
        "rename": f"import os; os.rename({str(lake / 'data.csv')!r}, {str(lake / 'x.csv')!r})",
        "rmtree": f"import shutil; shutil.rmtree({str(lake / 'sub')!r})",
        "chmod": f"import os; os.chmod({str(lake / 'data.csv')!r}, 0o777)",
        "mkdir": f"import os; os.mkdir({str(lake / 'newdir')!r})",
    }
    for what, code in attempts.items():
        result = await run(kernel, code)
        assert result.error is not None, what
        assert "Read-only file system" in result.error.value, (what, result.error)
    assert sorted(p.name for p in lake.rglob("*")) == ["data.csv", "notes.txt", "sub"]
    assert (lake / "data.csv").read_text().startswith("city,population")
    await assert_alive(kernel)


async def test_cannot_remount_the_lake_writable(kernel: Client, kernel_dirs: dict[str, Path]) -> None:
    lake = kernel_dirs["lake"]
    code = (
        "import subprocess\n"
        f"p = subprocess.run(['mount', '-o', 'remount,rw,bind', {str(lake)!r}], capture_output=True, text=True)\n"
        f"print(p.returncode); open({str(lake / 'after_remount.txt')!r}, 'w')"
    )
    result = await run(kernel, code)
    assert result.stdout.strip() != "0"
    assert result.error is not None and "Read-only file system" in result.error.value
    assert not (lake / "after_remount.txt").exists()
    await assert_alive(kernel)


async def test_workdir_is_the_writable_cwd(kernel: Client, kernel_dirs: dict[str, Path]) -> None:
    result = await run(kernel, "import os\nopen('out.txt', 'w').write('hi')\nos.getcwd()")
    assert result.error is None, result.error
    assert result.result == repr(str(kernel_dirs["workdir"]))
    assert (kernel_dirs["workdir"] / "out.txt").read_text() == "hi"


async def test_cannot_write_to_the_system(kernel: Client) -> None:
    for path in ("/usr/lib/evil.py", "/opt/lakeboard/kernel_launcher.py", "/etc/passwd", "/evil"):
        result = await run(kernel, f"open({path!r}, 'w').write('x')")
        assert result.error is not None, path
        assert any(word in result.error.value for word in ("Read-only", "Permission denied")), result.error
    await assert_alive(kernel)


async def test_cannot_read_shadow_or_host_homes(kernel: Client) -> None:
    result = await run(kernel, "open('/etc/shadow').read()")
    assert result.error is not None and result.error.name == "FileNotFoundError"
    result = await run(kernel, "import os\n[p for p in ('/root', '/home', '/sys', '/var', '/work') if os.path.exists(p)]")
    assert result.error is None, result.error
    # /root may exist only as the path down to the (read-only) Python installation.
    assert result.result in ("[]", "['/root']")
    result = await run(kernel, "sorted(os.listdir('/root')) if os.path.exists('/root') else []")
    assert "ssh" not in (result.result or "") and "netrc" not in (result.result or "")
    await assert_alive(kernel)


async def test_cannot_read_a_planted_secret(kernel: Client, kernel_dirs: dict[str, Path]) -> None:
    home = kernel_dirs["home"]
    for path in (home / ".ssh" / "id_rsa", home / ".netrc"):
        result = await run(kernel, f"open({str(path)!r}).read()")
        assert result.error is not None and result.error.name == "FileNotFoundError", result
    result = await run(kernel, "import os, glob\nglob.glob(os.path.expanduser('~/.*'))")
    assert SECRET not in (result.result or "") and ".ssh" not in (result.result or "")
    await assert_alive(kernel)


async def test_cannot_see_the_servers_environment(kernel: Client) -> None:
    code = (
        "import os, glob\n"
        "blobs = [dict(os.environ).__repr__()]\n"
        "for f in glob.glob('/proc/*/environ') + glob.glob('/proc/*/cmdline'):\n"
        "    try: blobs.append(open(f, 'rb').read().decode('latin-1'))\n"
        "    except OSError: pass\n"
        f"({SECRET!r} in ''.join(blobs), 'OPENAI_API_KEY' in os.environ)"
    )
    result = await run(kernel, code)
    assert result.error is None, result.error
    assert result.result == "(False, False)"
    await assert_alive(kernel)


async def test_cannot_see_host_processes(kernel: Client) -> None:
    code = (
        "import os\n"
        "cmds = []\n"
        "for pid in [p for p in os.listdir('/proc') if p.isdigit()]:\n"
        "    try: cmds.append(open(f'/proc/{pid}/cmdline', 'rb').read().decode('latin-1'))\n"
        "    except OSError: pass\n"
        "(len(cmds) < 10, any('lakeboard.servers.kernel' in c or 'pytest\\x00' in c for c in cmds))"
    )
    result = await run(kernel, code)
    assert result.error is None, result.error
    assert result.result == "(True, False)"


@pytest.fixture(scope="module")
def host_http_server() -> Iterator[int]:
    """A real HTTP server on the host's loopback: the kernel must not reach it."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()


async def test_cannot_open_a_socket_to_the_network(kernel: Client, host_http_server: int) -> None:
    result = await run(kernel, "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=3)")
    assert result.error is not None and "Network is unreachable" in result.error.value
    # The host's own loopback is another network namespace: nothing listens there.
    result = await run(kernel, f"socket.create_connection(('127.0.0.1', {host_http_server}), timeout=3)")
    assert result.error is not None and result.error.name == "ConnectionRefusedError", result.error
    result = await run(kernel, "socket.getaddrinfo('pypi.org', 443)")
    assert result.error is not None and result.error.name == "gaierror"
    await assert_alive(kernel)


async def test_shelling_out_to_network_tools_fails(kernel: Client, host_http_server: int) -> None:
    code = (
        "import subprocess, shutil\n"
        "tools = [t for t in ('curl', 'wget') if shutil.which(t)]\n"
        f"url = 'http://127.0.0.1:{host_http_server}/'\n"
        "codes = {t: subprocess.run([t, '-s', '--max-time' if t == 'curl' else '--timeout=3', *(['3'] if t == 'curl' "
        "else []), url], capture_output=True).returncode for t in tools}\n"
        "codes['python'] = subprocess.run(['python', '-c', f'import urllib.request; urllib.request.urlopen({url!r}, "
        "timeout=3)'], capture_output=True).returncode\n"
        "codes"
    )
    result = await run(kernel, code, timeout_s=30)
    assert result.error is None, result.error
    codes = ast.literal_eval(result.result)
    assert codes and all(code != 0 for code in codes.values()), codes
    await assert_alive(kernel)


async def test_cannot_gain_privileges_or_new_namespaces(kernel: Client) -> None:
    result = await run(kernel, "import os; os.setuid(0)")  # uid 0 does not even exist in the sandbox
    assert result.error is not None and result.error.name in ("PermissionError", "OSError")
    result = await run(kernel, "(os.getuid(), os.geteuid())")
    assert result.result == "(1000, 1000)"
    code = (
        "import subprocess\n"
        "[subprocess.run(cmd, capture_output=True).returncode for cmd in "
        "(['unshare', '-r', 'true'], ['unshare', '-n', 'true'])]"
    )
    result = await run(kernel, code)
    assert result.error is None, result.error
    assert "0" not in result.result.strip("[]").split(", ")
    await assert_alive(kernel)


async def test_fork_bomb_hits_the_process_limit(kernel: Client) -> None:
    await run(kernel, "kept_before_bomb = 'still here'")
    result = await run(kernel, "import os\nwhile True:\n    os.fork()", timeout_s=30)
    assert result.error is not None
    assert result.error.name in ("BlockingIOError", "TimeoutError"), result.error
    assert result.warning and "process" in result.warning
    # The copies were cleaned up and the kernel kept its state.
    after = await run(kernel, "import os\n(kept_before_bomb, len([p for p in os.listdir('/proc') if p.isdigit()]))")
    assert after.error is None, after.error
    assert after.result.startswith("('still here'"), after.result
    assert int(after.result.rsplit(",", 1)[1].strip(" )")) < 6
    await assert_alive(kernel)


async def test_thread_bomb_is_contained(kernel: Client) -> None:
    code = (
        "import threading, time\n"
        "ev = threading.Event(); n = 0\n"
        "try:\n"
        "    while n < 100000:\n"
        "        threading.Thread(target=ev.wait, daemon=True).start(); n += 1\n"
        "finally:\n"
        "    ev.set()\n"
    )
    result = await run(kernel, code, timeout_s=30)
    assert result.error is not None and result.error.name == "RuntimeError", result.error
    assert "thread" in result.error.value
    await run(kernel, "import time; time.sleep(0.5)")
    await assert_alive(kernel)


async def test_memory_far_past_the_limit(kernel: Client) -> None:
    result = await run(kernel, "big = bytearray(8 * 1024**3)")
    assert result.error is not None and result.error.name == "MemoryError"
    result = await run(kernel, "import numpy as np\narr = np.ones((60000, 60000))")
    assert result.error is not None and "MemoryError" in result.error.name + result.error.value
    code = (
        "def grow():\n"
        "    chunks = []\n"
        "    while True:\n"
        "        chunks.append(bytearray(64 * 1024**2))\n"
        "grow()"
    )
    result = await run(kernel, code, timeout_s=60)
    assert result.error is not None and result.error.name == "MemoryError"
    assert result.restarted is False
    await assert_alive(kernel)


async def test_infinite_loop_times_out_and_keeps_state(kernel: Client) -> None:
    await run(kernel, "kept = [1, 2, 3]")
    result = await run(kernel, "while True:\n    pass", timeout_s=1)
    assert result.timed_out is True
    assert result.error is not None and result.error.name == "TimeoutError"
    assert result.restarted is False
    assert 1 <= result.duration_s < 30  # the loop never ends by itself; wide for load
    after = await run(kernel, "sum(kept)")
    assert after.result == "6"


async def test_sleep_past_the_timeout(kernel: Client) -> None:
    result = await run(kernel, "import time\ntime.sleep(120)", timeout_s=1)
    assert result.timed_out and result.error is not None and result.error.name == "TimeoutError"
    assert 1 <= result.duration_s < 120 / 2  # interrupted at the timeout, not at the sleep's end
    await assert_alive(kernel)


async def test_ignored_interrupt_restarts_the_kernel(kernel: Client) -> None:
    code = "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(120)"
    result = await run(kernel, code, timeout_s=1)
    assert result.timed_out is True and result.restarted is True
    assert result.error is not None and result.error.name == "TimeoutError"
    assert "restarted" in result.error.value
    gone = await run(kernel, "alive_probe")
    assert gone.error is not None and gone.error.name == "NameError"
    await assert_alive(kernel)


async def test_huge_output_is_truncated(kernel: Client) -> None:
    result = await run(kernel, "print('x' * 200_000)\nprint('THE END')")  # limit: 5,000 characters
    assert result.error is None and result.truncated is True
    assert len(result.stdout) < 6000
    assert "characters truncated" in result.stdout
    assert result.stdout.rstrip().endswith("THE END")
    result = await run(kernel, "'y' * 1_000_000")
    assert result.truncated is True and len(result.result) < 6000
    # Far past the limit (50x), printing itself fails: the kernel stops buffering output.
    result = await run(kernel, "print('x' * 3_000_000)")
    assert result.error is not None and result.error.name == "OutputLimitExceeded"
    assert result.truncated is True and result.stdout.startswith("xxxx")
    await assert_alive(kernel)


async def test_endless_output_is_stopped(kernel: Client) -> None:
    result = await run(kernel, "while True:\n    print('z' * 10000)", timeout_s=60)
    assert result.error is not None and result.error.name == "OutputLimitExceeded"
    assert result.truncated is True and result.duration_s < 30 and result.restarted is False
    # Output a subprocess writes straight to the file descriptor is capped as well.
    code = "import subprocess\nsubprocess.run(['yes'], timeout=0.3)"  # a third of a second of `yes` is megabytes
    result = await run(kernel, code, timeout_s=30)
    assert result.error is not None and result.error.name == "TimeoutExpired"
    assert len(result.stdout) < 6000 and result.restarted is False
    await assert_alive(kernel)


async def test_killing_the_parent_does_nothing(kernel: Client) -> None:
    code = "import os, signal\nfor pid in (os.getppid(), 1):\n    os.kill(pid, signal.SIGKILL)\n'survived'"
    result = await run(kernel, code)
    assert result.error is None and result.result == "'survived'"
    # Every process it may signal: in the sandbox that is nothing outside its own tree.
    await run(kernel, "import os\ntry:\n    os.kill(-1, 9)\nexcept ProcessLookupError:\n    pass")
    await assert_alive(kernel)


async def test_killing_itself_restarts_the_kernel(kernel: Client) -> None:
    result = await run(kernel, "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)")
    assert result.restarted is True
    assert result.error is not None and result.error.name == "KernelDied"
    assert "SIGKILL" in result.error.value
    await assert_alive(kernel)


async def test_exit_restarts_the_kernel(kernel: Client) -> None:
    result = await run(kernel, "import os\nos._exit(3)")
    assert result.restarted is True and result.error is not None and result.error.name == "KernelDied"
    await assert_alive(kernel)


async def test_disk_and_tmp_limits(kernel: Client) -> None:
    result = await run(kernel, "open('big.bin', 'wb').write(b'0' * (32 * 1024**2))")  # file size limit: 16 MB
    assert result.error is not None and "File too large" in result.error.value, result.error
    code = (
        "import os\nfor i in range(8):\n"
        "    with open(f'/tmp/fill{i}.bin', 'wb') as f:\n        f.write(b'0' * (8 * 1024**2))"
    )
    result = await run(kernel, code)  # in-memory /tmp: 32 MB
    assert result.error is not None and "No space left" in result.error.value, result.error
    await run(kernel, "import glob\nfor f in glob.glob('/tmp/fill*') + ['big.bin']: os.remove(f)")
    await assert_alive(kernel)


async def test_the_workdir_is_never_an_import_path(kernel: Client, kernel_dirs: dict[str, Path]) -> None:
    # Last in the module: the modules it plants stay in the shared workdir, and it restarts the kernel.
    await assert_never_an_import_path(kernel, shadows(seed=len(str(kernel_dirs["workdir"]))))
    await assert_alive(kernel)
