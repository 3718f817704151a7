"""Server settings: where they come from, how they merge, what the user is told."""

from __future__ import annotations

import pytest

from rune_lsp.server import config
from rune_lsp.settings import Settings, SettingsProblem


@pytest.fixture(autouse=True)
def _no_rune_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("RUNE_PROVIDER", "RUNE_BASE_URL", "RUNE_MODEL", "RUNE_API_KEY", "RUNE_STATE_DIR"):
        monkeypatch.delenv(var, raising=False)


def test_the_settings_log_line_of_the_local_provider_names_its_model_not_a_url() -> None:
    line = config.describe(Settings(provider="local", local_model="qwen-0.5b"))
    assert "local model qwen-0.5b (a llama-server rune starts on first use)" in line
    assert "qwen3:14b" not in line and "127.0.0.1" not in line


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"rune": {"model": "m"}}, {"model": "m"}),
        ({"model": "m"}, {"model": "m"}),
        ({"rune": "not a section", "model": "m"}, {"rune": "not a section", "model": "m"}),
        (None, {}),
        (["model", "m"], {}),
        ("model=m", {}),
    ],
)
def test_options_accept_a_rune_section_or_a_flat_object(raw: object, expected: object) -> None:
    assert config.options_from(raw) == expected


def test_later_sources_win_key_by_key_and_null_means_not_set() -> None:
    merged = config.merge({"model": "a", "provider": "openai"}, {"model": "b", "provider": None})

    assert merged == {"model": "b", "provider": "openai"}


def test_configuration_overrides_initialization_options() -> None:
    settings, problems = config.resolve(
        {"rune": {"model": "from-init", "maxIterations": 3}}, {"model": "from-config"}
    )

    assert (settings.model, settings.max_iterations) == ("from-config", 3)
    assert problems == []


def test_a_bad_value_names_its_key_and_keeps_the_default() -> None:
    settings, problems = config.resolve({"maxIterations": 12, "model": "m"}, None)

    assert settings.max_iterations == Settings().max_iterations
    assert settings.model == "m"
    [problem] = problems
    assert problem.key == "maxIterations"
    message = config.problem_message(problem)
    assert "`maxIterations`" in message.message and "12" in message.message


def test_only_problems_not_reported_before_are_new() -> None:
    old = SettingsProblem("maxIterations", "too big: got 12")
    new = SettingsProblem("model", "too short: got ''")

    assert config.new_problems([old], [old, new]) == [new]
    assert config.new_problems([], [old]) == [old]
    assert config.new_problems([old, new], []) == []


def test_the_settings_log_line_never_shows_the_api_key() -> None:
    settings = Settings(model="m", api_key="sk-secret", check_command="pytest -q")

    line = config.describe(settings)

    assert "sk-secret" not in line
    assert "ollama model m at http://127.0.0.1:11434" in line
    assert "maxIterations 8" in line and "`pytest -q`" in line


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("0.5", 0.5), ("3", 3.0), ("", 2.0), ("soon", 2.0), ("0", 2.0), ("-1", 2.0), ("61", 2.0)],
)
def test_change_grace_comes_from_the_environment_within_bounds(raw: str, expected: float) -> None:
    assert config.change_grace({config.CHANGE_GRACE_ENV: raw}, 2.0) == expected
    assert config.change_grace({}, 2.0) == 2.0
