"""The gateway's servers, read again from servers.json and servers.d/ before each request.

A file added to `servers.d/` while the gateway runs is mounted at the next request (it
connects on its first call), a file removed is dropped, and a changed entry is restarted:
a new partition is a new server, and nothing else changes. The kernel is not a helper: it
is kept apart for `run_code`, unless the gateway was pointed at a remote kernel by URL.

After a re-index, `restart` stops the helpers that read the index (their entries do not
change: they name the config folder's stable links), so they start anew on their next call.

A servers.d file that cannot be used is skipped with a note, at start as at any later request;
the helpers it gave before stay mounted (it may be half-written), and the others are served.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from lakeboard.host.lakes import GATEWAY_MODULE, KERNEL_MODULE, partition_mismatches, runs_module
from lakeboard.host.pool import ClientPool
from lakeboard.host.servers_config import SERVERS_FILE, ServerEntry, ServersConfigError, load_servers


class Mounts:
    """Keeps a pool's members equal to the helpers the config folder lists now."""

    def __init__(self, config_dir: Path, pool: ClientPool, *, kernel: ServerEntry | None = None) -> None:
        self.config_dir = config_dir
        self.pool = pool
        self.remote_kernel = kernel
        self.kernel: ServerEntry | None = kernel
        self.helpers: dict[str, ServerEntry] = {}  # as of the last refresh
        self._sources: dict[str, str] = {}  # helper -> the file it came from
        self._refreshing = asyncio.Lock()

    async def refresh(self) -> list[str]:
        """Mount what the servers files list, drop what they no longer list; returns problems, one sentence each.

        A servers.json that cannot be read leaves the helpers as they were; a servers.d file, the
        helpers it gave.
        """
        async with self._refreshing:
            try:
                config = load_servers(self.config_dir)
            except ServersConfigError as exc:
                return [f"{exc}; the helpers mounted before are kept"]
            helpers = {
                name: entry for name, entry in config.servers.items()
                if not runs_module(entry, GATEWAY_MODULE) and not runs_module(entry, KERNEL_MODULE)
            }
            sources = {name: config.sources[name] for name in helpers}
            for name, entry in self.helpers.items():
                if self._sources.get(name) in config.skipped and name not in helpers:
                    helpers[name], sources[name] = entry, self._sources[name]
            skipped = [
                f"{why}; the file is skipped" + (", and the helpers it gave before are kept"
                                                 if path in sources.values() else "")
                for path, why in config.skipped.items()
            ]
            for name in self.pool.names:
                if name not in helpers:
                    await self.pool.unmount(name)
            for name, entry in helpers.items():
                await self.pool.mount(name, entry)
            self.helpers, self._sources = helpers, sources
            if self.remote_kernel is None:
                self.kernel = next((e for e in config.servers.values() if runs_module(e, KERNEL_MODULE)), None)
            return skipped + partition_mismatches(self.config_dir, config)

    def index_helpers(self) -> list[str]:
        """The helpers the index wrote (servers.json), as of the last refresh; servers.d/ holds the user's own."""
        return [name for name, source in self._sources.items() if source == str(self.config_dir / SERVERS_FILE)]

    async def restart(self, names: list[str]) -> None:
        """Stop these helpers: the next refresh mounts them again, and each starts anew on its first call."""
        async with self._refreshing:
            for name in names:
                if name in self.pool.names:
                    await self.pool.unmount(name)
            self.helpers = {n: e for n, e in self.helpers.items() if n not in names}
            self._sources = {n: s for n, s in self._sources.items() if n not in names}
