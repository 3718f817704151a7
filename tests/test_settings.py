"""Settings: defaults, env overrides, and bad values reported by key with the default kept."""

from __future__ import annotations

from rune_lsp.settings import DEFAULT_BASE_URLS, Settings, load_settings


def test_defaults_match_the_contract() -> None:
    settings, problems = load_settings({}, environ={})
    assert problems == []
    assert settings.provider == "ollama"
    assert settings.resolved_base_url == "http://127.0.0.1:11434"
    assert settings.model == "qwen3:14b"
    assert settings.api_key is None
    assert settings.max_iterations == 8
    assert (settings.repeat_warn_at, settings.repeat_block_at) == (2, 3)
    assert settings.request_timeout == 120
    assert settings.check_command is None
    assert settings.allowed_write_dirs is None


def test_openai_default_base_url() -> None:
    settings, _ = load_settings({"provider": "openai"}, environ={})
    assert settings.resolved_base_url == DEFAULT_BASE_URLS["openai"]


def test_camel_case_keys_from_the_editor() -> None:
    settings, problems = load_settings(
        {"baseUrl": "http://h:1/", "maxIterations": 3, "checkCommand": "pytest -q"}, environ={}
    )
    assert problems == []
    assert settings.resolved_base_url == "http://h:1"
    assert settings.max_iterations == 3
    assert settings.check_command == "pytest -q"


def test_environment_overrides_editor_values() -> None:
    settings, _ = load_settings(
        {"model": "from-editor", "provider": "ollama"},
        environ={"RUNE_MODEL": "from-env", "RUNE_PROVIDER": "openai", "RUNE_API_KEY": "sk-1"},
    )
    assert settings.model == "from-env"
    assert settings.provider == "openai"
    assert settings.api_key == "sk-1"


def test_a_bad_value_names_its_key_and_keeps_the_default_only_for_that_key() -> None:
    settings, problems = load_settings(
        {"maxIterations": 12, "model": "m1", "requestTimeout": "soon"}, environ={}
    )
    assert settings.max_iterations == 8
    assert settings.request_timeout == 120
    assert settings.model == "m1"
    keys = sorted(p.key for p in problems)
    assert keys == ["maxIterations", "requestTimeout"]
    assert all("using the default" in str(p) for p in problems)
    assert "maxIterations" in str(next(p for p in problems if p.key == "maxIterations"))


def test_bad_provider_and_url() -> None:
    settings, problems = load_settings({"provider": "gpt", "baseUrl": "ftp://x"}, environ={})
    assert settings.provider == "ollama"
    assert settings.base_url is None
    assert {p.key for p in problems} == {"provider", "baseUrl"}


def test_repeat_thresholds_must_be_ordered() -> None:
    settings, problems = load_settings({"repeatWarnAt": 4, "repeatBlockAt": 3}, environ={})
    assert (settings.repeat_warn_at, settings.repeat_block_at) == (2, 3)
    assert [p.key for p in problems] == ["repeatBlockAt"]


def test_api_key_value_is_never_echoed_in_a_problem() -> None:
    _, problems = load_settings({"apiKey": ["sk-secret-value"]}, environ={})
    assert problems and "sk-secret-value" not in str(problems[0])
    assert "sk-secret" not in repr(Settings(api_key="sk-secret"))


def test_urls_without_a_host_or_with_a_broken_port_are_refused() -> None:
    for bad in ("http://", "http://[::1", "http://host:port", "https:///v1"):
        settings, problems = load_settings({"baseUrl": bad}, environ={})
        assert settings.base_url is None, bad
        assert [p.key for p in problems] == ["baseUrl"], bad


def test_output_cap_and_temperature_defaults() -> None:
    settings, problems = load_settings({}, environ={})
    assert problems == []
    assert settings.max_output_tokens is None  # fitted to the context by the provider
    assert settings.temperature == 0.2


def test_output_cap_and_temperature_from_the_editor() -> None:
    settings, problems = load_settings({"maxOutputTokens": 512, "temperature": 0}, environ={})
    assert problems == []
    assert (settings.max_output_tokens, settings.temperature) == (512, 0)


def test_bad_output_cap_and_temperature_name_their_keys_and_keep_the_defaults() -> None:
    settings, problems = load_settings(
        {"maxOutputTokens": 0, "temperature": "hot", "model": "m1"}, environ={}
    )
    assert (settings.max_output_tokens, settings.temperature, settings.model) == (None, 0.2, "m1")
    assert sorted(p.key for p in problems) == ["maxOutputTokens", "temperature"]
    assert all("using the default" in str(p) for p in problems)

    settings, problems = load_settings({"temperature": 5, "maxOutputTokens": 10**6}, environ={})
    assert (settings.max_output_tokens, settings.temperature) == (None, 0.2)
    assert sorted(p.key for p in problems) == ["maxOutputTokens", "temperature"]
