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


def make_workspace(root: Path, text: str = BUGGY) -> Path:
    """A project folder (a `.git` marks its root) holding the buggy file; returns the file."""
    (root / ".git").mkdir(parents=True)
    path = root / FILE_NAME
    path.write_text(text, encoding="utf-8")
    return path


def server_executable() -> Path:
    """The `rune-lsp` console script next to the interpreter running the tests (the venv's)."""
    return Path(sys.executable).parent / "rune-lsp"


# --- the per-hunk flow: one edit of three hunks, each decided on its own ----------------------

#: (buggy, fixed) line of each hunk, in file order.
HUNK_FIXES = (
    ("    return sum(prices) + 1", "    return sum(prices)"),
    (BUGGY_LINE, FIXED_LINE),
    ("    return max(values) + 1", "    return max(values)"),
)
HUNKS_BUGGY = BUGGY
for _buggy, _fixed in (HUNK_FIXES[0], HUNK_FIXES[2]):
    HUNKS_BUGGY = HUNKS_BUGGY.replace(_fixed, _buggy)
#: 0-based line of each hunk.
HUNK_LINES = tuple(HUNKS_BUGGY.splitlines().index(buggy) for buggy, _ in HUNK_FIXES)
#: What the reject of hunk 2 says; the model's next request carries it.
REASON = "keep the + 1 in average(): its callers rely on it"
HUNKS_ANSWER = "Fixed total() and largest(); average() keeps its + 1."


def hunks_kept(*kept: int) -> str:
    """HUNKS_BUGGY with only the hunks numbered `kept` (from 1) applied."""
    text = HUNKS_BUGGY
    for number in kept:
        buggy, fixed = HUNK_FIXES[number - 1]
        text = text.replace(buggy, fixed)
    return text


def script_hunks(double: ModelDouble) -> None:
    """The model reads the file and proposes one edit_file that fixes all three lines."""
    first, last = HUNK_LINES[0], HUNK_LINES[-1]
    old = "\n".join(HUNKS_BUGGY.splitlines()[first : last + 1])
    new = "\n".join(hunks_kept(1, 2, 3).splitlines()[first : last + 1])
    double.script(
        Reply(tool_calls=(Call("read_file", {"path": FILE_NAME}),)),
        Reply(
            tool_calls=(Call("edit_file", {"path": FILE_NAME, "old_text": old, "new_text": new}),)
        ),
        Reply(text=HUNKS_ANSWER),
    )
