"""servers.json + servers.d/*.json loading: merging, validation and clear errors."""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

import pytest

from lakeboard.host.servers_config import (
    HttpServerEntry,
    ServersConfigError,
    StdioServerEntry,
    load_servers,
    parse_entry,
)


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def test_merges_servers_json_and_servers_d_in_name_order(tmp_path: Path) -> None:
    write(tmp_path / "servers.json", {"mcpServers": {"kernel": {"command": "python", "args": ["-m", "k"]}}})
    write(tmp_path / "servers.d" / "b.json", {"mcpServers": {"sales": {"command": "python"}, "hr": {"command": "py"}}})
    write(tmp_path / "servers.d" / "a.json", {"mcpServers": {"search": {"url": "http://127.0.0.1:9/mcp"}}})
    write(tmp_path / "servers.d" / "notes.txt", "not a server file")

    config = load_servers(tmp_path)

    assert list(config.servers) == ["kernel", "search", "sales", "hr"]
    assert isinstance(config.servers["kernel"], StdioServerEntry)
    assert config.servers["kernel"].args == ["-m", "k"]
    assert isinstance(config.servers["search"], HttpServerEntry)
    assert config.servers["search"].transport == "http"
    assert config.sources["search"].endswith("a.json")
    # Given the servers.json file instead of the folder, servers.d/ beside it is read too.
    assert list(load_servers(tmp_path / "servers.json").servers) == list(config.servers)


def test_servers_d_alone_is_enough(tmp_path: Path) -> None:
    write(tmp_path / "servers.d" / "one.json", {"only": {"command": "python"}})  # bare map, no mcpServers key
    assert list(load_servers(tmp_path).servers) == ["only"]


def test_a_servers_d_file_that_defines_a_name_twice_is_skipped_naming_both_files(tmp_path: Path) -> None:
    write(tmp_path / "servers.json", {"mcpServers": {"main": {"command": "python"}}})
    write(tmp_path / "servers.d" / "a.json", {"mcpServers": {"sales": {"command": "python"}}})
    write(tmp_path / "servers.d" / "x.json", {"mcpServers": {"hr": {"command": "py"}, "sales": {"command": "python3"}}})
    config = load_servers(tmp_path)
    assert list(config.servers) == ["main", "sales"] and config.servers["sales"].command == "python"  # none of x.json
    assert re.search(r"'sales' is defined twice.*a\.json.*x\.json", config.skipped[str(tmp_path / "servers.d" / "x.json")])


def test_a_servers_d_entry_replaces_the_lakes_own_entry_of_that_name(tmp_path: Path) -> None:
    """A partition served from another machine: one servers.d file with its URL, servers.json untouched."""
    write(tmp_path / "servers.json", {"mcpServers": {"lake-sales": {"command": "python"}, "lake-hr": {"command": "python"}}})
    write(tmp_path / "servers.d" / "remote.json",
          {"mcpServers": {"lake-sales": {"url": "http://10.0.0.5:8001/mcp", "headers": {"Authorization": "Bearer t"}}}})
    config = load_servers(tmp_path)
    assert sorted(config.servers) == ["lake-hr", "lake-sales"] and not config.skipped
    assert config.servers["lake-sales"].transport == "http" and config.sources["lake-sales"].endswith("remote.json")
    assert config.servers["lake-hr"].transport == "stdio"


def _junk_name(rng: random.Random) -> str:
    """A file name with control characters, quotes, spaces and non-ASCII letters, ending in .json."""
    pieces = ["\n", "\r", "\t", "\x1b[31m", " ", "'", '"', "é", "\u2028", "..", "-", "a", "Z", "0"]
    return "".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) + ".json"


@pytest.mark.timeout(60)
def test_servers_d_files_that_cannot_be_used_are_skipped_with_a_reason_and_read_bounded(tmp_path: Path) -> None:
    # A FIFO hung the loader, a 300 MB file was read whole, and any bad file failed the whole load (issue 24 item 14).
    write(tmp_path / "servers.json", {"mcpServers": {"main": {"command": "python"}}})
    extra = tmp_path / "servers.d"
    write(extra / "good.json", {"mcpServers": {"good": {"command": "python"}}})
    rng = random.Random(14)
    names = iter(dict.fromkeys(_junk_name(rng) for _ in range(40)))
    bad = {}
    bad[os.mkfifo(extra / (n := next(names))) or n] = "named pipe"
    with open(extra / (n := next(names)), "wb") as sparse:  # 300 MB that cost no disk
        sparse.write(b'{"mcpServers": {"big": {"command": "python", "args": ["')
        sparse.truncate(300 * 1024 * 1024)
    bad[n] = "larger than"
    bad[write(extra / next(names), '{"mcpServers": {"half": ').name] = "not valid JSON"
    bad[write(extra / next(names), "[" * 5000 + "]" * 5000).name] = "not valid JSON"
    bad[write(extra / next(names), {"mcpServers": {"x": {"url": "ftp://nowhere"}}}).name] = "is invalid"
    (extra / (n := next(names))).write_bytes(b'{"mcpServers": {"\xff": {"command": "python"}}}')
    bad[n] = "not UTF-8"
    (extra / (n := next(names))).mkdir()
    bad[n] = "a folder"
    os.symlink("/dev/zero", extra / (n := next(names)))
    bad[n] = "a device"

    config = load_servers(tmp_path)

    assert list(config.servers) == ["main", "good"]
    assert sorted(config.skipped) == sorted(str(extra / n) for n in bad)
    for name, why in bad.items():
        assert why in config.skipped[str(extra / name)], (name, config.skipped[str(extra / name)])


