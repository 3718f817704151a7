"""The terminal's half of the review: each pending change shown, then `[y/n/q]`.

`y` approves (the executor re-checks and applies), `n` rejects, `q` rejects this change and
every later one without asking, and tells the model to stop proposing. End of input counts as
`q`: nothing is applied that nobody approved. `--yes` / `--no` answer every question for scripts.

Everything shown here but the prompt's own words is the model's: it passes `controls.visible`
before it is printed (colours are added after), and a command is shown whole, wrapped at the
terminal's width, before it is asked about (issue 25, item 1).
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from rune_lsp.cli.target import relative_to_root
from rune_lsp.cli.terminal import DEFAULT_WIDTH, AnswerSource
from rune_lsp.controls import visible
from rune_lsp.loop.state import (
    Approve,
    Decision,
    PreparedChange,
    PreparedCommand,
    PreparedEdit,
    Reject,
    RunState,
)
from rune_lsp.review.diff import checked_suffix, colorize, unified_diff
from rune_lsp.text_clip import shorten

#: The model's words next to a change can be long; the diff is what the user decides on.
MAX_REASON_SHOWN = 800

REJECTED = "the user answered no at the terminal"
QUIT = (
    "the user ended the review: make no further changes and give your final answer, saying "
    "what is left undone"
)
NO_INPUT = "no answer was given (end of input); nothing was applied"
PRESET_NO = "rejected with --no"


class TerminalReviewer:
    """A `Reviewer` for the run driver, asking on `out` and reading `answers`."""

    def __init__(
        self,
        *,
        root: Path,
        out: TextIO,
        answers: AnswerSource | None = None,
        preset: bool | None = None,
        color: bool = False,
        width: int = DEFAULT_WIDTH,
    ) -> None:
        if preset is None and answers is None:
            raise ValueError("a TerminalReviewer needs answers unless every answer is preset")
        self._root = root
        self._out = out
        self._answers = answers
        self._preset = preset
        self._color = color
        self._width = width
        self._stopped: str | None = None  # why the review ended early (q or end of input)

    async def decide(self, change: PreparedChange, state: RunState) -> Decision:
        label = f"{change.tool}{self._target(change)}"
        if isinstance(change, PreparedEdit):
            label += checked_suffix(change)
        if self._stopped is not None:
            self._write(f"skipped {label}: the review has ended\n")
            return Reject(reason=self._stopped)
        self._show(change, state, label)
        reply = await self._reply(self._question(change))
        if reply == "y":
            return Approve()
        if reply == "n":
            return Reject(reason=REJECTED)
        if reply == "--no":
            return Reject(reason=PRESET_NO)
        self._stopped = QUIT if reply == "q" else NO_INPUT
        return Reject(reason=self._stopped)

    async def decide_command(self, change: PreparedCommand, asking: str) -> Decision:
        """A command asked about before the run (the check rune offers), as `decide` asks
        about the model's `run_command`; `q` and `n` alike deny it."""
        self._write(f"\n{asking}\n$ {change.command}\n  (in {self._target_dir(change)})\n")
        reply = await self._reply(self._question(change))
        if reply == "y":
            return Approve()
        if reply == "--no":
            return Reject(reason=PRESET_NO)
        if not reply:  # end of input: nothing later is approved either
            self._stopped = NO_INPUT
        return Reject(reason=REJECTED)

    async def withdraw(self) -> None:
        # Nothing stays on screen to take away; a late answer must not apply anything.
        self._stopped = self._stopped or QUIT

    def _show(self, change: PreparedChange, state: RunState, label: str) -> None:
        pending = state.turn.pending
        position = next((n for n, p in enumerate(pending, 1) if p.edit_id == change.edit_id), 1)
        lines = [f"\n[{position}/{len(pending)}] {label}\n"]
        reason = change.reason.strip()
        if reason:
            lines.append(f"{visible(shorten(reason, MAX_REASON_SHOWN))}\n")
        if isinstance(change, PreparedEdit):
            lines.append(self._diff(change))
        else:
            lines.append(command_rows(change.command, self._width))
            lines.append(f"  (in {visible(self._target_dir(change))})\n")
        self._write("".join(lines))

    def _diff(self, edit: PreparedEdit) -> str:
        diff = visible(unified_diff(edit, display_path=relative_to_root(edit.path, self._root)))
        if not diff:
            return "(this edit changes nothing)\n"
        return colorize(diff) if self._color else diff

    def _question(self, change: PreparedChange) -> str:
        action = "Run this command" if isinstance(change, PreparedCommand) else "Apply this edit"
        return f"{action}? [y/n/q] "

    async def _reply(self, question: str) -> str:
        """The answer to `question`: "y", "n", "q", "" (end of input), or "--no" (preset)."""
        if self._preset is not None:
            self._write(f"{question}{'y (--yes)' if self._preset else 'n (--no)'}\n")
            return "y" if self._preset else "--no"
        return await self._ask(question)

    async def _ask(self, question: str) -> str:
        """ "y", "n" or "q"; end of input gives ""."""
        assert self._answers is not None
        while True:
            self._write(question)
            line = await self._answers.readline()
            if not line:
                self._write("\n(end of input: rejected)\n")
                return ""
            reply = line.strip().lower()
            if reply in ("y", "yes", "n", "no", "q", "quit"):
                return reply[0]
            self._write("Please answer y (apply), n (reject) or q (reject this and the rest).\n")

    def _target(self, change: PreparedChange) -> str:
        """The file, or for a command nothing: the command follows whole."""
        if isinstance(change, PreparedEdit):
            return " " + visible(relative_to_root(change.path, self._root))
        return ""

    def _target_dir(self, command: PreparedCommand) -> str:
        shown = relative_to_root(command.cwd, self._root)
        return "the workspace root" if shown == "." else shown

    def _write(self, text: str) -> None:
        self._out.write(text)
        self._out.flush()


def command_rows(command: str, width: int) -> str:
    """The whole command as the user is asked about it: control characters shown (a carriage
    return too, which the shell would run as part of the line), cut into rows of at most
    `width` columns, `$ ` before the first and `> ` before every other (a wrapped row or a line
    of its own). No part of it can hide past the edge, under a run of blanks or under a
    benign first line."""
    text = visible(command).replace("\r", "\\x0d")
    size = max(1, width - 2)
    rows = [
        line[start : start + size]
        for line in text.split("\n")
        for start in range(0, max(len(line), 1), size)
    ]
    return "".join(f"{'$' if n == 0 else '>'} {row}\n" for n, row in enumerate(rows))
