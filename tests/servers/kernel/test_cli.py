"""Start-up refusals, configuration checks, and the pieces the sandbox is built from."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lakeboard.servers.kernel.config import KernelConfig, parse_args
from lakeboard.servers.kernel.outputs import BoundedText, CellOutputs
from lakeboard.servers.kernel.sandbox import SandboxLayout, kernel_environment
from tests.servers.kernel.conftest import REPO, make_lake, server_env
from tests.support.import_times import imported


def test_refuses_to_start_without_bubblewrap(tmp_path: Path) -> None:
    lake = make_lake(tmp_path)
    env = server_env(tmp_path) | {"PATH": str(tmp_path)}  # no bwrap on this PATH
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "lakeboard.servers.kernel", "--lake", str(lake),
         "--workdir", str(tmp_path / "w")],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, check=False,
    )
    assert done.returncode == 2
    assert "refusing to start" in done.stderr and "--unsafe-no-sandbox" in done.stderr
    assert done.stdout == ""
    # Refused before the server's heavy part is imported: a refusal costs a tenth of a second, not over a second.
    loaded = imported(done.stderr)
    assert "lakeboard.servers.kernel.config" in loaded  # the measure works
    heavy = loaded & {"fastmcp", "mcp", "jupyter_client", "lakeboard.servers.kernel.server"}
    assert not heavy, heavy


def test_rejects_a_missing_lake(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # In-process: argument checking is logic; the refusal above covers the real process's exit.
    with pytest.raises(SystemExit) as refused:
        parse_args(["--lake", str(tmp_path / "nope"), "--workdir", str(tmp_path)])
    assert refused.value.code == 2 and "is not a directory" in capsys.readouterr().err


def test_config_errors_are_one_sentence_per_bad_setting(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lake = make_lake(tmp_path)
    with pytest.raises(SystemExit) as refused:
        parse_args(["--lake", str(lake), "--workdir", str(tmp_path / "w"),
                    "--memory-mb", "-5", "--max-procs", "3", "--timeout-s", "0", "--workdir-mb", "0",
                    "--interrupt-grace-s", "0"])
    out, err = capsys.readouterr()
    assert refused.value.code == 2 and out == ""
    assert err.splitlines() == [
        "lakeboard kernel server: --memory-mb must be at least 256 (got -5).",
        "lakeboard kernel server: --max-procs must be at least 16 (got 3).",
        "lakeboard kernel server: --workdir-mb must be at least 1 (got 0).",
        "lakeboard kernel server: --timeout-s must be more than 0.0 (got 0.0).",
        "lakeboard kernel server: --interrupt-grace-s must be more than 0.0 (got 0.0).",
    ]
    assert not (tmp_path / "w").exists()  # nothing is created for a refused configuration


def test_config_rejects_dangerous_layouts(tmp_path: Path) -> None:
    lake = make_lake(tmp_path)
    with pytest.raises(ValueError, match="inside the lake"):
        KernelConfig(lake=lake, workdir=lake / "scratch")
    with pytest.raises(ValueError, match="cannot be '/'"):
        KernelConfig(lake=Path("/"), workdir=tmp_path)
    assert KernelConfig(lake=Path(lake), workdir=tmp_path / "w").lake.is_absolute()


def test_bwrap_command_mounts_the_lake_read_only_at_its_own_path(tmp_path: Path) -> None:
    lake = make_lake(tmp_path)
    config = KernelConfig(lake=lake, workdir=tmp_path / "w")
    layout = SandboxLayout(config=config, ipc_dir=tmp_path / "ipc", connection_file=tmp_path / "ipc" / "k.json",
                           etc_dir=tmp_path / "etc")
    argv = layout.bwrap_argv()
    pairs = [(argv[i], argv[i + 1], argv[i + 2]) for i in range(len(argv) - 2)]
    assert ("--ro-bind", str(lake), str(lake)) in pairs
    assert ("--bind", str(config.workdir), str(config.workdir)) in pairs
    # The lake comes after the workdir, so it stays read-only whatever their nesting.
    lake_bind = pairs.index(("--ro-bind", str(lake), str(lake)))
    assert lake_bind > pairs.index(("--bind", str(config.workdir), str(config.workdir)))
    assert ("--ro-bind", str(layout.connection_file), str(layout.connection_file)) in pairs
    for flag in ("--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--clearenv",
                 "--new-session"):
        assert flag in argv
    assert argv[-2:] == ["--chdir", str(config.workdir)] and argv[-4:-2] == ["--remount-ro", "/"]
    assert "/home" not in argv and "/etc/shadow" not in argv and str(Path.home()) not in argv[argv.index("--proc"):]


def test_kernel_environment_is_minimal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "nope")
    env = kernel_environment(KernelConfig(lake=make_lake(tmp_path), workdir=tmp_path / "w"))
    assert "OPENAI_API_KEY" not in env and "AWS_SECRET_ACCESS_KEY" not in env
    assert "sk-should-not-leak" not in "".join(env.values())
    assert env["HOME"] == "/tmp/home" and env["MALLOC_ARENA_MAX"] == "2"


def test_bounded_text_keeps_head_and_tail_with_a_marker() -> None:
    text = BoundedText(1000)
    for i in range(10_000):
        text.append(f"line {i}\n")
    out = text.text()
    assert out.startswith("line 0\n") and out.endswith("line 9999\n")
    assert "characters truncated (output limit 1,000 characters)" in out
    assert text.truncated and len(out) < 1200
    small = BoundedText(1000)
    small.append("short")
    assert small.text() == "short" and not small.truncated


def test_cell_outputs_clear_output_and_error_formatting() -> None:
    outputs = CellOutputs(500)
    outputs.add("stream", {"name": "stdout", "text": "progress 10%"})
    outputs.add("clear_output", {"wait": False})
    outputs.add("stream", {"name": "stdout", "text": "done\n"})
    outputs.add("error", {"ename": "ValueError", "evalue": "bad", "traceback": ["\x1b[0;31mValueError\x1b[0m: bad"]})
    assert outputs.streams["stdout"].text() == "done\n"
    assert outputs.error is not None and outputs.error.traceback == ["ValueError: bad"]
    kinds = [o["output_type"] for o in outputs.notebook_outputs()]
    assert kinds == ["stream", "error"]
