"""A lake's docs folder that links out of the lake, to the host's secrets or to endless files, over the real server.

The search agent reads the lake by the indexer's walk: links out of the lake (to /etc/passwd, to a
file beside the lake, to /proc/self/environ), links to devices, named pipes, and a `docs` folder
that is itself a link out of the lake are skipped with a reason, never read or served. Each server
call is bounded by a guard far above its normal time, so a hang fails instead of blocking the run.
"""

from __future__ import annotations

import json
import os
import random
import secrets
from pathlib import Path

import anyio
import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from .conftest import AQI_MD, REPO, module_command, server_env

HANG_GUARD_S = 90  # a call that takes this long is hung (normal: well under a few seconds)
_HOSTILE = ["\n", "\r", "\t", "\x1b[2J", "\x07", "'", '"', "\\", " ", "é", "\u2028", "`", "#", "x", "q"]


def _name(rng: random.Random, suffix: str) -> str:
    return "d" + "".join(rng.choice(_HOSTILE) for _ in range(rng.randint(2, 7))) + suffix


def _request(text: str) -> dict:
    return {"request": text, "reason": "the main agent needs it"}


def _transport(docs: Path, lake: Path, cache: Path, env_secret: str) -> StdioTransport:
    command, *rest = module_command("--docs", str(docs), "--lake-root", str(lake), "--cache-dir", str(cache))
    # The server's own environment holds a key, as a real one holds the model's API key.
    env = server_env(OPENAI_API_KEY=env_secret, LAKEBOARD_AUTH_TOKEN=env_secret)
    return StdioTransport(command, rest, env=env, cwd=str(REPO), keep_alive=False)


async def _everything_served(client: Client, questions: list[str]) -> tuple[dict, str]:
    """The documents resource and every answer to `questions`, as one text to search."""
    texts = []
    with anyio.fail_after(HANG_GUARD_S):
        listing = json.loads((await client.read_resource("search-agent://documents"))[0].text)
        texts.append(json.dumps(listing))
        for question in questions:
            for tool in ("can_help", "respond"):
                result = await client.call_tool(tool, _request(question), raise_on_error=False)
                texts.append(json.dumps(result.structured_content) + "".join(getattr(c, "text", "") for c in result.content))
    return listing, "\n".join(texts)


@pytest.mark.parametrize("seed", [1, 2])
async def test_docs_links_out_of_the_lake_and_special_files_are_never_served(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    marker, env_secret = f"SECRET-{secrets.token_hex(8)}", f"sk-{secrets.token_hex(12)}"
    lake, outside = tmp_path / "lake", tmp_path / "beside-the-lake"
    docs = lake / "docs"
    (lake / "notes").mkdir(parents=True)
    docs.mkdir()
    outside.mkdir()
    (docs / "air_quality_index.md").write_text(AQI_MD, encoding="utf-8")
    (lake / "notes" / "retention.md").write_text("# Retention period\n\nThe retention period is 30 days.\n")
    os.symlink("../notes/retention.md", docs / "retention_alias.md")  # a link inside the lake: still read
    (outside / "secret.md").write_text(f"# Air quality secret\n\nThe air quality index secret is {marker}.\n")

    hostile = {
        _name(rng, ".md"): ("/etc/passwd", "outside the lake"),
        _name(rng, ".txt"): (str(outside / "secret.md"), "outside the lake"),
        _name(rng, ".txt"): ("/proc/self/environ", "outside the lake"),
        _name(rng, ".md"): ("/dev/zero", "a device"),
    }
    for name, (target, _reason) in hostile.items():
        os.symlink(target, docs / name)
    fifo = _name(rng, ".md")
    os.mkfifo(docs / fifo)  # reading it would wait for a writer forever
    hostile[fifo] = ("", "named pipe")

    passwd_line = Path("/etc/passwd").read_text().splitlines()[0]
    questions = ["How is the air quality index secret computed?", "What is the air quality index secret?", passwd_line.replace(":", " "),
                 "OPENAI_API_KEY LAKEBOARD_AUTH_TOKEN PATH HOME environment", "How long is the retention period?"]
    async with Client(_transport(docs, lake, tmp_path / "cache", env_secret)) as client:
        listing, served = await _everything_served(client, questions)

    assert marker not in served and env_secret not in served and passwd_line not in served
    assert sorted(d["path"] for d in listing["documents"]) == ["docs/air_quality_index.md", "docs/retention_alias.md"]
    for name, (_target, reason) in hostile.items():
        lines = [s for s in listing["skipped"] if s.startswith(f"docs/{name}: ")]
        assert len(lines) == 1 and reason in lines[0], (name, listing["skipped"])


async def test_a_docs_folder_that_links_out_of_the_lake_is_skipped(tmp_path: Path) -> None:
    marker, env_secret = f"SECRET-{secrets.token_hex(8)}", f"sk-{secrets.token_hex(12)}"
    lake, outside = tmp_path / "lake", tmp_path / "elsewhere"
    (lake / "data").mkdir(parents=True)
    (lake / "data" / "readings.csv").write_text("station,pm25\nA,12\n")
    outside.mkdir()
    (outside / "aqi.md").write_text(f"# Air Quality Index\n\nThe air quality index is computed as {marker}.\n")
    os.symlink(outside, lake / "docs")

    async with Client(_transport(lake / "docs", lake, tmp_path / "cache", env_secret)) as client:
        listing, served = await _everything_served(client, ["How is the air quality index computed?"])
    assert marker not in served
    assert listing["documents"] == []
    assert any(s.startswith("docs: a link to a folder") for s in listing["skipped"]), listing["skipped"]
