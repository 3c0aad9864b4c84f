"""A lake in a bucket (a real S3 API on 127.0.0.1, moto's server), indexed and discovered as users do.

The demo lake's files, uploaded to a bucket, must give the same partitions and the same discovery
answers as the same files in a folder; no credential may reach any file Lakeboard writes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lakeboard.common.request_embedding import request_embedding
from lakeboard.schemas.clusters import ClusterConfig
from lakeboard.schemas.messages import BlackboardRequest
from lakeboard.servers.file_agent.agent import FileAgent
from tests.e2e.scenarios import DEMO_LAKE, REPO
from tests.support.cli import lakeboard_main
from tests.support.s3_server import ACCESS_KEY, SECRET_KEY, S3Server, s3_server

QUESTIONS = json.loads((REPO / "lakes" / "demo-questions.json").read_text())


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    with s3_server() as server:
        yield server


@pytest.fixture(scope="module")
def bucket_lake(s3: S3Server, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The demo lake's files in a bucket, indexed by `lakeboard index s3://...` with its credentials
    given as storage options (the strictest case: they pass through the command)."""
    url = s3.upload(DEMO_LAKE, "lakes-bucket", "city/demo")
    home = tmp_path_factory.mktemp("bucket-home")
    env = {**os.environ, "LAKEBOARD_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-P", "-m", "lakeboard.host.cli", "index", url, "--workers", "0",
         "--storage-option", f"endpoint_url={s3.endpoint}", "--storage-option", f"key={ACCESS_KEY}",
         "--storage-option", f"secret={SECRET_KEY}"],
        env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return {"url": url, "home": home, "config_dir": home / "configs" / "demo", "out": done.stdout, "env": env}


def clusters(config_dir: Path) -> ClusterConfig:
    return ClusterConfig.model_validate_json((config_dir / "clusters.json").read_text())


def test_a_bucket_lake_gives_the_partitions_and_answers_of_the_same_files_in_a_folder(bucket_lake, demo_config):
    assert f"read {bucket_lake['url']}: " in bucket_lake["out"] and "bytes" in bucket_lake["out"]
    bucket, folder = clusters(bucket_lake["config_dir"]), clusters(demo_config)
    assert bucket.source == bucket_lake["url"] and folder.source is None
    assert {c.name: sorted(c.files) for c in bucket.clusters} == {c.name: sorted(c.files) for c in folder.clusters}
    assert bucket.errors == folder.errors
    assert [f.model_dump() for f in bucket.families] == [f.model_dump() for f in folder.families]

    # Each question embedded once, as the host does and sends it to every file agent (else each of the
    # agents of both configs embeds it again: most of this test's CPU).
    requests = [BlackboardRequest(request=q["query"], embedding=request_embedding(q["query"])) for q in QUESTIONS]
    assert all(r.embedding is not None for r in requests)

    def answers(config: ClusterConfig) -> list[list[str]]:
        agents = [FileAgent(config, c.name) for c in config.clusters]
        return [[f for a in agents for f in a.respond(request).files] for request in requests]

    assert answers(bucket) == answers(folder)


