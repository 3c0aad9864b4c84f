"""Shared fixtures: the repository's demo lake and the KramaBench reference lakes."""

from __future__ import annotations

import atexit
import gc
import os
import shutil
import sys
import tempfile
from pathlib import Path

import platformdirs
import pytest

REPO = Path(__file__).resolve().parents[1]
DEMO_LAKE = REPO / "lakes" / "demo"
KRAMABENCH = (REPO.parent / "shared" / "kramabench").resolve()
KRAMA_DOMAINS = ("archeology", "legal", "wildfire")

os.environ.setdefault("HF_HUB_OFFLINE", "1")
# Bytecode is written even where PYTHONDONTWRITEBYTECODE says not to (the machines we test on set it): the test
# processes import every module of the package and of the tests first, and the hundreds of Python processes
# the tests start would otherwise each compile again what they import (0.4 s of CPU per fork server), as would
# pytest its rewritten test modules in each test process (3 s).
sys.dont_write_bytecode = False
# One BLAS thread in every test process and every child it starts: under `-n 3` the test processes
# already fill two cores, and BLAS threads spinning beside them only slow each other.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# Tests never write into the user's own data folder (nor a LAKEBOARD_HOME of theirs): lake configs
# written without --out/--configs go to this session's own home, and child processes inherit it.
REAL_DATA_FOLDER = platformdirs.user_data_path("lakeboard")
_REAL_DATA_FOLDER_EXISTED = REAL_DATA_FOLDER.exists()
TEST_HOME = Path(tempfile.mkdtemp(prefix="lakeboard-home-"))
os.environ["LAKEBOARD_HOME"] = str(TEST_HOME)
atexit.register(shutil.rmtree, TEST_HOME, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def _user_data_folder_untouched():
    """Fails the session when a test (or a child that lost LAKEBOARD_HOME) wrote into the real user data folder."""
    yield
    if not _REAL_DATA_FOLDER_EXISTED:
        assert not REAL_DATA_FOLDER.exists(), f"a test wrote into the user data folder {REAL_DATA_FOLDER}"


def krama_lake(domain: str) -> Path:
    lake = KRAMABENCH / domain / "input"
    if not lake.is_dir():
        pytest.skip(f"KramaBench data not found at {lake}")
    return lake


@pytest.fixture(scope="session")
def demo_config(tmp_path_factory) -> Path:
    """lakes/demo indexed once per test session; returns the config folder. Profiled in this
    process (workers=0): starting profiling workers for 20 files costs more than it saves, and
    the worker pool has tests of its own (tests/servers/profiling/test_worker_pool.py)."""
    from lakeboard.servers.indexing import index_lake

    out = tmp_path_factory.mktemp("configs")
    return index_lake(DEMO_LAKE, name="demo", out=out, workers=0).config_dir


def pytest_collection(session: pytest.Session) -> None:
    """No cyclic collection while the test modules are imported: their imports make no garbage cycles."""
    gc.disable()


def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze what collection imported (every library the tests use), then turn the collector back on.

    It lives for the whole session, and each full collection would otherwise scan it all again:
    about 7 s of CPU per test process over a run.
    """
    gc.freeze()
    gc.enable()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files holding a test marked slow run first (in their own order; the rest keep theirs).

    With `--dist loadfile` a worker takes the next whole file when it is free: a long file left to the
    end (the wheel test sorts last) keeps one worker busy while the others have finished.
    """
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow)
