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
#: How a block names the file it is code of, when that is not the task's file: the code-block
#: reader (rune_lsp/answers/code/) reads a first line `# file: pkg/x.py` as that file's code.
FILE_NAME_LINE = "# file: "
#: How the prompt names a file shown beside the task's (never FILE_LABEL, which names the task's
#: own file).
RELATED_LABEL = "Other file: "
#: A test file, by the names test runners collect (pytest's `test_*.py` / `*_test.py`; the
#: `tests.py` Django's startapp writes, which unittest's `test*.py` collects, a pattern too wide
#: to take whole: click's `testing.py` is library code; Jest's `*.test.js` / `*.spec.ts` and any
#: script under `__tests__/`); a helper or `conftest.py` beside the tests is no test.
_TEST_NAME = re.compile(
    r"(^test_.*\.py$)|(_test\.py$)|(^tests\.py$)|(\.(test|spec)\.[cm]?[jt]sx?$)"
)
_JEST_DIR = "__tests__"
_SCRIPT = re.compile(r"\.[cm]?[jt]sx?$")


class TaskDiagnostic(BaseModel):
    model_config = ConfigDict(frozen=True)

    line: int = Field(ge=0)  # 0-based, like LSP
    message: str
    severity: str = "error"
    source: str | None = None
    code: str | None = None


class RelatedFile(BaseModel):
    """A file shown beside the task's: all of it, or the lines around what points to it."""

    model_config = ConfigDict(frozen=True)

    path: str  # as the tools name it
    lines: tuple[str, ...]  # the shown lines, `first_line` the number of the first
    first_line: int = Field(1, ge=1)
    total_lines: int = Field(0, ge=0)
    why: str  # e.g. "imported by tests/test_x.py"

    def shown(self) -> str:
        last = self.first_line + len(self.lines) - 1
        whole = self.first_line == 1 and last >= self.total_lines
        span = "" if whole else f"; lines {self.first_line}-{last} of {self.total_lines}"
        return f"{RELATED_LABEL}{self.path} ({self.why}{span}):\n" + fenced(
            list(self.lines), MAX_EXCERPT_CHARS
        )


class FixTask(BaseModel):
    """A `Fix this` request: a file, an optional 0-based line range, diagnostics, instruction."""

    model_config = ConfigDict(frozen=True)

    path: str  # as the model should name it: relative to the workspace root when inside it
    text: str  # the document's current text (the editor's buffer when open)
    start_line: int | None = Field(None, ge=0)
    end_line: int | None = Field(None, ge=0)
    diagnostics: tuple[TaskDiagnostic, ...] = ()
    instruction: str | None = None
    #: Files a person would look at beside this one (the module a test imports, the files a
    #: failing check's traceback names), read by the runner (runner/context.py).
    related: tuple[RelatedFile, ...] = ()
    #: Without a range, the 1-based (first, last) lines to show of a file too long to show
    #: whole: its head and the tests the check says fail (runner/failing_tests.py). Shown from
    #: the top instead, a test file's failing test lay beyond the excerpt in 52 of the 74
    #: release-bugs tasks (docs/performance.md, "Release bugs corpus").
    focus: tuple[tuple[int, int], ...] = ()
    #: On a module a failing test moved the run to, the code of the failing tests: what the
    #: fix must make true (`moved_to`).
    tests: tuple[RelatedFile, ...] = ()

    def moved_to(
        self,
        path: str,
        text: str,
        focus: tuple[tuple[int, int], ...],
        related: tuple[RelatedFile, ...],
        tests: tuple[RelatedFile, ...] = (),
    ) -> FixTask:
        """The same instruction (or, with none, that this test fails) on another file, whole
        (or, too long, its `focus`), the failing `tests`' code and `related` beside it: a
        failing test's module under test (runner/context.module_under_test), asked as Fix
        this on it asks, since shown the test, its report and the module, Qwen2.5-Coder 1.5B
        sent the module back unchanged in most runs; the failing test's own lines (`assert
        to_roman(9) == "IX"`) are what the fix must make true (docs/performance.md,
        "Multi-file corpus")."""
        # Without one, the editor's default ("at this range") would name a range the module
        # does not have.
        instruction = self.instruction or f"The test {self.path} fails. Fix the bug."
        return FixTask(
            path=path,
            text=text,
            instruction=instruction,
            focus=focus,
            related=related,
            tests=tests,
        )

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
        parts.extend(_test_shown(test) for test in self.tests)
        if self.related:
            parts.append(f"The files {self.path} uses, where the bug may be instead:")
            parts.extend(related.shown() for related in self.related)
        parts.append(f"Make the smallest change that solves the task. {self._ask()}")
        return "\n".join(parts)

    def _ask(self) -> str:
        if not self.related:
            return f"{BLOCK_ASK.capitalize()}."
        # Shown a test and the module it tests, Qwen2.5-Coder 1.5B must say which file its
        # block is for, or it is read as code of the test (issue 26).
        return f"{BLOCK_ASK.capitalize()}{other_file_clause(self.path, self.related[0].path)}."

    def _excerpt(self, lines: list[str]) -> str:
        if not lines:
            return "The file is empty."
        if self.start_line is None:
            # A Fix this without a range is about the whole file, and the code-first turn offers
            # no tool to read the rest: shown its first 40 lines, Qwen2.5-Coder never saw the
            # bug of 9 of the 14 programs bench/effect/recording holds (56-134 lines).
            first, last = 0, _lines_within(lines, MAX_EXCERPT_CHARS) - 1
            if self.focus and last < len(lines) - 1:
                return _focused(lines, self.focus)
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


