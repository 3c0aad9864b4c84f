from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.s3_server import S3Server, s3_server


@pytest.fixture(scope="package")
def s3() -> Iterator[S3Server]:
    """One server for the package's modules (moto keeps its buckets per process anyway: each test makes its own)."""
    with s3_server() as server:
        yield server
