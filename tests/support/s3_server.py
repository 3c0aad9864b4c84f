"""A real S3 API on 127.0.0.1 (moto's server, in a thread of the test process) and buckets filled from folders."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

# The store's credentials in tests: planted so that a test can look for them in every written file.
ACCESS_KEY = "AKIALAKEBOARDTEST01"
SECRET_KEY = "lakeboard-planted-secret-6d1f0b9a"


@dataclass
class S3Server:
    endpoint: str

    @property
    def environment(self) -> dict[str, str]:
        """The store's usual chain: credentials in the environment, as a user's shell would have them."""
        return {"AWS_ACCESS_KEY_ID": ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": SECRET_KEY, "AWS_DEFAULT_REGION": "us-east-1"}

    def filesystem(self):
        import s3fs

        return s3fs.S3FileSystem(key=ACCESS_KEY, secret=SECRET_KEY, endpoint_url=self.endpoint,
                                 use_listings_cache=False, skip_instance_cache=True)

    def upload(self, folder: Path, bucket: str, prefix: str = "") -> str:
        """Every file under `folder` as an object of `bucket` under `prefix`; the lake's URL."""
        fs = self.filesystem()
        if not fs.exists(bucket):
            fs.mkdir(bucket)
        base = f"{bucket}/{prefix}".rstrip("/")
        for f in sorted(folder.rglob("*")):
            if f.is_file():
                fs.pipe(f"{base}/{f.relative_to(folder).as_posix()}", f.read_bytes())
        return f"s3://{base}"


@contextmanager
def s3_server() -> Iterator[S3Server]:
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        yield S3Server(f"http://{host}:{port}")
    finally:
        server.stop()
