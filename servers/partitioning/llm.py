"""LLM partitioning: the paper's file-name clustering prompt, answered by a model."""

from __future__ import annotations

import fnmatch
import json

from lakeboard.common.code_text import comment_text
from lakeboard.common.json_replies import extract_json_object
from lakeboard.common.prompt_data import data_block
from lakeboard.schemas.clusters import ClusterSpec
from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.llm.errors import ModelUnavailable
from lakeboard.servers.llm.own_model import ServerModel
from lakeboard.servers.partitioning.base import PartitionError, describe, slug, unique_names

SYSTEM = "You organise the files of a data lake into clusters of related files. You answer with JSON only."
PROMPT = """Here are the files of a data lake, one relative path per line (a path with unusual characters is
written as a JSON string):
{files}

Group these files into clusters of related files, so that each cluster can be handed to one
data specialist. Files that belong to the same dataset (for example a series split by date or
by region) must be in the same cluster. Split very large groups, so that no cluster has more
than {max_files} files.{count}
Answer with a JSON object in this format: {{"clusters": [{{"name": "short-name", "files": ["path", ...],
"description": "what these files contain", "reason": "why they belong together"}}]}}.
Every file must appear in exactly one cluster."""


def path_line(path: str) -> str:
    """A lake path on one line of the prompt: as it is when plain, else as a JSON string (exact, one line)."""
    plain = comment_text(path, len(path) + 1) == path and not path.startswith('"')
    return path if plain else json.dumps(path)


def files_named(named: object, paths: list[str]) -> list[str]:
    """The lake files a model's entry names: a file, a folder ("dir", "dir/", "dir/*") or a glob."""
    if not isinstance(named, str) or not named.strip():
        return []
    text = named.strip().removeprefix("./")
    if text in paths:
        return [text]
    folder = text.rstrip("/")
    for suffix in ("/**", "/*"):
        folder = folder.removesuffix(suffix)
    under = [p for p in paths if p.startswith(folder + "/")] if folder else []
    if under:
        return under
    if any(ch in text for ch in "*?["):
        return [p for p in paths if fnmatch.fnmatchcase(p, text)]
    return []


class LLMStrategy:
    name = "llm"

    def __init__(self, *, n_clusters: int | None = None, max_files: int = 150, model: ServerModel | None = None):
        self.n_clusters = n_clusters
        self.max_files = max_files
        self.model = model or ServerModel.from_env()

    def partition(self, profiles: list[FileProfile]) -> list[ClusterSpec]:
        if self.model is None:
            raise PartitionError(
                "the llm strategy needs a model: pass --model and --base-url (any OpenAI-compatible endpoint; "
                "or set LAKEBOARD_LLM_MODEL and LAKEBOARD_LLM_BASE_URL), or use --strategy directory (the offline default)"
            )
        paths = sorted(p.path for p in profiles)
        count = f" Make {self.n_clusters} clusters." if self.n_clusters else ""
        listing = data_block("\n".join(path_line(p) for p in paths))  # lake text: data, fenced
        prompt = PROMPT.format(files=listing, max_files=self.max_files, count=count)
        try:
            reply = extract_json_object(self.model.complete(SYSTEM, prompt))
        except (ModelUnavailable, ValueError) as exc:
            raise PartitionError(f"the llm strategy failed: {exc}") from exc
        raw = reply.get("clusters", [])
        by_path = {p.path: p for p in profiles}
        assigned: set[str] = set()
        specs: list[tuple[str, list[str], str, str]] = []
        for c in raw if isinstance(raw, list) else []:
            files = [f for named in c.get("files", []) for f in files_named(named, paths) if f not in assigned]
            files = list(dict.fromkeys(files))
            if files:
                assigned.update(files)
                specs.append((slug(str(c.get("name", "cluster"))), files, str(c.get("description", "")),
                              str(c.get("reason", ""))))
        leftover = [p for p in paths if p not in assigned]
        if leftover:  # a model may forget files; none is lost
            specs.append(("unassigned", leftover, "", "files the model did not place"))
        names = unique_names([s[0] for s in specs])
        return [
            ClusterSpec(name=n, files=f, description=d or describe(f, by_path), reason=r or "grouped by the model")
            for n, (_, f, d, r) in zip(names, specs)
        ]
