"""The one fix every editor test performs: a one-line bug, and the model's script for it.

The model double plays a model that reads the file, proposes one `edit_file` that fixes the
bug, and then answers in text; the editor decides whether that edit lands.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.doubles.model_double import Call, ModelDouble, Reply

FILE_NAME = "calc.py"
MODEL = "qwen3:14b"

BUGGY_LINE = "    return sum(values) / len(values) + 1"
FIXED_LINE = "    return sum(values) / len(values)"

BUGGY = f'''"""Small helpers."""


def total(prices):
    return sum(prices)


def average(values):
{BUGGY_LINE}


def largest(values):
    return max(values)
'''
FIXED = BUGGY.replace(BUGGY_LINE, FIXED_LINE)

#: 0-based line of the bug: where the user asks for the fix, where the pending edit shows.
BUG_LINE = BUGGY.splitlines().index(BUGGY_LINE)

ANSWER = "average() added 1 to the mean; the edit removes it."


def script_fix(double: ModelDouble) -> None:
    double.script(
        Reply(tool_calls=(Call("read_file", {"path": FILE_NAME}),)),
        Reply(
            tool_calls=(
                Call(
                    "edit_file",
                    {"path": FILE_NAME, "old_text": BUGGY_LINE, "new_text": FIXED_LINE},
                ),
            )
        ),
        Reply(text=ANSWER),
    )


def make_workspace(root: Path) -> Path:
    """A project folder (a `.git` marks its root) holding the buggy file; returns the file."""
    (root / ".git").mkdir(parents=True)
    path = root / FILE_NAME
    path.write_text(BUGGY, encoding="utf-8")
    return path


def server_executable() -> Path:
    """The `rune-lsp` console script next to the interpreter running the tests (the venv's)."""
    return Path(sys.executable).parent / "rune-lsp"
