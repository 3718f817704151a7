"""The terminal's view of provisioning: a redrawn bar on a terminal, milestone lines elsewhere.

Downloads show bytes and percent, the build its compile steps; a log (CI, a pipe) gets a line
when the step changes and every 10 percent, not one per redraw.
"""

from __future__ import annotations

import threading
import time
from typing import TextIO

from rune_lsp.localmodel.progress import Step

_WIDTH = 24
_REDRAW = 0.1  # seconds between redraws on a terminal


class ProgressBar:
    def __init__(self, out: TextIO, *, tty: bool | None = None) -> None:
        self._out = out
        self._tty = out.isatty() if tty is None else tty
        self._lock = threading.Lock()  # called from the provisioning thread
        self._message = ""
        self._decile = -1
        self._drawn = 0.0
        self._open_line = False

    def __call__(self, step: Step) -> None:
        with self._lock:
            if self._tty:
                self._draw(step)
            else:
                self._log(step)

    def finish(self) -> None:
        with self._lock:
            if self._open_line:
                self._out.write("\n")
                self._out.flush()
                self._open_line = False

    def _draw(self, step: Step) -> None:
        changed = step.message != self._message
        now = time.monotonic()
        if not changed and now - self._drawn < _REDRAW and step.done != step.total:
            return
        if changed and self._open_line and self._message:
            self._out.write("\n")  # keep the finished step's last state on screen
        self._message, self._drawn = step.message, now
        self._out.write("\r\x1b[2K" + render(step))
        self._out.flush()
        self._open_line = True

    def _log(self, step: Step) -> None:
        percent = step.percent
        decile = percent // 10 if percent is not None else -1
        if step.message == self._message and decile == self._decile:
            return
        self._message, self._decile = step.message, decile
        self._out.write(render(step) + "\n")
        self._out.flush()


def render(step: Step) -> str:
    """`[#####.......]  41%  458/1117 MB  downloading qwen-1.5b (part 9/22)`."""
    percent = step.percent
    if percent is None:
        return step.message
    filled = percent * _WIDTH // 100
    bar = "[" + "#" * filled + "." * (_WIDTH - filled) + "]"
    return f"{bar} {percent:3d}%  {step.amount}  {step.message}"
