"""The gateway's entry for Claude Desktop (or any client that reads `mcpServers`), and writing it
into an existing `claude_desktop_config.json` without touching the other servers there.

The entry is the one `lakeboard index` put first in the lake's servers.json: this Python
(the interpreter that has Lakeboard installed), `-m lakeboard.host.gateway`, the config folder; all
paths absolute, so it starts from wherever the client starts it.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any, NamedTuple

from lakeboard.common.atomic_files import write_json_atomic
from lakeboard.common.child_processes import module_run, with_safe_path
from lakeboard.host.gateway.command import KERNEL_TOKEN_ENV
from lakeboard.host.lakes import GATEWAY_MODULE, Lake, runs_module
from lakeboard.host.servers_config import read_json


class ClientConfigError(ValueError):
    """The client's configuration file cannot be updated; the message says why and what to do."""


def claude_block(lake: Lake, *, kernel_url: str | None = None, kernel_token: str | None = None) -> dict[str, Any]:
    """`{"mcpServers": {name: entry}}` holding the lake's gateway, pointed at a remote kernel if given."""
    config = lake.all_servers()
    found = [(name, entry) for name, entry in config.servers.items() if runs_module(entry, GATEWAY_MODULE)]
    if not found:
        raise ClientConfigError(
            f"the servers files of {lake.config_dir} have no gateway entry (they were written by an older "
            "Lakeboard): run `lakeboard index` again to write one"
        )
    name, entry = found[0]
    raw = entry.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_defaults=True)
    run = module_run(raw["command"], raw.get("args", []))
    if run is not None:
        # Servers files written before `-P`: the client may start the gateway from any folder,
        # and its Python has Lakeboard installed, so it is 3.11 or later and knows the flag.
        raw["args"] = with_safe_path(run)
    if kernel_url:
        raw["args"] = [*raw.get("args", []), "--kernel-url", kernel_url]
    if kernel_token:
        raw["env"] = {**raw.get("env", {}), KERNEL_TOKEN_ENV: kernel_token}
    return {"mcpServers": {name: raw}}


class Merged(NamedTuple):
    """What `merge_into` did: the servers it replaced (same name, an entry there before) and the ones it kept."""

    replaced: list[str]
    kept: list[str]


def merge_into(path: Path, block: dict[str, Any]) -> Merged:
    """Add (or replace) the block's servers in the JSON file at `path`, atomically; everything else
    in it is kept, and so is the file's mode. A missing file is created (owner-only)."""
    path = path.expanduser()
    if path.is_symlink():
        path = path.resolve()  # update the file the link points to, and keep the link
    data: dict[str, Any] = {}
    mode = None
    if path.exists():
        if not path.is_file():
            raise ClientConfigError(f"{path} is not a file: give the path of claude_desktop_config.json")
        data = read_json(path, ClientConfigError, "; fix it, or move it away and run this again. Nothing was written")
        if not isinstance(data, dict) or not isinstance(data.get("mcpServers", {}), dict):
            raise ClientConfigError(f"{path} does not hold a JSON object with an 'mcpServers' object. Nothing was written")
        mode = stat.S_IMODE(path.stat().st_mode)
    servers = dict(data.get("mcpServers", {}))
    replaced = [name for name in block["mcpServers"] if name in servers and servers[name] != block["mcpServers"][name]]
    kept = [name for name in servers if name not in block["mcpServers"]]
    servers.update(block["mcpServers"])
    try:
        write_json_atomic(path, {**data, "mcpServers": servers}, mode=mode)
    except OSError as exc:
        raise ClientConfigError(f"cannot write {path}: {exc.strerror or exc}") from None
    return Merged(replaced, kept)
