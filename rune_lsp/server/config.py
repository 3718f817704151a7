"""Settings for the server: initializationOptions, then `workspace/configuration` section `rune`.

Each source is validated key by key; a bad value is shown to the user naming the key, and the
default for that key is kept (see `rune_lsp.settings.load_settings`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lsprotocol import types

from rune_lsp.settings import Settings, SettingsProblem, load_settings

SECTION = "rune"


def options_from(raw: object) -> dict[str, Any]:
    """Accept both `{"rune": {...}}` and a flat `{...}`; anything else counts as empty."""
    if not isinstance(raw, Mapping):
        return {}
    nested = raw.get(SECTION)
    if isinstance(nested, Mapping):
        return {str(k): v for k, v in nested.items()}
    return {str(k): v for k, v in raw.items()}


def merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """Later sources win key by key; a `null` from the editor means "not set"."""
    merged = dict(base)
    merged.update({k: v for k, v in override.items() if v is not None})
    return merged


def resolve(
    initialization_options: object, configuration: object
) -> tuple[Settings, list[SettingsProblem]]:
    return load_settings(merge(options_from(initialization_options), options_from(configuration)))


def new_problems(
    shown: Sequence[SettingsProblem], current: Sequence[SettingsProblem]
) -> list[SettingsProblem]:
    """Problems not already reported by the previous read of the settings."""
    return [problem for problem in current if problem not in shown]


def describe(settings: Settings) -> str:
    """One log line saying what runs will use (never the API key)."""
    check = f", checkCommand `{settings.check_command}`" if settings.check_command else ""
    if settings.provider == "local":  # its model and port are rune's own choice
        where = f"local model {settings.local_model} (a llama-server rune starts on first use)"
    else:
        where = f"{settings.provider} model {settings.model} at {settings.resolved_base_url}"
    return (
        f"rune: {where}, "
        f"maxIterations {settings.max_iterations}, requestTimeout {settings.request_timeout:g} s"
        f"{check}"
    )


def problem_message(problem: SettingsProblem) -> types.ShowMessageParams:
    return types.ShowMessageParams(type=types.MessageType.Warning, message=str(problem))


#: Not user settings: how long review waits for the didChange after an accepted applyEdit, and
#: for the editor's answer to an applyEdit (knobs for unusual editors, and for tests).
CHANGE_GRACE_ENV = "RUNE_CHANGE_GRACE"
REVIEW_WAIT_ENV = "RUNE_REVIEW_WAIT"


def change_grace(environ: Mapping[str, str], default: float) -> float:
    """Seconds from `RUNE_CHANGE_GRACE` (0 < value <= 60), else `default`."""
    return env_seconds(environ, CHANGE_GRACE_ENV, default, most=60)


def review_wait(environ: Mapping[str, str], default: float) -> float:
    """Seconds from `RUNE_REVIEW_WAIT` (0 < value <= 86400), else `default`."""
    return env_seconds(environ, REVIEW_WAIT_ENV, default, most=86_400)


def env_seconds(environ: Mapping[str, str], name: str, default: float, *, most: float) -> float:
    raw = environ.get(name, "").strip()
    try:
        value = float(raw) if raw else default
    except ValueError:
        return default
    return value if 0 < value <= most else default
