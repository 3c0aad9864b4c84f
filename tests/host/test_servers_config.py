"""servers.json + servers.d/*.json loading: merging, validation and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from host.servers_config import (
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


def test_duplicate_name_names_both_files(tmp_path: Path) -> None:
    write(tmp_path / "servers.json", {"mcpServers": {"sales": {"command": "python"}}})
    write(tmp_path / "servers.d" / "x.json", {"mcpServers": {"sales": {"command": "python3"}}})
    with pytest.raises(ServersConfigError, match=r"'sales' is defined twice.*servers\.json.*x\.json"):
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
