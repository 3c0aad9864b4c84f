"""One file's loader with its check, read from a lake's index without starting a file agent.

    python -m lakeboard.servers.file_agent.file_loader --config CONFIG/clusters.json PATH

prints the file's `Loader` as JSON: its function, the check the index ran and the tables the
file should load as. `lakeboard loader` runs it (the host never imports server code); it reads
one profile from the profile cache, so it answers in a fraction of a second on any lake. A path
that is not a file of the lake gets one sentence naming the closest files, and exit 2.
"""

from __future__ import annotations

import argparse
import difflib
import heapq
import sys
from pathlib import Path, PurePosixPath

from lakeboard.common.process_exit import exit_now
from lakeboard.schemas.clusters import ClusterConfig
from lakeboard.schemas.families import Family
from lakeboard.schemas.messages import Loader
from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.file_agent.response_writing import loaders
from lakeboard.servers.file_agent.partition_profiles import PartitionProfiles

_CLOSE = 5
_SHORTLIST = 300


class UnknownFile(LookupError):
    """A path that is not a file of the lake; the message names the closest ones."""


def file_loader(profile: FileProfile, family: str | None = None) -> Loader:
    """The file's own loader, with the check the index ran on it and the tables it should load as
    (the loader `respond` gives for the file alone)."""
    return loaders([profile], {}, {profile.path: family})[0]


def family_of(families: list[Family], path: str) -> str | None:
    """The key of the family `path` belongs to, if any."""
    return next((f.key for f in families if any(m.path == path for m in f.members)), None)


def close_names(path: str, files: list[str]) -> list[str]:
    """The lake's files named most like `path`: by the whole path, then by the file name alone.

    difflib compares a few hundred files, those sharing the most three-letter runs with `path`:
    on all of a 50,000-file lake it takes many seconds.
    """
    wanted = _trigrams(path)
    files = heapq.nlargest(_SHORTLIST, files, key=lambda f: len(wanted & _trigrams(f)))
    by_path = difflib.get_close_matches(path, files, _CLOSE, 0.6)
    names: dict[str, list[str]] = {}
    for f in files:
        names.setdefault(PurePosixPath(f).name, []).append(f)
    by_name = [f for n in difflib.get_close_matches(PurePosixPath(path).name, list(names), _CLOSE, 0.7) for f in names[n]]
    return list(dict.fromkeys(by_path + by_name))[:_CLOSE]


def _trigrams(text: str) -> set[str]:
    text = text.lower()
    return {text[i:i + 3] for i in range(len(text) - 2)}


def lake_file_profile(config: ClusterConfig, path: str) -> FileProfile:
    """The cached profile of one file of the lake (a skipped one, with the reason, when it has none)."""
    files = [f for c in config.clusters for f in c.files]
    if path not in set(files):
        close = close_names(path, files)
        hint = (f"the closest: {', '.join(close)}" if close
                else "no file has a similar name; `lakeboard discover` finds files by what they hold")
        raise UnknownFile(f"{path!r} is not a file of the lake {config.name!r} ({len(files)} files); {hint}")
    return PartitionProfiles(Path(config.profile_dir), [path], config.errors)[path]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lakeboard.servers.file_agent.file_loader", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", required=True, type=Path, help="clusters.json written by `lakeboard index`")
    ap.add_argument("path", help="the file, relative to the lake folder")
    args = ap.parse_args(argv)
    try:
        config = ClusterConfig.model_validate_json(args.config.read_text(encoding="utf-8"))
        profile = lake_file_profile(config, args.path)
    except (OSError, ValueError) as exc:
        print(f"cannot read the lake's index {args.config}: {exc}", file=sys.stderr)
        return 2
    except UnknownFile as exc:
        print(exc, file=sys.stderr)
        return 2
    loader = file_loader(profile, family_of(config.families, args.path))
    sys.stdout.buffer.write(loader.model_dump_json().encode() + b"\n")  # UTF-8 whatever the locale says
    return 0


if __name__ == "__main__":
    exit_now(main())
