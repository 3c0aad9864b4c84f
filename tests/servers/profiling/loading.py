"""Test support: run a profile's generated loader and return what it defined."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.profiling import profile_file


def run_loader(profile: FileProfile) -> dict[str, Any]:
    assert profile.loader, f"no loader for {profile.path}"
    ns: dict[str, Any] = {}
    exec(compile(profile.loader, profile.path, "exec"), ns)
    assert "data" in ns, f"the loader of {profile.path} defines no `data`:\n{profile.loader}"
    return ns


def profile_and_load(path: Path, root: Path | None = None) -> tuple[FileProfile, dict[str, Any]]:
    root = root or path.parent
    prof = profile_file(path, root)
    return prof, run_loader(prof)
