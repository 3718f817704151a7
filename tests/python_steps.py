"""How much work a call does, counted rather than timed: the lines of Python it runs.

A test that compares CPU times depends on the machine and what else runs on it (issue 25,
item 10: no test outcome may depend on the machine's speed); how fast the reader is stays
`bench/reading.py`'s business. What a test can hold is the shape of the work: ten times the
input runs about ten times the lines, never a hundred times. The reader's hot paths are Python
(difflib's SequenceMatcher too), and the regular expressions they call are kept to bounded
text (`answers/code/fences._NAMING_LENGTH`), so Python lines are where growth would show.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any


def lines_run(call: Callable[[], object]) -> int:
    """How many lines of Python `call()` runs (every frame it enters, however deep)."""
    count = 0

    def local(frame: FrameType, event: str, arg: Any) -> Callable[..., Any]:
        nonlocal count
        if event == "line":
            count += 1
        return local

    def entered(frame: FrameType, event: str, arg: Any) -> Callable[..., Any]:
        return local

    previous = sys.gettrace()
    sys.settrace(entered)
    try:
        call()
    finally:
        sys.settrace(previous)
    return count
