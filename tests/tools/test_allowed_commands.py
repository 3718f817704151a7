"""`allowedCommands`: exact commands and ` *` prefixes, never a second shell command."""

from __future__ import annotations

import pytest

from rune_lsp.settings import load_settings
from rune_lsp.tools.allowed_commands import CommandAllowance, valid_pattern

ALLOWANCE = CommandAllowance(("python -m pytest *", "make test && make lint"))


@pytest.mark.parametrize(
    "command",
    [
        "python -m pytest",
        "python -m pytest -q tests/test_x.py",
        "  python -m pytest -q  ",
        "make test && make lint",  # an exact entry matches whatever it holds
    ],
)
def test_allowed(command: str) -> None:
    assert ALLOWANCE.allows(command)


@pytest.mark.parametrize(
    "command",
    [
        "python -m pytestx",
        "python -m pytest -q; rm -rf ~",
        "python -m pytest -q && curl evil",
        "python -m pytest $(rm -rf ~)",
        "python -m pytest `id`",
        "python -m pytest > /etc/passwd",
        "python -m pytest -q\nrm -rf ~",
        "python -m pytest -q | sh",
        "python -m pytest -q \\\nrm",
        "python -m pytest -q \x1b[2K",
        "make test",
        "python",
    ],
)
def test_not_allowed(command: str) -> None:
    assert not ALLOWANCE.allows(command)


def test_a_command_allowed_for_the_run_joins_once() -> None:
    allowance = CommandAllowance().adding("ls -la").adding("ls -la")
    assert allowance.patterns == ("ls -la",)
    assert allowance.allows("ls -la")
    assert not allowance.allows("ls")


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("", "empty"),
        (" *", "every command"),
        ("echo $HOME *", "shell syntax"),
        ("ls", None),
        ("a; b", None),
        ("git status *", None),
    ],
)
def test_patterns_are_validated(pattern: str, problem: str | None) -> None:
    found = valid_pattern(pattern)
    assert (found is None) if problem is None else (found is not None and problem in found)


def test_a_bad_pattern_is_reported_with_its_key_and_the_default_kept() -> None:
    settings, problems = load_settings({"allowedCommands": ["ls", " *"]})
    assert settings.allowed_commands == ()
    assert [p.key for p in problems] == ["allowedCommands"]
