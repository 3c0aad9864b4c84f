"""lakeboard.common.gc_pauses: the collector paused around bursts of allocation, and working again after."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from lakeboard.common.gc_pauses import collector_paused, quick_imports


@pytest.fixture(autouse=True)
def _nothing_frozen_before() -> Iterator[None]:
    """Each test starts with nothing frozen, as a server does; what the test process had frozen
    (tests/conftest.py) is frozen again after, so that its later collections do not scan it."""
    frozen = gc.get_freeze_count()
    gc.unfreeze()
    yield
    if frozen:
        gc.freeze()


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def _garbage_cycle() -> weakref.ref:
    """A reference cycle nothing else holds: only the cyclic collector can free it."""
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def _allocate_a_lot() -> None:
    for _ in range(20):
        [[] for _ in range(5_000)]  # enough container allocations to start automatic collections


def test_garbage_cycles_are_collected_on_their_own_again_after_quick_imports_that_failed() -> None:
    try:
        with quick_imports():
            import lakeboard.servers.no_such_module  # noqa: F401
    except ModuleNotFoundError:
        pass
    finally:
        gc.unfreeze()
    cycle = _garbage_cycle()
    _allocate_a_lot()
    assert cycle() is None


def test_no_collection_during_a_pause_and_collections_on_their_own_after_it() -> None:
    try:
        with collector_paused():
            during = _garbage_cycle()
            _allocate_a_lot()
            assert during() is not None
            raise ValueError("a reader failed")
    except ValueError:
        pass
    after = _garbage_cycle()
    _allocate_a_lot()
    gc.collect()  # `during` was moved to the oldest generation, which automatic collections reach last
    assert after() is None and during() is None


def test_a_caller_that_had_paused_the_collector_keeps_it_paused() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        cycle = _garbage_cycle()
        _allocate_a_lot()
        assert cycle() is not None
    finally:
        gc.enable()
        gc.collect()


def test_a_pause_does_not_release_what_quick_imports_froze() -> None:
    with quick_imports():
        imported = _garbage_cycle()  # frozen with the imports: never collected
    try:
        with collector_paused():
            pass
        gc.collect()
        assert imported() is not None
    finally:
        gc.unfreeze()
        gc.collect()
    assert imported() is None
