"""Lake URLs, storage options and object keys: what is read, what is refused, what may be written."""

from __future__ import annotations

import pytest

from lakeboard.common.object_stores import key_problem, lake_url, object_version, public_options, storage_options


def test_a_folder_is_not_a_url_and_a_bucket_prefix_is_normalised():
    assert lake_url("lakes/demo") is None and lake_url("/data/lake") is None and lake_url("file:///data/lake") is None
    lake = lake_url("S3://my-bucket/some/prefix/")
    assert (lake.url, lake.protocol, lake.root, lake.name) == ("s3://my-bucket/some/prefix", "s3", "my-bucket/some/prefix", "prefix")
    assert lake_url("gs://bucket").name == "bucket" and lake_url("abfs://container/x").protocol == "abfs"


@pytest.mark.parametrize("url, says", [
    ("s3://AKIA:secret@bucket/lake", "carries credentials"),
    ("s3://bucket/lake?versionId=3", "query or a fragment"),
    ("ftp://host/lake", "are not read"),
    ("s3://bucket/a/../b", "'..'"),
    ("s3:///lake", "names no bucket"),
])
def test_urls_that_are_refused_say_why(url, says):
    with pytest.raises(ValueError, match=says.replace("(", r"\(").replace("?", r"\?")) as err:
        lake_url(url)
    assert "secret" not in str(err.value)


def test_storage_options_come_from_the_environment_then_the_command():
    env = {"LAKEBOARD_STORAGE_OPTIONS": '{"endpoint_url": "http://127.0.0.1:9000", "anon": false}'}
    options = storage_options(["anon=true", "region_name=eu-west-1", "default_block_size=1024"], env)
    assert options == {"endpoint_url": "http://127.0.0.1:9000", "anon": True, "region_name": "eu-west-1",
                       "default_block_size": 1024}
    with pytest.raises(ValueError, match="key=value"):
        storage_options(["no-equals-sign"], {})
    with pytest.raises(ValueError, match="JSON object"):
        storage_options([], {"LAKEBOARD_STORAGE_OPTIONS": "[1, 2]"})


def test_only_options_that_say_where_a_store_is_may_be_written():
    options = {"endpoint_url": "http://127.0.0.1:9000", "key": "AKIA", "secret": "s3cr3t", "token": "t",
               "client_kwargs": {"aws_session_token": "t"}, "anon": False}
    assert public_options(options) == {"endpoint_url": "http://127.0.0.1:9000", "anon": False}
    assert public_options({"endpoint_url": "http://user:pw@minio:9000"}) == {}


def test_keys_that_cannot_be_paths_and_versions():
    assert key_problem("a/b.csv") is None and key_problem("weird $(x);`.csv") is None
    assert "'..'" in key_problem("a/../b") and "'..'" in key_problem("a//b") and "NUL" in key_problem("a\x00b")
    assert "longer" in key_problem("x" * 256)
    assert object_version({"ETag": '"abc"', "LastModified": "t"}) == "abc"
    assert object_version({"VersionId": "v2", "ETag": '"abc"'}) == "v2" and object_version({}) == ""
