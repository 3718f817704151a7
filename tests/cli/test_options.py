"""Settings from the command line: flag > RUNE_* environment > default, bad flags exit 2."""

from __future__ import annotations

import argparse

import pytest

from rune_lsp.__main__ import build_parser
from rune_lsp.cli.errors import UsageError
from rune_lsp.cli.options import setting_flags, settings_from
from rune_lsp.settings import Settings


def _args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["check", *argv])


def test_defaults_without_flags_or_environment() -> None:
    settings, problems = settings_from(_args(), environ={})
    assert settings == Settings()
    assert problems == []


def test_environment_beats_the_default() -> None:
    env = {"RUNE_MODEL": "llama3", "RUNE_PROVIDER": "openai", "RUNE_STATE_DIR": "/tmp/s"}
    settings, _ = settings_from(_args(), environ=env)
    assert (settings.model, settings.provider, settings.state_dir) == ("llama3", "openai", "/tmp/s")


def test_flag_beats_the_environment() -> None:
    env = {"RUNE_MODEL": "llama3", "RUNE_BASE_URL": "http://env:1"}
    settings, _ = settings_from(
        _args("--model", "qwen3:8b", "--base-url", "http://flag:2/"), environ=env
    )
    assert settings.model == "qwen3:8b"
    assert settings.base_url == "http://flag:2"


def test_flags_keep_environment_values_they_do_not_name() -> None:
    env = {"RUNE_MODEL": "llama3", "RUNE_API_KEY": "sk-env"}
    settings, _ = settings_from(_args("--provider", "openai"), environ=env)
    assert (settings.provider, settings.model, settings.api_key) == ("openai", "llama3", "sk-env")


def test_every_setting_but_the_api_key_has_a_flag() -> None:
    flagged = {flag.field for flag in setting_flags()}
    assert flagged == set(Settings.model_fields) - {"api_key"}
    with pytest.raises(SystemExit):
        build_parser().parse_args(["check", "--api-key", "sk-visible-in-ps"])


def test_typed_and_repeated_flags() -> None:
    settings, _ = settings_from(
        _args(
            "--max-iterations",
            "3",
            "--request-timeout",
            "7.5",
            "--allowed-write-dirs",
            "src",
            "--allowed-write-dirs",
            "tests",
            "--check-command",
            "pytest -q",
            "--native-tools",
            "false",
            "--repeat-warn-at",
            "3",
            "--repeat-block-at",
            "5",
        ),
        environ={},
    )
    assert settings.max_iterations == 3
    assert settings.request_timeout == 7.5
    assert settings.allowed_write_dirs == ("src", "tests")
    assert settings.check_command == "pytest -q"
    assert settings.native_tools is False
    assert (settings.repeat_warn_at, settings.repeat_block_at) == (3, 5)


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["--max-iterations", "0"], "--max-iterations"),
        (["--max-iterations", "many"], "--max-iterations"),
        (["--provider", "bedrock"], "--provider"),
        (["--request-timeout", "-1"], "--request-timeout"),
        (["--repeat-warn-at", "4"], "--repeat-block-at"),  # now not above repeatWarnAt
    ],
)
def test_a_bad_flag_is_a_usage_error_naming_it(argv: list[str], flag: str) -> None:
    with pytest.raises(UsageError, match=f"invalid {flag}: "):
        settings_from(_args(*argv), environ={})


def test_a_bad_environment_value_is_a_warning_and_the_default_stays() -> None:
    settings, problems = settings_from(_args(), environ={"RUNE_BASE_URL": "localhost:11434"})
    assert settings.base_url is None
    assert [p.key for p in problems] == ["baseUrl"]


def test_a_flag_overrides_a_bad_environment_value_which_is_still_reported() -> None:
    settings, problems = settings_from(
        _args("--base-url", "http://good:1"), environ={"RUNE_BASE_URL": "bad"}
    )
    assert settings.base_url == "http://good:1"
    assert [p.key for p in problems] == ["baseUrl"]  # still worth knowing the env is wrong


def test_log_level_is_accepted_before_and_after_the_command() -> None:
    assert build_parser().parse_args(["--log-level", "debug", "check"]).log_level == "DEBUG"
    assert build_parser().parse_args(["check", "--log-level", "error"]).log_level == "ERROR"
    assert build_parser().parse_args(["check"]).log_level == ""
    with pytest.raises(SystemExit):
        build_parser().parse_args(["check", "--log-level", "loud"])


def test_yes_and_no_exclude_each_other() -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["fix", "a.py", "--yes", "--no"])


def test_help_shows_what_each_value_looks_like(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["check", "--help"])
    shown = capsys.readouterr().out
    for usage in (
        "--provider {ollama,openai,local}",
        "--max-iterations N",
        "--allowed-write-dirs DIR",
        "--native-tools {true,false}",
        "--model MODEL",
        "(env RUNE_MODEL)",
    ):
        assert usage in shown
