"""Where lake configs go by default: Lakeboard's home, never the current folder."""

from __future__ import annotations

from pathlib import Path

import platformdirs

from lakeboard.common.config_home import default_configs


def test_the_default_configs_folder_honours_lakeboard_home(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("LAKEBOARD_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    assert default_configs() == tmp_path / "home" / "configs"
    monkeypatch.setenv("LAKEBOARD_HOME", "relative/home")
    assert default_configs() == tmp_path / "relative" / "home" / "configs"  # made absolute once, not per folder
    assert not (tmp_path / "home").exists()  # named, not made


def test_without_lakeboard_home_configs_go_to_the_user_data_folder(monkeypatch) -> None:
    monkeypatch.delenv("LAKEBOARD_HOME", raising=False)
    assert default_configs() == platformdirs.user_data_path("lakeboard") / "configs"


def test_the_test_session_has_a_home_of_its_own() -> None:
    assert default_configs().parent != platformdirs.user_data_path("lakeboard")
