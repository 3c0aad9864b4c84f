"""The cyclic garbage collector kept out of bursts of allocation that make no garbage cycles.

A host starts its helpers per run, so their start-up sits on the user's critical path, and
on a 2-core machine every helper's CPU adds up. While fastmcp, mcp and pydantic build their
import-time objects, and while thousands of cached profiles are parsed, the collector
would run over and over, scanning a growing heap and finding nothing.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic collector around a burst of allocations that make no garbage cycles.

    What was made meanwhile and lives on then joins the oldest generation at once (a freeze
    and an unfreeze: two list splices) instead of waiting for the next young collection to
    scan it all. Not while objects are frozen on purpose: the unfreeze would let them go.
    The collector's previous state comes back.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        if was_enabled:
            gc.enable()


@contextmanager
def quick_imports() -> Iterator[None]:
    """Import with the collector paused, then freeze what was imported out of its reach.

    Import-time objects live as long as the process, so collecting them finds nothing;
    freezing keeps later collections (while serving) from scanning them again.
    """
    with collector_paused():
        try:
            yield
        finally:
            gc.freeze()
