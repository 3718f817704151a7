"""Running `python -m rune_lsp ...` as the user would, in a temp workspace, against the double."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

#: A subprocess that takes longer than this is hung: fail the test rather than the whole run.
TIMEOUT = 30


@dataclass(frozen=True)
class Finished:
    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def clean_environ(extra: Mapping[str, str]) -> dict[str, str]:
    """The parent's environment minus anything that would change what the CLI does."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("RUNE_") and key not in ("NO_COLOR", "TERM")
    }
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


def rune_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "rune_lsp", *args]


def run_cli(
    args: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    stdin: str = "",
) -> Finished:
    completed = subprocess.run(
        rune_command(*args),
        cwd=cwd,
        env=clean_environ(env),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    return Finished(completed.returncode, completed.stdout, completed.stderr)
