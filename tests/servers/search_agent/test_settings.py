"""Settings: flags > environment > defaults, with sources; clear errors for bad values."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lakeboard.servers.search_agent.settings import (
    argument_parser,
    resolve_settings,
    settings_from_argv,
)


def resolve(argv: list[str], env: dict[str, str] | None = None):
    return resolve_settings(argument_parser().parse_args(argv), env or {})


def test_defaults() -> None:
    settings = resolve([])
    assert settings.backend == "local" and settings.docs == [] and settings.sampling == "auto"
    assert (settings.rounds, settings.pages_per_query) == (3, 3)
    assert settings.sources["backend"] == "default"
    assert settings.problem() is not None and "--docs DIR" in settings.problem()


def test_flags_beat_environment(lake: Path) -> None:
    env = {"LAKEBOARD_SEARCH_BACKEND": "brave", "LAKEBOARD_SEARXNG_URL": "http://127.0.0.1:1", "BRAVE_API_KEY": "k"}
    settings = resolve(["--backend", "searxng", "--searxng-url", "http://127.0.0.1:2"], env)
    assert settings.backend == "searxng" and settings.searxng_url == "http://127.0.0.1:2"
    assert settings.sources["backend"] == "--backend" and settings.sources["searxng_url"] == "--searxng-url"
    from_env = resolve([], {**env, "LAKEBOARD_SEARCH_DOCS": os.pathsep.join([str(lake / "docs"), str(lake)])})
    assert from_env.backend == "brave" and from_env.sources["backend"] == "LAKEBOARD_SEARCH_BACKEND"
    assert from_env.brave_api_key is not None and from_env.brave_api_key.get_secret_value() == "k"
    assert from_env.docs == [lake / "docs", lake] and from_env.problem() is None


def test_keys_are_secret_and_missing_keys_are_named() -> None:
    settings = resolve(["--backend", "google"], {"GOOGLE_API_KEY": "secret-value"})
    assert "secret-value" not in repr(settings) and "secret-value" not in settings.model_dump_json()
    assert settings.problem() == "The google backend needs GOOGLE_CSE_ID in the environment of the search agent."
    assert "BRAVE_API_KEY" in resolve(["--backend", "brave"]).problem()
    assert "--searxng-url" in resolve(["--backend", "searxng"]).problem()


def test_allow_private_fetch_from_flag_or_environment() -> None:
    assert resolve(["--allow-private-fetch"]).allow_private_fetch
    assert resolve([], {"LAKEBOARD_SEARCH_ALLOW_PRIVATE_FETCH": "yes"}).allow_private_fetch
    assert not resolve([], {"LAKEBOARD_SEARCH_ALLOW_PRIVATE_FETCH": "0"}).allow_private_fetch


def test_bad_values_are_sentences(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is not a backend"):
        resolve([], {"LAKEBOARD_SEARCH_BACKEND": "bing"})
    with pytest.raises(ValueError, match="does not exist or is not a folder"):
        resolve(["--docs", str(tmp_path / "missing")])
    with pytest.raises(ValueError, match="rounds"):
        resolve(["--rounds", "0"])


def test_command_line_errors_exit_with_usage(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        settings_from_argv(["--docs", str(tmp_path / "missing")], {})
    assert exit_info.value.code == 2
    assert "does not exist or is not a folder" in capsys.readouterr().err
