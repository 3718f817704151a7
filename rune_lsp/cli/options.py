"""Command-line flags for `check` and `fix`: the same settings the server reads, as flags."""

from __future__ import annotations

import argparse
from typing import Any

from rune_lsp.settings import Settings, SettingsProblem, load_settings

#: flag -> settings key (camelCase, as in the editor's configuration)
SETTING_FLAGS: dict[str, str] = {
    "--provider": "provider",
    "--base-url": "baseUrl",
    "--model": "model",
    "--max-iterations": "maxIterations",
    "--check-command": "checkCommand",
    "--request-timeout": "requestTimeout",
    "--state-dir": "stateDir",
}


def add_setting_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("settings (override RUNE_* environment variables)")
    for flag, key in SETTING_FLAGS.items():
        group.add_argument(flag, dest=f"setting_{key}", metavar=key.upper(), default=None)


def settings_from(args: argparse.Namespace) -> tuple[Settings, list[SettingsProblem]]:
    raw: dict[str, Any] = {}
    for key in SETTING_FLAGS.values():
        value = getattr(args, f"setting_{key}", None)
        if value is not None:
            raw[key] = value
    settings, problems = load_settings({})
    # Flags beat the environment: validate them on top of what the environment gave.
    merged = settings.model_dump(by_alias=True, exclude_none=True) | raw
    flagged, flag_problems = load_settings(merged, environ={})
    return flagged, problems + flag_problems


def add_check_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "check", help="probe the configured provider and model and print a short report"
    )
    add_setting_flags(parser)


def add_fix_parser(commands: Any) -> None:
    parser = commands.add_parser("fix", help="run the agent on a file from the terminal")
    parser.add_argument("target", metavar="PATH[:LINE[-LINE]]")
    parser.add_argument("-m", "--message", dest="instruction", default=None)
    answers = parser.add_mutually_exclusive_group()
    answers.add_argument("--yes", action="store_true", help="accept every edit")
    answers.add_argument("--no", action="store_true", help="reject every edit")
    parser.add_argument("--json", action="store_true", help="print the run result as JSON")
    add_setting_flags(parser)