def other_file_clause(target: str, example: str) -> str:
    """What follows the ask for a block when files beside `target` were shown as where the bug
    may be instead: how a block names its file (`example`, one of them)."""
    return (
        f"; for a fix in another file than {target}, name that file on the block's first line, "
        f"e.g. `{FILE_NAME_LINE}{example}`"
    )


def _test_shown(test: RelatedFile) -> str:
    last = test.first_line + len(test.lines) - 1
    return f"The failing test ({test.path}, lines {test.first_line}-{last}):\n" + fenced(
        list(test.lines), MAX_RANGE_CHARS
    )


def _focused(lines: list[str], focus: tuple[tuple[int, int], ...]) -> str:
    """The stretches `focus` of `lines`, each its own fenced excerpt (a marker between them in
    one block would read as a placeholder to copy), MAX_EXCERPT_CHARS in all."""
    parts: list[str] = []
    budget = MAX_EXCERPT_CHARS
    for first, last in focus:
        first, last = max(1, first), min(len(lines), last)
        if first > last or budget <= 0:
            continue
        shown = lines[first - 1 : last]
        size = sum(len(line) + 1 for line in shown)
        if size > budget and parts:
            continue
        budget -= size
        parts.append(
            f"Excerpt (lines {first}-{last} of {len(lines)}):\n{fenced(shown, MAX_EXCERPT_CHARS)}"
        )
    return "\n".join(parts) if parts else fenced(lines, MAX_EXCERPT_CHARS)


def _lines_within(lines: list[str], limit: int) -> int:
    """How many of the first `lines` fit in `limit` characters, newlines counted (at least one:
    a longer first line is cut by `fenced`)."""
    used = 0
    for count, line in enumerate(lines):
        used += len(line) + 1
        if used > limit:
            return max(count, 1)
    return len(lines)


def is_test_path(path: str) -> bool:
    """Whether `path` names a test file, by the names test runners collect."""
    parts = Path(path).parts
    if not parts:
        return False
    name = parts[-1]
    return bool(_TEST_NAME.search(name)) or (_JEST_DIR in parts[:-1] and bool(_SCRIPT.search(name)))


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

    def task(self, shown: str, text: str, related: tuple[RelatedFile, ...] = ()) -> FixTask:
        """The task on `text`, its file named `shown` (as the tools name it)."""
        return FixTask(
            related=related,
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
