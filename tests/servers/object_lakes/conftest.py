from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.s3_server import S3Server, s3_server


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    with s3_server() as server:
        yield server
