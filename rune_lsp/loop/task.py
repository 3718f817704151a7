"""What the user asked for, as the first user message of a run.

Front ends (the LSP server, the terminal) describe the target in these editor-neutral terms; the
prompt text is composed in one place so both give the model the same picture.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from rune_lsp.answers.code_prompts import BLOCK_ASK
from rune_lsp.lines import line_texts
from rune_lsp.text_clip import clip, shorten

DEFAULT_INSTRUCTION = "Fix the problem at this range."
#: Lines of context shown around the range, so the model rarely needs a first read_file.
CONTEXT_LINES = 20
MAX_EXCERPT_CHARS = 6_000
#: The range's own lines, quoted above the excerpt.
MAX_RANGE_CHARS = 1_500
#: A diagnostic's line, quoted beside it.
MAX_QUOTED_LINE = 80
#: How the prompt names the task's file.
FILE_LABEL = "File: "


class TaskDiagnostic(BaseModel):
    model_config = ConfigDict(frozen=True)

    line: int = Field(ge=0)  # 0-based, like LSP
    message: str
    severity: str = "error"
    source: str | None = None
    code: str | None = None


class FixTask(BaseModel):
    """A `Fix this` request: a file, an optional 0-based line range, diagnostics, instruction."""

    model_config = ConfigDict(frozen=True)

    path: str  # as the model should name it: relative to the workspace root when inside it
    text: str  # the document's current text (the editor's buffer when open)
    start_line: int | None = Field(None, ge=0)
    end_line: int | None = Field(None, ge=0)
    diagnostics: tuple[TaskDiagnostic, ...] = ()
    instruction: str | None = None

    def prompt(self) -> str:
        instruction = (self.instruction or "").strip() or DEFAULT_INSTRUCTION
        lines = line_texts(self.text)  # split as the editor splits them
        parts = [f"Task: {instruction}", f"{FILE_LABEL}{self.path}"]
        if self.start_line is not None:
            end = self.end_line if self.end_line is not None else self.start_line
            quoted = lines[self.start_line : end + 1]
            parts.append(f"Range: lines {self.start_line + 1}-{end + 1}{':' if quoted else ''}")
            if quoted:
                parts.append(fenced(quoted, MAX_RANGE_CHARS))
        if self.diagnostics:
            parts.append("Diagnostics:")
            parts.extend(_diagnostic_line(d, lines) for d in self.diagnostics)
        parts.append(self._excerpt(lines))
        parts.append(f"Make the smallest change that solves the task. {BLOCK_ASK.capitalize()}.")
        return "\n".join(parts)

    def _excerpt(self, lines: list[str]) -> str:
        if not lines:
            return "The file is empty."
        if self.start_line is None:
            first, last = 0, min(len(lines), 2 * CONTEXT_LINES) - 1
        else:
            end = self.end_line if self.end_line is not None else self.start_line
            first = max(0, self.start_line - CONTEXT_LINES)
            last = min(len(lines) - 1, end + CONTEXT_LINES)
        shown = fenced(lines[first : last + 1], MAX_EXCERPT_CHARS)
        if first == 0 and last == len(lines) - 1:
            return shown
        return (
            f"Excerpt (lines {first + 1}-{last + 1} of {len(lines)}; "
            f"use read_file for the rest):\n{shown}"
        )


@dataclass(frozen=True)
class FixTarget:
    """What a front end was asked to fix, before the file is read (runner/assembly.py reads
    it under the tools' rules and composes the task)."""

    path: Path  # absolute
    start_line: int | None = None  # 0-based, like LSP
    end_line: int | None = None
    instruction: str | None = None
    diagnostics: tuple[TaskDiagnostic, ...] = ()
    #: A follow-up turn: the run whose conversation this one continues (runner/assembly.py).
    continues: str | None = None

    def task(self, shown: str, text: str) -> FixTask:
        """The task on `text`, its file named `shown` (as the tools name it)."""
        return FixTask(
            path=shown,
            text=text,
            start_line=self.start_line,
            end_line=self.end_line,
            diagnostics=self.diagnostics,
            instruction=self.instruction,
        )


def file_listing(path: str, text: str) -> str:
    """The whole file as the model reads it after a change (fenced like the task's excerpt)."""
    lines = line_texts(text)
    if not lines:
        return f"{path} is now empty."
    return f"{path} now reads:\n{fenced(lines, MAX_EXCERPT_CHARS)}"


def fenced(lines: list[str], limit: int) -> str:
    """`lines` as one fenced block, without line numbers: shown `  4 | code`, Qwen2.5-Coder
    1.5B answered with prose about "line 4" or copied the numbers into its code; shown as plain
    code, it answered with code (bench/effect, blind: 18 of 21 tasks fixed against 10,
    docs/performance.md#effect-does-it-fix-the-bug-side-by-side-with-aider). The fence is
    longer than any run of backticks in the text."""
    body = clip("\n".join(lines), limit, marker="\n[cut; use read_file for more]")
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{body}\n{fence}"


def _diagnostic_line(diagnostic: TaskDiagnostic, lines: list[str]) -> str:
    origin = f" [{diagnostic.source}]" if diagnostic.source else ""
    code = f" ({diagnostic.code})" if diagnostic.code else ""
    # The line's own text: the excerpt shows no numbers to count by.
    text = lines[diagnostic.line].strip() if diagnostic.line < len(lines) else ""
    at = f" `{shorten(text, MAX_QUOTED_LINE)}`" if text and "`" not in text else ""
    return (
        f"- line {diagnostic.line + 1}{at}: {diagnostic.severity}{origin}{code}: "
        f"{diagnostic.message}"
    )
