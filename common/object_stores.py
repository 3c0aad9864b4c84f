"""Lakes in object storage: where one is, the options that open it (kept apart), and what its keys may be.

The URL is written into configs; the storage options (endpoints, keys, profiles) never are: they
come from each store's usual chain (environment, profile files, instance roles), from
`--storage-option key=value`, or from `LAKEBOARD_STORAGE_OPTIONS` (JSON) that the host sets for
the indexer it starts, so that a secret is never on a command line.
"""

from __future__ import annotations

import json
import os
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

OPTIONS_VARIABLE = "LAKEBOARD_STORAGE_OPTIONS"
# fsspec protocols of the stores Lakeboard reads: the package each needs, and the extra that installs it
STORES = {"s3": ("s3fs", "s3"), "s3a": ("s3fs", "s3"), "gs": ("gcsfs", "gcs"), "gcs": ("gcsfs", "gcs"),
          "az": ("adlfs", "azure"), "abfs": ("adlfs", "azure"), "abfss": ("adlfs", "azure")}


class ObjectLake(BaseModel):
    """A lake that is a prefix of a bucket: `protocol://bucket/prefix`."""

    url: str = Field(description="the lake as the user named it, normalised: no credentials, no trailing '/'")
    protocol: str
    root: str = Field(description="bucket/prefix, as the filesystem names it")

    @property
    def name(self) -> str:
        """The last part of the prefix (the bucket when there is none): the config's default name."""
        return self.root.rstrip("/").rsplit("/", 1)[-1]


def lake_url(text: str) -> ObjectLake | None:
    """The object lake `text` names, or None for a local folder (`file://` URLs included).

    Raises ValueError for a URL Lakeboard does not read, or one that carries credentials,
    query options or fragments (credentials belong to the store's chain, never to a URL that
    would be written into configs).
    """
    if "://" not in text:
        return None
    parts = urlsplit(text)
    protocol = parts.scheme.lower()
    if protocol == "file":
        return None
    if protocol not in STORES:
        raise ValueError(f"lakes in {protocol!r} storage are not read; give a folder or an s3://, gs://, az:// "
                         "or abfs:// URL")
    if parts.username is not None or parts.password is not None:
        raise ValueError("the lake's URL carries credentials: give them through the store's usual chain "
                         "(environment, profile files) or --storage-option, never in the URL, which is written "
                         "into the lake's config")
    if parts.query or parts.fragment:
        raise ValueError("the lake's URL has a query or a fragment: give options with --storage-option key=value")
    root = (parts.netloc + parts.path).strip("/")
    if not parts.netloc or any(p in ("", ".", "..") for p in root.split("/")):
        raise ValueError(f"{text!r} names no bucket, or a path with empty, '.' or '..' parts")
    return ObjectLake(url=f"{protocol}://{root}", protocol=protocol, root=root)


def _value(text: str) -> object:
    """`true`, `false`, numbers and JSON objects as such; anything else as the text."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def storage_options(pairs: list[str] = (), environ: dict[str, str] | None = None) -> dict[str, object]:
    """Options for the lake's filesystem: `LAKEBOARD_STORAGE_OPTIONS` (a JSON object), then each
    `key=value` of `pairs` over it. Raises ValueError for a malformed option."""
    environ = os.environ if environ is None else environ
    out: dict[str, object] = {}
    named = environ.get(OPTIONS_VARIABLE, "").strip()
    if named:
        try:
            loaded = json.loads(named)
        except ValueError:
            loaded = None
        if not isinstance(loaded, dict):
            raise ValueError(f"{OPTIONS_VARIABLE} must hold a JSON object of storage options")
        out.update(loaded)
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"a storage option is written key=value, not {pair.split('=')[0][:40]!r}...")
        out[key.strip()] = _value(value)
    return out


def filesystem(lake: ObjectLake, options: dict[str, object]):
    """The fsspec filesystem of the lake's store, without a listings cache (a listing is read once,
    page by page, and must not be held a second time). Raises ValueError when its package is missing."""
    import fsspec

    package, extra = STORES[lake.protocol]
    try:
        return fsspec.filesystem(lake.protocol, use_listings_cache=False, skip_instance_cache=True, **options)
    except ImportError as exc:
        raise ValueError(f"reading {lake.protocol}:// lakes needs the {package} package: "
                         f"pip install 'lakeboard[{extra}]' ({exc})") from exc


# Options that say where and how to reach a store, never who the caller is: the only ones written
# into a config (so later commands reach the same endpoint); every other option is a possible secret.
PUBLIC_OPTIONS = frozenset({"endpoint_url", "anon", "region_name", "requester_pays", "version_aware", "use_ssl",
                            "project", "account_name", "default_block_size"})


def public_options(options: dict[str, object]) -> dict[str, object]:
    """The options of `options` that may be written into a config: plain values of PUBLIC_OPTIONS."""
    return {k: v for k, v in options.items() if k in PUBLIC_OPTIONS and isinstance(v, (str, int, float, bool))
            and not (isinstance(v, str) and "@" in urlsplit(v).netloc)}  # an endpoint with user:password@


NAME_MAX = 255  # bytes in one part of a local path
# object metadata that changes whenever the object's bytes do, most specific first
_VERSION_KEYS = ("VersionId", "ETag", "etag", "generation", "md5Hash", "LastModified", "last_modified", "mtime",
                 "updated")


def object_version(info: dict) -> str:
    """What says an object changed (its version id, ETag or generation), from its listing or info."""
    for key in _VERSION_KEYS:
        value = info.get(key)
        if value:
            return str(value).strip('"')
    return ""


def key_problem(rel: str) -> str | None:
    """Why an object's key (below the lake's prefix) cannot be a local file path, or None."""
    if "\x00" in rel:
        return "its key holds a NUL character"
    parts = rel.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return "its key has an empty, '.' or '..' part, which no file path can have"
    if any(len(p.encode("utf-8", "surrogatepass")) > NAME_MAX for p in parts):
        return f"a part of its key is longer than a file name may be ({NAME_MAX} bytes)"
    return None

