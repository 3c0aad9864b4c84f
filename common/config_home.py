"""Where lake configs are written when no folder is named: one place per user, not per current folder.

A config folder depends on the lake only, so running a command from another folder must find
the same index, not build a new one. `LAKEBOARD_HOME` moves Lakeboard's home folder (configs go
in `$LAKEBOARD_HOME/configs`); else it is the platform's user data folder (platformdirs).
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

HOME_VARIABLE = "LAKEBOARD_HOME"


def lakeboard_home() -> Path:
    """Lakeboard's home folder: $LAKEBOARD_HOME, else the user data folder (e.g. ~/.local/share/lakeboard)."""
    named = os.environ.get(HOME_VARIABLE, "").strip()
    if named:
        return Path(named).expanduser().absolute()
    return platformdirs.user_data_path("lakeboard")


def cache_folder() -> Path:
    """Where Lakeboard keeps what it may lose: $LAKEBOARD_HOME/cache, else the user cache folder."""
    if os.environ.get(HOME_VARIABLE, "").strip():
        return lakeboard_home() / "cache"
    return platformdirs.user_cache_path("lakeboard")


def default_configs() -> Path:
    """The folder lake configs are written to when no --out/--configs is given (not created here)."""
    return lakeboard_home() / "configs"
