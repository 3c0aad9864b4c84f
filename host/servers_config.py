"""The servers the host connects to, in the `mcpServers` format MCP clients already read.

A lake's config folder holds `servers.json` and, optionally, `servers.d/*.json`; every
file has the same shape (`{"mcpServers": {name: entry, ...}}`), so mounting a new
partition is dropping a file into `servers.d/` and nothing else changes:

    configs/mylake/servers.json          {"mcpServers": {"kernel": {...}, "sales": {...}}}
    configs/mylake/servers.d/extra.json  {"mcpServers": {"search": {"url": "http://..."}}}

An entry either starts a process that speaks MCP over stdio (`command`, `args`, `env`,
`cwd`) or points at a running server over streamable HTTP (`url`, and `headers` the host
sends with every request, such as `"Authorization": "Bearer TOKEN"` for a server started
with `--auth-token`).

servers.json is the lake's own file: when it cannot be used, loading fails. A `servers.d/` entry
named as one of servers.json replaces it: a partition served from another machine is one file
(its `url`), and a new index, which rewrites servers.json, keeps it. A `servers.d/` file that
cannot be used (unreadable, not a regular file, too large, not JSON, a bad entry, a name another
servers.d file defines too) is left out whole, and `ServersConfig.skipped` says why. Every file is read
as a regular file, opened without blocking and read up to `MAX_FILE_BYTES`: a named pipe or a
huge file in `servers.d/` must not stall whoever loads the servers.
"""

from __future__ import annotations

import importlib.util
import json
import logging
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from lakeboard.common.bounded_reads import FileRefused, read_regular_file

log = logging.getLogger(__name__)

SERVERS_FILE = "servers.json"
SERVERS_DIR = "servers.d"
MAX_FILE_BYTES = 4 * 1024 * 1024  # a servers file is a few KB; a client's config file, some more


class ServersConfigError(ValueError):
    """A servers file is missing, unreadable or malformed; the message says which and why."""


# Lakeboard's modules before they moved under the one `lakeboard` root (`-m servers.kernel`).
_OLD_ROOTS = ("servers.", "host.")


def current_module_args(args: list[str]) -> list[str]:
    """`args` with a Lakeboard module written under its old name (`-m servers.file_agent`, in a
    config folder indexed before the `lakeboard` root) renamed, so old config folders still start.

    Only names that are Lakeboard modules under the new root are renamed: a user's own package
    called `servers` is left alone. `lakeboard index` writes the new names.
    """
    if "-m" not in args:
        return args
    at = args.index("-m") + 1
    if at >= len(args) or not args[at].startswith(_OLD_ROOTS):
        return args
    renamed = f"lakeboard.{args[at]}"
    try:
        found = importlib.util.find_spec(renamed) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        return args
    log.info("Starting %s for %s: the entry was written before Lakeboard's modules moved under `lakeboard`; "
             "run `lakeboard index` again to rewrite it.", renamed, args[at])
    return [*args[:at], renamed, *args[at + 1:]]


class StdioServerEntry(BaseModel):
    """A server the host starts as a subprocess and talks to over stdin/stdout."""

    model_config = ConfigDict(extra="allow")  # other clients' fields (description, icon...) survive

    command: str = Field(min_length=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(
        default_factory=dict,
        description="set for the server; of the host's environment it inherits only an allow-list (lakeboard.host.pool)",
    )
    cwd: str | None = Field(None, description="working directory; relative paths are relative to the file")
    timeout: int | None = Field(None, gt=0, description="default per-call timeout in milliseconds")

    @field_validator("env", mode="before")
    @classmethod
    def _stringify_env(cls, value: Any) -> Any:
        # JSON configs often say {"PORT": 8080}; the process environment needs strings.
        if isinstance(value, dict):
            return {str(k): v if isinstance(v, str) else json.dumps(v) for k, v in value.items()}
        return value

    @field_validator("args")
    @classmethod
    def _current_module_names(cls, args: list[str]) -> list[str]:
        return current_module_args(args)

    @property
    def transport(self) -> Literal["stdio"]:
        return "stdio"


class HttpServerEntry(BaseModel):
    """A running server the host connects to over HTTP (streamable HTTP unless it says SSE)."""

    model_config = ConfigDict(extra="allow")

    url: str = Field(pattern=r"^https?://")
    headers: dict[str, str] = Field(default_factory=dict)
    transport_name: Literal["http", "streamable-http", "sse"] | None = Field(None, alias="transport")
    timeout: int | None = Field(None, gt=0, description="default per-call timeout in milliseconds")

    @property
    def transport(self) -> Literal["http", "sse"]:
        if self.transport_name == "sse":
            return "sse"
        if self.transport_name is None and self.url.rstrip("/").endswith("/sse"):
            return "sse"
        return "http"


ServerEntry = StdioServerEntry | HttpServerEntry


def parse_entry(name: str, raw: Any, source: str = "<config>") -> ServerEntry:
    """Validate one `mcpServers` entry; errors name the server and the file."""
    if not isinstance(raw, dict):
        raise ServersConfigError(f"{source}: server {name!r} must be a JSON object, got {type(raw).__name__}")
    if ("command" in raw) == ("url" in raw):
        raise ServersConfigError(f"{source}: server {name!r} needs exactly one of 'command' (stdio) or 'url' (HTTP)")
    model = StdioServerEntry if "command" in raw else HttpServerEntry
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'entry'}: {e['msg']}" for e in exc.errors())
        raise ServersConfigError(f"{source}: server {name!r} is invalid: {problems}") from None


