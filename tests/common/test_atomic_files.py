"""Atomic writes, shared by the host (run results, notebooks) and the servers (configs, caches)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from lakeboard.common.atomic_files import write_json_atomic, write_text_atomic

HOSTILE = ["\n", "\r", "\u2028", "\u2029", "\u0085", '"""', "'", '"', "\\", " ", "é", "\t"]


def hostile_name(rng: random.Random) -> str:
    return "".join(rng.choice([*HOSTILE, "a", "b", "7"]) for _ in range(rng.randint(1, 12))).replace("/", "_")


@pytest.mark.parametrize("durable", [True, False])
def test_writes_replace_the_whole_file_under_any_name(tmp_path: Path, durable: bool) -> None:
    rng = random.Random(17)
    for _ in range(30):
        path = tmp_path / hostile_name(rng) / f"{hostile_name(rng)}.txt"
        text = "".join(rng.choice([*HOSTILE, "x", "\x00"]) for _ in range(50))
        write_text_atomic(path, "an older, longer text " * 20, durable=durable)
        write_text_atomic(path, text, durable=durable)
        assert path.read_bytes().decode("utf-8") == text
    assert all(not p.name.endswith(".tmp") for p in tmp_path.rglob("*"))


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    write_json_atomic(path, {"status": "answered", "name": "a\u2028b"})
    with pytest.raises(UnicodeEncodeError):
        write_text_atomic(path, "half written \udcff")  # a lone surrogate cannot be encoded
    assert json.loads(path.read_text(encoding="utf-8")) == {"status": "answered", "name": "a\u2028b"}
    assert [p.name for p in tmp_path.iterdir()] == ["result.json"]