def test_a_servers_json_that_cannot_be_used_is_still_an_error(tmp_path: Path) -> None:
    write(tmp_path / "servers.d" / "good.json", {"mcpServers": {"good": {"command": "python"}}})
    with open(tmp_path / "servers.json", "wb") as sparse:
        sparse.truncate(300 * 1024 * 1024)
    with pytest.raises(ServersConfigError, match="larger than"):
        load_servers(tmp_path)


def test_invalid_json_reports_file_and_line(tmp_path: Path) -> None:
    write(tmp_path / "servers.json", '{\n  "mcpServers": {\n    "a": {"command": "python",}\n  }\n}')
    with pytest.raises(ServersConfigError, match=r"servers\.json is not valid JSON \(line 3"):
        load_servers(tmp_path)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"args": ["x"]}, "needs exactly one of 'command'"),
        ({"command": "python", "url": "http://x"}, "needs exactly one of 'command'"),
        ({"url": "ftp://host/mcp"}, r"server 'bad' is invalid: url"),
        ({"command": "python", "args": "not-a-list"}, r"server 'bad' is invalid: args"),
        ("python -m x", "must be a JSON object"),
    ],
)
def test_bad_entries_are_rejected_with_the_server_name(raw: object, message: str) -> None:
    with pytest.raises(ServersConfigError, match=message):
        parse_entry("bad", raw, source="servers.json")


def test_missing_config_and_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(ServersConfigError, match="does not exist"):
        load_servers(tmp_path / "nope")
    with pytest.raises(ServersConfigError, match="neither servers.json nor servers.d"):
        load_servers(tmp_path)
    write(tmp_path / "servers.json", {"something": 1})
    with pytest.raises(ServersConfigError, match="no 'mcpServers' object"):
        load_servers(tmp_path)


def test_env_values_become_strings_and_relative_cwd_is_resolved(tmp_path: Path) -> None:
    write(
        tmp_path / "servers.json",
        {
            "mcpServers": {
                "a": {"command": "python", "env": {"PORT": 8080, "DEBUG": True}, "cwd": "work", "icon": "x.png"}
            }
        },
    )
    entry = load_servers(tmp_path).servers["a"]
    assert isinstance(entry, StdioServerEntry)
    assert entry.env == {"PORT": "8080", "DEBUG": "true"}
    assert entry.cwd == str((tmp_path / "work").resolve())
    assert entry.model_extra == {"icon": "x.png"}  # other clients' fields survive


def test_sse_transport_and_round_trip_to_mcp_config(tmp_path: Path) -> None:
    write(
        tmp_path / "servers.json",
        {
            "mcpServers": {
                "legacy": {"url": "http://127.0.0.1:1/sse"},
                "forced": {"url": "http://127.0.0.1:1/events", "transport": "sse", "headers": {"X-Key": "k"}},
                "local": {"command": "python", "args": ["-m", "s"], "timeout": 5000},
            }
        },
    )
    config = load_servers(tmp_path)
    assert config.servers["legacy"].transport == "sse"
    assert config.servers["forced"].transport == "sse"
    dumped = config.to_mcp_config()
    assert dumped["mcpServers"]["forced"] == {
        "url": "http://127.0.0.1:1/events",
        "headers": {"X-Key": "k"},
        "transport": "sse",
    }
    assert dumped["mcpServers"]["local"] == {"command": "python", "args": ["-m", "s"], "timeout": 5000}
    # What we write back parses into the same entries.
    write(tmp_path / "again" / "servers.json", dumped)
    assert load_servers(tmp_path / "again").servers == config.servers


def test_entries_written_before_the_lakeboard_root_start_the_renamed_module() -> None:
    old = StdioServerEntry(command="python", args=["-P", "-m", "servers.file_agent", "--cluster", "a"])
    assert old.args == ["-P", "-m", "lakeboard.servers.file_agent", "--cluster", "a"]
    assert StdioServerEntry(command="python", args=["-m", "host.gateway", "c"]).args[1] == "lakeboard.host.gateway"
    # a user's own package of that name, and anything that is not `-m`, are left alone
    assert StdioServerEntry(command="python", args=["-m", "servers.mine"]).args == ["-m", "servers.mine"]
    assert StdioServerEntry(command="node", args=["servers.file_agent.js"]).args == ["servers.file_agent.js"]