def test_discover_names_the_bucket_and_finds_the_files_of_its_config(bucket_lake):
    """`lakeboard discover s3://...` finds the bucket's config (the storage options are not needed:
    it is indexed) and the host's broadcast answers from it."""
    question = QUESTIONS[0]
    done = subprocess.run(
        [sys.executable, "-P", "-m", "lakeboard.host.cli", "discover", bucket_lake["url"], question["query"], "--json"],
        env=bucket_lake["env"], capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert question["data_sources"][0] in json.loads(done.stdout)["files"]


def test_no_credential_reaches_a_file_lakeboard_writes(bucket_lake):
    written = [p for p in bucket_lake["home"].rglob("*") if p.is_file()]
    assert any(p.name == "servers.json" for p in written) and any("replica" in p.parts for p in written)
    for path in written:
        data = path.read_bytes()
        assert SECRET_KEY.encode() not in data and ACCESS_KEY.encode() not in data, path


def index_in_this_process(argv: list[str], env: dict[str, str], monkeypatch: pytest.MonkeyPatch,
                          capsys: pytest.CaptureFixture, cwd: Path) -> tuple[int, str]:
    """The indexer command's `main` run here, for its refusals (a Python start each costs more than the
    check; the real process runs in the other tests), with `env` added to this process's environment: its
    exit code and stderr. The process mask and the working folder it changes are put back."""
    from lakeboard.servers.indexing.__main__ import main

    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(cwd)  # main works from a safe folder: back here after the test
    capsys.readouterr()
    mask = os.umask(0o077)
    os.umask(mask)
    try:
        code = main(argv)
    finally:
        os.umask(mask)
    return code, capsys.readouterr().err


def test_a_refused_url_and_an_empty_prefix_say_so_and_leave_nothing(s3: S3Server, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture):
    extra = {**s3.environment, "LAKEBOARD_HOME": str(tmp_path / "home")}
    env = {**os.environ, **extra}
    s3.filesystem().mkdir("empty-bucket")

    creds = subprocess.run(  # the real command once: the secret stays out of what it prints
        [sys.executable, "-P", "-m", "lakeboard.servers.indexing", f"s3://{ACCESS_KEY}:{SECRET_KEY}@lakes-bucket/city",
         "--storage-option", f"endpoint_url={s3.endpoint}"],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert creds.returncode == 2 and "carries credentials" in creds.stderr and SECRET_KEY not in creds.stderr

    def index(url: str) -> tuple[int, str]:
        return index_in_this_process([url, "--storage-option", f"endpoint_url={s3.endpoint}"], extra, monkeypatch,
                                     capsys, tmp_path)

    code, err = index("s3://empty-bucket/nothing")
    assert code == 2 and "holds no objects" in err, err
    code, err = index("s3://no-such-bucket/lake")
    assert code == 2 and "cannot read s3://no-such-bucket/lake" in err, err
    assert not (tmp_path / "home" / "configs").exists() or not any((tmp_path / "home" / "configs").iterdir())


def test_ask_without_a_model_runs_the_loaders_on_whole_files_the_host_mirrored(bucket_lake, s3: S3Server, capfd):
    """The kernel has no network: the host fetches the files the helpers name into the mirror, which
    the sandbox mounts where the loaders read; the program then loads the whole file, not a sample.

    The command's main() runs in this process (its helpers and kernel are still processes of their own):
    a new interpreter would import the host and load the sentence embedding again, about 1.5 s of CPU.
    `ask` runs as its own process in tests/e2e/test_cli.py, and a bucket's commands (`index`, `discover`) here."""
    question = QUESTIONS[0]
    env = {**bucket_lake["env"], **s3.environment}  # the store's usual chain; the endpoint is in the config
    done = lakeboard_main(capfd, "ask", bucket_lake["url"], question["query"], cwd=bucket_lake["home"], env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    source = question["data_sources"][0]
    mirrored = bucket_lake["config_dir"] / "mirror" / "objects" / source
    assert mirrored.read_bytes() == (DEMO_LAKE / source).read_bytes()
    print(done.stdout[-3000:])


def test_index_on_a_local_dask_cluster_gives_the_same_index(bucket_lake, s3: S3Server, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture):
    env = {**bucket_lake["env"], **s3.environment}
    # One worker: the demo lake's 38 objects make one batch (dask_batches.BATCH is 200) and one chunk
    # of cards to embed, so a second worker (and its nanny) would only start and stop.
    done = subprocess.run(
        [sys.executable, "-P", "-m", "lakeboard.servers.indexing", bucket_lake["url"], "--out", str(tmp_path),
         "--dask", "local", "--workers", "1", "--storage-option", f"endpoint_url={s3.endpoint}"],
        env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    on_dask, before = clusters(tmp_path / "demo"), clusters(bucket_lake["config_dir"])
    assert {c.name: c.files for c in on_dask.clusters} == {c.name: c.files for c in before.clusters}
    assert on_dask.errors == before.errors
    code, err = index_in_this_process([str(DEMO_LAKE), "--dask", "local"], {"LAKEBOARD_HOME": str(tmp_path / "home")},
                                      monkeypatch, capsys, tmp_path)
    assert code == 2 and "--dask profiles lakes in object storage" in err, err


def test_a_file_agents_code_reads_the_object_through_fsspec_where_the_mirror_lacks_it(bucket_lake, s3: S3Server,
                                                                                       tmp_path: Path):
    """Run outside Lakeboard (no mirror of the file): the loader opens the object through fsspec, with the
    endpoint the config recorded and credentials from the store's chain, none of them pasted into the code."""
    import pandas as pd

    question = QUESTIONS[0]
    source = question["data_sources"][0]
    config = clusters(bucket_lake["config_dir"])
    agent = next(a for c in config.clusters if source in (a := FileAgent(config, c.name)).profiles)
    profile = agent.profiles[source]  # read from the cache the indexer's process wrote: a loader needs it ok
    assert profile.status == "ok", f"the bucket config's profile of {source}: {profile.status}: {profile.reason}"
    response = agent.respond(BlackboardRequest(request=question["query"]))
    assert source in response.files, response.files
    code = response.code
    assert "lake_file(" in code and SECRET_KEY not in code and ACCESS_KEY not in code
    (bucket_lake["config_dir"] / "mirror" / "objects" / source).unlink(missing_ok=True)
    script = tmp_path / "load.py"
    script.write_text(code + "\nprint(len(data))\n")
    env = {**os.environ, **s3.environment, "HOME": str(tmp_path)}
    env.pop("LAKEBOARD_STORAGE_OPTIONS", None)
    done = subprocess.run([sys.executable, "-P", str(script)], env=env, capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert int(done.stdout.split()[-1]) == len(pd.read_parquet(DEMO_LAKE / source))
