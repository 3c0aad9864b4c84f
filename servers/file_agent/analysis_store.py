"""A file agent's analysis of its partition (the paper's offline steps 1 and 2), kept on disk.

    <config folder>/analyses/<cluster digest>/<key>.json   (the folder of clusters.json)

The key is a digest of everything the two steps read (the partition's profiles, the lake's
folder, the prompts) and of the model's name, so a new index with changed files, new prompts or
another model never reuses a stale analysis. `lakeboard index` with a model writes one per
partition (servers/indexing/analyses.py); a file agent loads its own when it starts, and
writes one when it had to analyse in the background.

A stored analysis reaches a model's prompt, so only one this config folder's owner wrote is used:
each record is sealed (HMAC-SHA256) with a key kept owner-only in the analyses folder, and a
record is used only when its seal, its partition and its key are right. A planted, edited or
misfiled record, and any file that is not a regular file of a bounded size (a named pipe, a huge
file), is ignored with a note; the partition is then analysed again.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import secrets
import tempfile
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from lakeboard.common.atomic_files import write_text_atomic
from lakeboard.common.bounded_reads import FileRefused, open_regular, read_at_most, read_regular_file
from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.file_agent import file_agent_prompts

log = logging.getLogger(__name__)

FORMAT = 1  # of the stored files; a change makes every key new
MAX_ANALYSIS_BYTES = 2_000_000  # a model's analysis is a few thousand words; anything larger is not one
SEAL_KEY = ".seal-key"  # in the analyses folder, owner-only


class StoredAnalysis(BaseModel):
    cluster: str
    model: str = Field(description="the model that wrote it")
    key: str
    analysis: str = Field(min_length=1)
    looked_at: list[str] = Field(default_factory=list, description="the files step 1 chose")
    seal: str = Field("", description="HMAC-SHA256 of the other fields with the config folder's seal key")

    def sealed_content(self) -> bytes:
        fields = self.model_dump(exclude={"seal"})
        return json.dumps(fields, sort_keys=True, ensure_ascii=False).encode("utf-8", "surrogatepass")


def inputs_digest(lake_root: Path, profiles: dict[str, FileProfile], look_at: int) -> str:
    """A digest of what steps 1 and 2 read: the profiles, the lake's folder, the prompts."""
    h = hashlib.sha256()
    for part in (str(FORMAT), str(lake_root), str(look_at), file_agent_prompts.SYSTEM, file_agent_prompts.SELECT, file_agent_prompts.ANALYSE):
        h.update(part.encode("utf-8", "surrogatepass") + b"\x00")
    for path in sorted(profiles):
        h.update(profiles[path].model_dump_json().encode("utf-8", "surrogatepass") + b"\x00")
    return h.hexdigest()


def analysis_key(digest: str, model: str) -> str:
    return hashlib.sha256(f"{digest}\x00{model}".encode("utf-8", "surrogatepass")).hexdigest()[:32]


class AnalysisStore:
    """The analyses of one lake's partitions, under its config folder."""

    def __init__(self, config_dir: Path) -> None:
        self.root = Path(config_dir) / "analyses"

    def _path(self, cluster: str, key: str) -> Path:
        # Cluster names are slugs written by the indexer; the hash keeps any other name harmless.
        folder = hashlib.sha256(cluster.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        return self.root / folder / f"{key}.json"

    def load(self, cluster: str, key: str) -> StoredAnalysis | None:
        """The analysis stored for `cluster` under `key`, when this folder's owner wrote it; else None (with a note)."""
        path = self._path(cluster, key)
        try:
            stored = StoredAnalysis.model_validate_json(read_regular_file(path, MAX_ANALYSIS_BYTES, follow_links=False))
        except FileNotFoundError:
            return None
        except (OSError, FileRefused, ValidationError, ValueError) as exc:
            log.warning("ignoring the unreadable analysis %s: %s", path, exc)
            return None
        if stored.key != key or stored.cluster != cluster:
            log.warning("ignoring the analysis %s: it is filed under another partition or key than it names", path)
            return None
        seal_key = self._seal_key()
        if seal_key is None or not hmac.compare_digest(stored.seal.encode("utf-8", "surrogatepass"),
                                                       _seal(seal_key, stored).encode("ascii")):
            log.warning("ignoring the analysis %s: its seal is missing or wrong (not written by a Lakeboard of "
                        "this config folder's owner, or changed since); the partition is analysed again", path)
            return None
        return stored

    def save(self, stored: StoredAnalysis) -> Path:
        path = self._path(stored.cluster, stored.key)
        seal_key = self._seal_key(create=True)
        assert seal_key is not None
        write_text_atomic(path, stored.model_copy(update={"seal": _seal(seal_key, stored)}).model_dump_json(indent=1))
        return path

    def _seal_key(self, *, create: bool = False) -> bytes | None:
        """This folder's seal key; None when there is none (or none usable) and `create` is false."""
        path = self.root / SEAL_KEY
        try:
            return _read_owner_only(path)
        except FileNotFoundError:
            unusable = False
        except OSError as exc:
            log.warning("the seal key %s is not usable (%s): analyses stored before are not trusted", path, exc)
            unusable = True
        return self._new_seal_key(path, replace=unusable) if create else None

    def _new_seal_key(self, path: Path, *, replace: bool) -> bytes:
        """Write a new key in one step; where another writer made one first, use that one."""
        data = secrets.token_hex(32).encode("ascii")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".seal-key.", dir=path.parent)  # owner-only
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            if replace:
                os.replace(tmp, path)
                return data
            try:
                os.link(tmp, path)  # fails where the key exists: never two keys
            except FileExistsError:
                return _read_owner_only(path)
            return data
        finally:
            if os.path.lexists(tmp):
                os.unlink(tmp)


def _read_owner_only(path: Path) -> bytes:
    """A key file's bytes: a regular file (not a link) owned by this user that no one else can read or write."""
    try:
        fd = open_regular(path, follow_links=False)
    except FileRefused as exc:
        raise PermissionError(f"it is {exc}") from exc
    try:
        st = os.fstat(fd)
        if st.st_uid != os.geteuid() or st.st_mode & 0o077:
            raise PermissionError("it is not owner-only, or not this user's")
        data = read_at_most(fd, 4096)
    except FileRefused as exc:
        raise PermissionError(f"it is {exc}") from exc
    finally:
        os.close(fd)
    if len(data) < 32:
        raise PermissionError("it is too short to be a key")
    return data


def _seal(key: bytes, stored: StoredAnalysis) -> str:
    return hmac.new(key, stored.sealed_content(), hashlib.sha256).hexdigest()
