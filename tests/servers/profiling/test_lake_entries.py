"""Entries of a lake that are not plain files with UTF-8 names: recorded with a reason, never fatal."""

from __future__ import annotations

import json
import os
import random
import socket
from pathlib import Path

from lakeboard.servers.profiling import ProfileCache, iter_lake_files, profile_lake

# Characters a hostile name may hold: line breaks of every kind, quotes, backslashes.
_HOSTILE = ["\n", "\r", "\u2028", "\u2029", "\u0085", "'", '"', '"""', "\\", "#", " ", "é", "\t"]
_NOT_UTF8 = [b"\xe9", b"\xff", b"\x80", b"\xc3", b"\xed\xa0\x80", b"\xfe\xfe"]


def _random_name(rng: random.Random, *, utf8: bool) -> bytes:
    parts = [rng.choice("abcxyz")]
    for _ in range(rng.randint(1, 6)):
        parts.append(rng.choice(_HOSTILE + ["data", "q"]))
    name = "".join(parts).encode("utf-8")
    if not utf8:
        cut = rng.randint(1, len(name))
        name = name[:cut] + rng.choice(_NOT_UTF8) + name[cut:]
        assert not _decodes(name)
    return name + b".csv"


def _decodes(name: bytes) -> bool:
    try:
        name.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _make(lake: Path, name: bytes, text: str = "x,y\n1,2\n") -> None:
    with open(os.path.join(os.fsencode(lake), name), "w", encoding="utf-8") as f:
        f.write(text)


def test_names_that_are_not_utf8_are_skipped_with_a_reason_and_never_stop_the_lake(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    lake.mkdir()
    rng = random.Random(17)
    good = {_random_name(rng, utf8=True) for _ in range(8)}
    bad = {_random_name(rng, utf8=False) for _ in range(12)} | {b"caf\xe9.csv", b"caf\xe8.csv"}
    for name in good | bad:
        _make(lake, name)
    os.mkdir(os.path.join(os.fsencode(lake), b"d\xe9r"))
    _make(lake / os.fsdecode(b"d\xe9r"), b"inside.csv")
    (lake / "plain.csv").write_text("a,b\n1,2\n")

    for workers in (0, 2):
        profiles = profile_lake(lake, tmp_path / f"cache{workers}", workers=workers)
        by_path = {p.path: p for p in profiles}
        assert len(by_path) == len(profiles) == len(good) + len(bad) + 2  # one skipped folder, plain.csv
        for p in profiles:
            p.path.encode("utf-8")  # every name is UTF-8 text: JSON, SQLite, pydantic and MCP take it
            json.loads(p.model_dump_json())
        for name in good:
            assert by_path[name.decode()].status == "ok"
        assert by_path["plain.csv"].status == "ok"
        skipped = [p for p in profiles if p.status == "skipped"]
        assert len(skipped) == len(bad) + 1
        assert all("not UTF-8" in p.reason and "rename it" in p.reason for p in skipped)
        # shown with replacement characters; two names that show alike stay apart
        assert {"d\ufffdr", "caf\ufffd.csv"} <= set(by_path)
        assert by_path["d\ufffdr"].reason.startswith("the folder name is not UTF-8")
        assert "plain.csv" in ProfileCache(tmp_path / f"cache{workers}").load_many(["plain.csv"])
    assert all(_decodes(os.fsencode(p)) for p in iter_lake_files(lake))


def test_pipes_sockets_links_and_loops_are_recorded_with_a_reason(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    (lake / "sub").mkdir(parents=True)
    (lake / "a.csv").write_text("x,y\n1,2\n")
    (tmp_path / "outside.csv").write_text("secret,1\n")
    os.mkfifo(lake / "pipe.csv")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(lake / "sub" / "sock"))
    os.symlink("loop", lake / "loop")
    os.symlink("nowhere.csv", lake / "broken.csv")
    os.symlink(tmp_path, lake / "folder_link")
    os.symlink(tmp_path / "outside.csv", lake / "out.csv")
    os.symlink("pipe.csv", lake / "pipe_link.csv")
    os.symlink("a.csv", lake / "a_link.csv")
    try:
        profiles = profile_lake(lake, tmp_path / "cache", workers=0)
    finally:
        sock.close()
    reasons = {p.path: p.reason for p in profiles if p.status == "skipped"}
    assert reasons == {
        "broken.csv": "a broken symbolic link (its target does not exist)",
        "folder_link": "a link to a folder (links to folders are not followed: they can loop or leave the lake)",
        "loop": "a symbolic link loop",
        "out.csv": "a link to a file outside the lake",
        "pipe.csv": "a named pipe (FIFO), not a regular file",
        "pipe_link.csv": "a link to a named pipe (FIFO), not to a regular file",
        "sub/sock": "a socket, not a regular file",
    }
    assert [p.path for p in profiles if p.ok] == ["a.csv", "a_link.csv"]
    assert [p.relative_to(lake).as_posix() for p in iter_lake_files(lake)] == ["a.csv", "a_link.csv"]
