"""The package's names load on first use: a worker or a file agent does not import the pool."""

from __future__ import annotations

import subprocess
import sys


def test_reading_files_does_not_import_the_worker_pool_and_every_name_resolves() -> None:
    code = (
        "import sys\n"
        "import servers.profiling.worker, servers.profiling.profile\n"
        "print('servers.profiling.worker_pool' in sys.modules)\n"
        "from servers.profiling import ProfileCache, iter_lake_files, loader_code, profile_file, profile_lake\n"
        "print(all(callable(f) for f in (ProfileCache, iter_lake_files, loader_code, profile_file, profile_lake)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True"]


def test_an_unknown_name_is_an_attribute_error() -> None:
    import servers.profiling

    try:
        servers.profiling.no_such_name  # noqa: B018
    except AttributeError as e:
        assert "no_such_name" in str(e)
    else:
        raise AssertionError("no AttributeError")
