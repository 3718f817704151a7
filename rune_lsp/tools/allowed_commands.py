"""Which commands `run_command` may run without asking (setting `allowedCommands`).

A pattern is a command exactly as the model would send it, or a prefix ending in ` *`:
`python -m pytest *` allows `python -m pytest` and `python -m pytest -q tests/test_x.py`. The
command runs through a shell, so the words after a prefix may not hold anything the shell would
read as another command, a substitution or a redirection: `python -m pytest -q; rm -rf ~` is
asked about like any other command. Commands the user allowed for the rest of a run join the
run's allowance (`adding`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: A prefix pattern ends with this.
PREFIX_MARK = " *"
#: What may not follow an allowed prefix: the shell's command separators, substitutions,
#: redirections, grouping, and any control character (a newline is a second command).
_SHELL_SYNTAX = re.compile(r"[;&|`$<>(){}\\\x00-\x1f\x7f]")


@dataclass(frozen=True)
class CommandAllowance:
    patterns: tuple[str, ...] = ()

    def allows(self, command: str) -> bool:
        return any(_matches(pattern, command) for pattern in self.patterns)

    def adding(self, command: str) -> CommandAllowance:
        """This allowance and `command` exactly (the user's "allow for this run")."""
        return self if command in self.patterns else CommandAllowance((*self.patterns, command))


def _matches(pattern: str, command: str) -> bool:
    if not pattern.endswith(PREFIX_MARK):
        return command.strip() == pattern.strip()
    prefix = pattern[: -len(PREFIX_MARK)].strip()
    if not prefix or _SHELL_SYNTAX.search(prefix):
        return False  # a pattern that would allow anything, or shell syntax, allows nothing
    command = command.strip()
    if command == prefix:
        return True
    rest = command[len(prefix) :]
    return command.startswith(prefix) and rest[:1] == " " and not _SHELL_SYNTAX.search(rest)


def valid_pattern(pattern: str) -> str | None:
    """Why `pattern` cannot be an `allowedCommands` entry, or None."""
    if not pattern.strip():
        return "an empty command allows nothing"
    if not pattern.endswith(PREFIX_MARK):
        return None  # an exact command: whatever it holds, only that command matches
    if not pattern[: -len(PREFIX_MARK)].strip():
        return "` *` alone would allow every command; name the command before it"
    if _SHELL_SYNTAX.search(pattern[: -len(PREFIX_MARK)]):
        return (
            "a prefix may not hold shell syntax (; & | ` $ < > ( ) { } \\ or a control character)"
        )
    return None
