"""Where each LLM setting comes from: flags > LAKEBOARD_LLM_* > OPENAI_* > config file > defaults.

The host's provider and a server's own model resolve the same way; the key rule is checked
against a real OpenAI-compatible server on 127.0.0.1, through both clients.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from lakeboard.common.llm_settings import LLMConfigError, LLMSettings, default_config_path
from lakeboard.host.llm import ChatProvider
from lakeboard.servers.llm.own_model import ServerModel
from tests.support.scripted_llm import DEFAULT_MODEL, ScriptedLLM


@pytest.fixture
def xdg(tmp_path: Path) -> dict[str, str]:
    """An environment whose default config dir is empty and private to the test."""
    return {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}


def write_default_config(env: dict[str, str], text: str) -> Path:
    path = default_config_path(env)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_no_model_anywhere_means_offline(xdg):
    assert LLMSettings.resolve(None, env=xdg) is None
    # A key or URL without a model is still "no LLM".
    assert LLMSettings.resolve({"base_url": "http://127.0.0.1:1/v1"}, env={**xdg, "OPENAI_API_KEY": "k"}) is None


def test_defaults_are_the_papers(xdg):
    s = LLMSettings.resolve({"model": "m"}, env=xdg)
    assert (s.temperature, s.max_tokens, s.base_url, s.api_key) == (0.1, 8192, None, None)
    assert s.effective_base_url == "https://api.openai.com/v1"
    assert s.sources == {"model": "flag --model"}


def test_precedence_per_setting(xdg):
    path = write_default_config(
        xdg,
        'model = "from-file"\nbase_url = "http://file/v1"\napi_key = "file-key"\n'
        "temperature = 0.5\nmax_tokens = 100\n",
    )
    env = {
        **xdg,
        "OPENAI_MODEL": "from-openai-env",
        "OPENAI_BASE_URL": "http://openai-env/v1",
        "LAKEBOARD_LLM_MODEL": "from-lakeboard-env",
    }
    s = LLMSettings.resolve({"model": None, "temperature": 0.0}, env=env)
    assert s.model == "from-lakeboard-env" and s.sources["model"] == "env LAKEBOARD_LLM_MODEL"
    assert s.base_url == "http://openai-env/v1" and s.sources["base_url"] == "env OPENAI_BASE_URL"
    assert s.api_key.get_secret_value() == "file-key" and s.sources["api_key"] == f"config {path}"
    assert s.temperature == 0.0 and s.sources["temperature"] == "flag --temperature"
    assert s.max_tokens == 100 and s.sources["max_tokens"] == f"config {path}"

    s = LLMSettings.resolve({"model": "from-flag"}, env=env)
    assert s.model == "from-flag" and s.sources["model"] == "flag --model"
    del env["LAKEBOARD_LLM_MODEL"]
    assert LLMSettings.resolve({}, env=env).model == "from-openai-env"
    del env["OPENAI_MODEL"]
    assert LLMSettings.resolve({}, env=env).model == "from-file"


def test_argparse_namespace_with_llm_prefix_and_blank_env(xdg):
    args = argparse.Namespace(llm_model="ns-model", llm_base_url=None, other="x")
    s = LLMSettings.resolve(args, env={**xdg, "LAKEBOARD_LLM_BASE_URL": "  ", "LAKEBOARD_LLM_MAX_TOKENS": "512"})
    assert s.model == "ns-model" and s.sources["model"] == "flag --llm-model"
    assert s.base_url is None  # blank variables count as unset
    assert s.max_tokens == 512 and s.sources["max_tokens"] == "env LAKEBOARD_LLM_MAX_TOKENS"


def test_config_file_llm_table_retry_and_explicit_path(tmp_path, xdg):
    cfg = tmp_path / "mine.toml"
    cfg.write_text('[llm]\nmodel = "qwen"\nbase_url = "http://127.0.0.1:11434/v1"\n[llm.retry]\nmax_attempts = 2\n')
    for s in (
        LLMSettings.resolve({"config": str(cfg)}, env=xdg),
        LLMSettings.resolve(None, env={**xdg, "LAKEBOARD_LLM_CONFIG": str(cfg)}),
        LLMSettings.resolve(None, env=xdg, config_path=cfg),
    ):
        assert s.model == "qwen" and s.retry.max_attempts == 2 and s.sources["model"] == f"config {cfg}"


def test_config_file_errors_are_clear(tmp_path, xdg):
    with pytest.raises(LLMConfigError, match="does not exist"):
        LLMSettings.resolve({"config": str(tmp_path / "missing.toml")}, env=xdg)
    bad = tmp_path / "bad.toml"
    bad.write_text("model = \n")
    with pytest.raises(LLMConfigError, match="not valid TOML"):
        LLMSettings.resolve(None, env=xdg, config_path=bad)
    typo = tmp_path / "typo.toml"
    typo.write_text('model = "m"\nmodle = "x"\n')
    with pytest.raises(LLMConfigError, match="unknown keys modle"):
        LLMSettings.resolve(None, env=xdg, config_path=typo)
    retry_typo = tmp_path / "retry.toml"
    retry_typo.write_text('model = "m"\n[retry]\nmax_atempts = 3\n')
    with pytest.raises(LLMConfigError, match=f"retry.max_atempts from config {retry_typo}: Extra inputs"):
        LLMSettings.resolve(None, env=xdg, config_path=retry_typo)


def test_invalid_values_name_their_origin(xdg):
    with pytest.raises(LLMConfigError, match="temperature from env LAKEBOARD_LLM_TEMPERATURE"):
        LLMSettings.resolve({"model": "m"}, env={**xdg, "LAKEBOARD_LLM_TEMPERATURE": "hot"})
    with pytest.raises(LLMConfigError, match="max_tokens from flag --max-tokens"):
        LLMSettings.resolve({"model": "m", "max_tokens": 0}, env=xdg)


def test_openai_key_is_not_sent_to_an_unrelated_endpoint(xdg):
    env = {**xdg, "OPENAI_API_KEY": "sk-secret", "LAKEBOARD_LLM_BASE_URL": "https://llm.example.org/v1"}
    s = LLMSettings.resolve({"model": "m"}, env=env)
    assert s.api_key is None
    assert "OPENAI_API_KEY ignored" in s.sources["api_key"] and "llm.example.org" in s.sources["api_key"]
    # Paired with OPENAI_BASE_URL (e.g. Gemini's compatible endpoint) or OpenAI itself: used.
    paired = {**xdg, "OPENAI_API_KEY": "sk-secret", "OPENAI_BASE_URL": "https://gen.example.com/v1beta/openai/"}
    assert LLMSettings.resolve({"model": "m"}, env=paired).api_key.get_secret_value() == "sk-secret"
    assert LLMSettings.resolve({"model": "m"}, env={**xdg, "OPENAI_API_KEY": "sk-secret"}).api_key is not None
    # A Lakeboard-specific key goes wherever the Lakeboard-specific URL points.
    own = {**env, "LAKEBOARD_LLM_API_KEY": "lb-key"}
    assert LLMSettings.resolve({"model": "m"}, env=own).api_key.get_secret_value() == "lb-key"


def test_describe_and_repr_never_show_the_key(xdg):
    s = LLMSettings.resolve({"model": "m", "api_key": "sk-very-secret"}, env=xdg)
    lines = s.describe()
    assert "api_key: set [flag --api-key]" in lines
    assert "model: m [flag --model]" in lines
    assert "temperature: 0.1 [default]" in lines
    assert all("sk-very-secret" not in x for x in (*lines, repr(s), str(s), s.model_dump_json()))
    with pytest.raises(LLMConfigError) as err:
        LLMSettings.resolve({"model": "m", "api_key": 123456789}, env=xdg)
    assert "123456789" not in str(err.value)


def _key_cases(url: str) -> list[tuple[dict[str, str], str]]:
    """(environment, the Authorization header the endpoint at `url` must receive)."""
    return [
        # A global OpenAI key never goes to a third-party endpoint named by Lakeboard's variable.
        ({"OPENAI_API_KEY": "sk-openai-secret", "LAKEBOARD_LLM_BASE_URL": url}, "Bearer no-key"),
        # Lakeboard's own key goes wherever Lakeboard's URL points.
        ({"OPENAI_API_KEY": "sk-openai-secret", "LAKEBOARD_LLM_BASE_URL": url, "LAKEBOARD_LLM_API_KEY": "lb-key"},
         "Bearer lb-key"),
        # OPENAI_API_KEY and OPENAI_BASE_URL are set together on purpose (compatible endpoints).
        ({"OPENAI_API_KEY": "sk-paired", "OPENAI_BASE_URL": url}, "Bearer sk-paired"),
    ]


@pytest.mark.parametrize("case", range(3))
async def test_a_key_reaches_only_the_endpoint_it_belongs_to(xdg, scripted_llm: ScriptedLLM, case: int):
    env, expected = _key_cases(scripted_llm.base_url)[case]
    env = {**xdg, **env, "LAKEBOARD_LLM_MODEL": DEFAULT_MODEL}
    scripted_llm.add("from the server's model", "from the host's model")

    server_model = ServerModel.from_env(env)
    assert server_model is not None
    assert server_model.complete("system", "hello") == "from the server's model"
    async with ChatProvider(LLMSettings.resolve(None, env=env)) as host_model:
        assert (await host_model.complete([{"role": "user", "content": "hello"}])).text == "from the host's model"

    assert [r.headers["authorization"] for r in scripted_llm.chat_requests] == [expected, expected]
