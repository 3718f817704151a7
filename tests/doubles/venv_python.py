"""A workspace's own `.venv/bin/python`, as a user's virtualenv: this test run's interpreter,
without bytecode and without the plugins of this venv that print warnings into every pytest
report (the check rune offers runs the workspace's virtualenv first)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path


def venv_python(workspace: Path) -> Path:
    python = workspace / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    wrapped = shlex.join([sys.executable, "-B"])
    python.write_text(
        f'#!/bin/sh\nexec {wrapped} "$@" -p no:cacheprovider -p no:asyncio\n', "utf-8"
    )
    python.chmod(0o755)
    return python
