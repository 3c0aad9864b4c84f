"""Lakes in object storage (S3, GCS, Azure, any fsspec filesystem), indexed from bounded samples.

`lakeboard index s3://bucket/prefix` lists the objects page by page, reads a bounded byte range of
each changed one into a local *sample replica* (the head, and the tail where a format keeps its
metadata there), and indexes that replica as it indexes a folder. The rest of Lakeboard sees a
folder of samples and the lake's URL beside it.
"""

from lakeboard.servers.object_lakes.replica import SAMPLE_BYTES, ReplicaReport, refresh_replica

__all__ = ["SAMPLE_BYTES", "ReplicaReport", "refresh_replica"]