class ServersConfig(BaseModel):
    """All servers of one lake, merged from servers.json and servers.d/*.json."""

    servers: dict[str, ServerEntry] = Field(default_factory=dict)
    sources: dict[str, str] = Field(default_factory=dict, description="server name -> file it came from")
    skipped: dict[str, str] = Field(default_factory=dict,
                                    description="servers.d file left out -> why, as a sentence a user can act on")

    def to_mcp_config(self) -> dict[str, Any]:
        """The merged config as one `{"mcpServers": ...}` dict (e.g. to paste into another client)."""
        return {
            "mcpServers": {
                name: entry.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_defaults=True)
                for name, entry in self.servers.items()
            }
        }

    def add(self, name: str, entry: ServerEntry, source: str = "<code>") -> None:
        self.check_name(name, source)
        self.servers[name] = entry
        self.sources[name] = source

    def check_name(self, name: str, source: str, replaces: str | None = None) -> None:
        """Raise ServersConfigError when `name`, from `source`, cannot be added (an entry that came from
        `replaces`, the lake's servers.json, may be replaced)."""
        if not name.strip():
            raise ServersConfigError(f"{source}: server names must not be empty")
        if name in self.servers and self.sources[name] != replaces:
            raise ServersConfigError(
                f"server {name!r} is defined twice: in {self.sources[name]} and in {source}; "
                "rename or remove one of them"
            )


def read_json(path: Path, error: type[Exception], advice: str = "") -> Any:
    """The JSON in `path` ({} for an empty file); one sentence, as `error`, when it cannot be
    read or parsed (`advice` ends the sentence on a parse error). Only a regular file of at most
    MAX_FILE_BYTES is read: a named pipe, a device or a huge file is refused at once."""
    try:
        text = read_regular_file(path, MAX_FILE_BYTES).decode("utf-8")
    except FileRefused as exc:
        raise error(f"cannot read {path}: it is {exc}") from None
    except OSError as exc:
        raise error(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise error(f"{path} is not UTF-8 text (byte {exc.start}){advice}") from None
    try:
        return json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        raise error(f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}){advice}") from None
    except RecursionError:
        raise error(f"{path} is not valid JSON (nested too deeply){advice}") from None


def _read_entries(path: Path) -> dict[str, Any]:
    data = read_json(path, ServersConfigError)
    if not isinstance(data, dict):
        raise ServersConfigError(f"{path} must hold a JSON object with an 'mcpServers' object")
    if "mcpServers" in data:
        servers = data["mcpServers"]
    elif all(isinstance(v, dict) and ("command" in v or "url" in v) for v in data.values()):
        servers = data  # bare {name: entry} maps are accepted too, as fastmcp does
    else:
        raise ServersConfigError(f"{path} has no 'mcpServers' object")
    if not isinstance(servers, dict):
        raise ServersConfigError(f"{path}: 'mcpServers' must be an object mapping names to entries")
    return servers


def _resolve_cwd(entry: ServerEntry, base: Path) -> ServerEntry:
    if isinstance(entry, StdioServerEntry) and entry.cwd and not Path(entry.cwd).is_absolute():
        return entry.model_copy(update={"cwd": str((base / entry.cwd).resolve())})
    return entry


def load_servers(location: str | Path) -> ServersConfig:
    """Load a lake's servers from a config folder or a servers.json file.

    Given a folder, reads `servers.json` (if present) and every `servers.d/*.json` in
    name order. Given a file, reads it and the `servers.d/` folder beside it. A problem with
    servers.json is an error; a servers.d file with a problem (a name it defines twice
    included) is left out whole, with the reason in `skipped`.
    """
    location = Path(location)
    if location.is_dir():
        folder, main_file = location, location / SERVERS_FILE
    elif location.exists():
        folder, main_file = location.parent, location
    else:
        raise ServersConfigError(f"{location} does not exist; run `lakeboard index` first or check the path")

    extra_dir = folder / SERVERS_DIR
    # Every entry named *.json, pipes and folders too: they are skipped with a reason, not in silence.
    extras = sorted(extra_dir.glob("*.json")) if extra_dir.is_dir() else []
    if not main_file.is_file() and not extras:
        raise ServersConfigError(f"{folder} has neither {SERVERS_FILE} nor {SERVERS_DIR}/*.json")

    config = ServersConfig()
    if main_file.is_file():
        _add_file(config, main_file)
    for path in extras:
        try:
            _add_file(config, path, replaces=str(main_file))
        except ServersConfigError as exc:
            config.skipped[str(path)] = str(exc)
    return config


def _add_file(config: ServersConfig, path: Path, replaces: str | None = None) -> None:
    """Add every server of `path`, or none of them (ServersConfigError); entries of `replaces` may be replaced."""
    source = str(path)
    entries = {name: _resolve_cwd(parse_entry(name, raw, source), path.parent)
               for name, raw in _read_entries(path).items()}
    for name in entries:
        config.check_name(name, source, replaces)
    for name, entry in entries.items():
        if name in config.servers:
            log.info("%s replaces the entry %r of %s", source, name, replaces)
            del config.servers[name]
        config.add(name, entry, source)
