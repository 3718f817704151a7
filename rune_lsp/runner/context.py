"""What a person looks at beside a failing test: the files its traceback names, the modules it
imports, read from the workspace (never from site-packages) and bounded.

Fix this on a test file whose bug is in the module it tests reached 0 of 8 such bugs while the
model saw only the test (issue 26); this module finds the module, `loop/task.RelatedFile`
words it. Everything here reads files, so it is the runner's; the loop gets the task composed.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path, PurePosixPath

from rune_lsp.lines import line_texts
from rune_lsp.loop.task import RelatedFile, is_test_path
from rune_lsp.python_parse import parse
from rune_lsp.runner.failing_tests import (
    Definition,
    failing_spans,
    failing_test_names,
    focus_lines,
    in_test_folder,
    used_definitions,
)
from rune_lsp.runner.py_imports import imported_files
from rune_lsp.runner.spectrum import NO_SPECTRUM, Spectrum, suspect_definitions
from rune_lsp.tools.errors import ToolError
from rune_lsp.tools.executor import WorkspaceTools

#: Files shown beside the task's, and characters of them in all: a small model reads every
#: token of the first request (issue 16).
MAX_FILES = 3
MAX_CHARS = 6_000
#: Excerpts shown when the failing test's definitions are followed (runner/failing_tests.py): a
#: function each, from as many files as they take.
MAX_DEFINITIONS = 6
#: Of those, the most taken from the functions the failing tests ran (runner/spectrum.py).
MAX_SUSPECTS = 4
#: Failing tests shown beside the module a run moved to, and characters of them in all.
MAX_TESTS_SHOWN = 3
MAX_TEST_CHARS = 1_500
#: A file up to this many lines is shown whole; a longer one around what points into it.
WHOLE_LINES = 80
AROUND = 12
#: Where installed code lives, inside a workspace or not: never a file of the user's.
_INSTALLED = frozenset({"site-packages", "dist-packages", "node_modules", ".venv", "venv", ".tox"})

#: pytest's frames (`tests/test_x.py:5: in test_add`, `pkg/x.py:3: AssertionError`) and the
#: interpreter's (`  File "/ws/pkg/x.py", line 3, in add`, unittest and plain scripts).
_PYTEST_FRAME = re.compile(r"^(?P<path>[^\s:\"'][^:\n\"']*\.py):(?P<line>\d+): ", re.MULTILINE)
_PYTHON_FRAME = re.compile(r'^\s*File "(?P<path>[^"\n]+\.py)", line (?P<line>\d+)', re.MULTILINE)


@dataclass(frozen=True)
class Frame:
    """One frame of a traceback: a file as the check printed it, and a 1-based line."""

    path: str
    line: int


@dataclass
class _Found:
    path: Path
    why: str
    lines: list[int] = field(default_factory=list)  # 1-based lines that point into it
    names: list[str] = field(default_factory=list)  # definitions the target imports from it
    span: tuple[int, int] | None = None  # exactly these lines (a definition the test uses)


def traceback_frames(output: str) -> list[Frame]:
    """The frames a check's output names, in the order printed (outermost first)."""
    found = [
        (match.start(), Frame(match.group("path"), int(match.group("line"))))
        for pattern in (_PYTEST_FRAME, _PYTHON_FRAME)
        for match in pattern.finditer(output)
    ]
    return [frame for _, frame in sorted(found, key=lambda item: item[0])]


def is_test_target(tools: WorkspaceTools, target: Path) -> bool:
    """Whether `target` is a test, whose task shows more once its check has run: the one rule
    for `related_files`, `failing_focus` and whether the task is composed again at all."""
    return is_test_path(tools.show(target))


def related_files(
    tools: WorkspaceTools,
    target: Path,
    text: str,
    check_output: str | None,
    spectrum: Spectrum = NO_SPECTRUM,
) -> tuple[RelatedFile, ...]:
    """The files shown beside a test `target` (its text `text`): first those the failing
    check's traceback names, innermost first; then the functions the failing tests ran and
    the passing ones did not (`spectrum`, runner/spectrum.py), best first, then the
    definitions the failing tests use (runner/failing_tests.py), or, when neither is found (no
    check yet, or no test named), the workspace modules the test imports; bounded by
    MAX_CHARS in all. Nothing for a file that is no test: its bug is its own."""
    if not is_test_target(tools, target):
        return ()
    shown = tools.show(target)
    found: dict[Path, _Found] = {}
    failing_lines: list[int] = []  # the test's own lines the traceback names
    for frame in reversed(traceback_frames(check_output or "")):
        path = _in_workspace(tools.root, frame.path)
        if path == target.resolve():
            failing_lines.append(frame.line)
            continue
        if path is None:
            continue
        entry = found.setdefault(path, _Found(path, "named by the failing check's traceback"))
        entry.lines.append(frame.line)
    if target.suffix != ".py":
        return tuple(_read_bounded(tools, found.values(), MAX_FILES))
    tests = failing_test_names(check_output or "", shown)
    read = partial(_readable, tools)
    used = [
        *suspect_definitions(spectrum, tools.root, read, MAX_SUSPECTS),
        *used_definitions(text, target, tools.root, tests, read, failing_lines),
    ]
    if used:
        entries = [*found.values(), *_definition_entries(used)]
        return tuple(_read_bounded(tools, entries, len(found) + MAX_DEFINITIONS))
    direct = _add_imports(found, text, target.resolve(), tools.root, shown)
    # One level further: the module a test goes through often calls the one with the bug
    # (bench/effect/corpus_multi 08 and 11: the test imports report.py, the bug is in the
    # words.py it imports).
    for path in direct:
        imported = _readable(tools, path)
        if imported:
            _add_imports(found, imported, path, tools.root, tools.show(path))
    return tuple(_read_bounded(tools, found.values(), MAX_FILES))


@dataclass(frozen=True)
class ModuleUnderTest:
    """The file a failing test points to, which the run then fixes: its path, as the tools
    name it and absolute, its text, the lines to show when it is too long to show whole, and
    the other code files that were shown beside the test (still shown, beside it)."""

    path: str
    file: Path
    text: str
    focus: tuple[tuple[int, int], ...]
    beside: tuple[RelatedFile, ...]


def module_under_test(
    tools: WorkspaceTools, related: Sequence[RelatedFile]
) -> ModuleUnderTest | None:
    """The first file shown beside a failing test that is no test code (`related`, best
    evidence first: the traceback's innermost frame, what only the failing tests ran, what
    they use, what the test imports), read under the read rules; None when there is none."""
    code = [shown for shown in related if not _is_test_code(shown.path)]
    for shown in code:
        file = (tools.root / shown.path).resolve()
        text = _readable(tools, file)
        if not text:
            continue
        # A long module may be shown in several excerpts (two suspects, a suspect and what the
        # test uses): every one of them is where to look.
        focus = tuple(
            (other.first_line, other.first_line + len(other.lines) - 1)
            for other in code
            if other.path == shown.path
        )
        beside = tuple(other for other in code if other.path != shown.path)
        return ModuleUnderTest(shown.path, file, text, focus, beside)
    return None


def _is_test_code(shown: str) -> bool:
    """A test, a file in a test folder (a conftest, a helper), or one outside the workspace."""
    relative = PurePosixPath(shown)
    return is_test_path(shown) or in_test_folder(relative) or relative.is_absolute()


def failing_focus(
    tools: WorkspaceTools, target: Path, text: str, check_output: str
) -> tuple[tuple[int, int], ...]:
    """The lines of a test `target` to show when it is too long to show whole: its head and
    the tests the check says fail (runner/failing_tests.py); nothing for a file that is no test."""
    if not is_test_target(tools, target) or target.suffix != ".py":
        return ()
    return focus_lines(text, failing_test_names(check_output, tools.show(target)))


def failing_tests_shown(
    tools: WorkspaceTools, target: Path, text: str, check_output: str
) -> tuple[RelatedFile, ...]:
    """The code of the tests of `target` (its text `text`) the check says fail, each with its
    decorators, up to MAX_TESTS_SHOWN and MAX_TEST_CHARS: what the module a run moved to must
    make true, shown beside it (loop/task.py `FixTask.moved_to`)."""
    if not is_test_target(tools, target) or target.suffix != ".py":
        return ()
    shown = tools.show(target)
    lines = line_texts(text)
    names = failing_test_names(check_output, shown)
    tests: list[RelatedFile] = []
    budget = MAX_TEST_CHARS
    for first, last in failing_spans(text, names)[:MAX_TESTS_SHOWN]:
        part = tuple(lines[first - 1 : last])
        size = sum(len(line) + 1 for line in part)
        if size > budget and tests:
            break
        budget -= size
        tests.append(
            RelatedFile(
                path=shown,
                lines=part,
                first_line=first,
                total_lines=len(lines),
                why="the failing test",
            )
        )
    return tuple(tests)


def _readable(tools: WorkspaceTools, path: Path) -> str | None:
    """`path`'s text when the read rules let the model see it, else None."""
    try:
        return tools.task_text(path)
    except (ToolError, OSError):
        return None


def _definition_entries(used: Sequence[Definition]) -> list[_Found]:
    """One excerpt per definition, in the order found; a definition right below the one
    before it in the same file joins its excerpt."""
    entries: list[_Found] = []
    for definition in used:
        why = definition.why
        last = entries[-1] if entries else None
        if (
            last is not None
            and last.span is not None
            and last.path == definition.path
            and last.span[1] < definition.first <= last.span[1] + 3
        ):
            last.span = (last.span[0], definition.last)
            last.why = f"{last.why}; {why}"
            continue
        entries.append(_Found(definition.path, why, span=(definition.first, definition.last)))
    return entries


def _add_imports(
    found: dict[Path, _Found], text: str, path: Path, root: Path, shown: str
) -> list[Path]:
    """The workspace files `text` (of `path`) imports, added to `found`; those it names."""
    imported = imported_files(text, path, root)
    for module, names in imported:
        entry = found.setdefault(module, _Found(module, f"imported by {shown}"))
        entry.names.extend(names)
    return [module for module, _ in imported]


def _read_bounded(
    tools: WorkspaceTools, found: Iterable[_Found], most: int
) -> Iterable[RelatedFile]:
    """At most `most` of `found`, read and cut to their lines, MAX_CHARS in all: one that does
    not fit is left out for the next, one whose lines are all shown already is left out."""
    budget = MAX_CHARS
    count = 0
    covered: dict[Path, set[int]] = {}
    for entry in found:
        if count == most or budget <= 0:
            return
        text = _readable(tools, entry.path)
        if not text:  # refused by the read rules, or no text: not shown
            continue
        related = _excerpt(tools.show(entry.path), text, entry)
        size = sum(len(line) + 1 for line in related.lines)
        lines = set(range(related.first_line, related.first_line + len(related.lines)))
        if size > budget or lines <= covered.get(entry.path, set()):
            continue
        covered.setdefault(entry.path, set()).update(lines)
        budget -= size
        count += 1
        yield related


def _excerpt(shown: str, text: str, entry: _Found) -> RelatedFile:
    lines = line_texts(text)
    total = len(lines)
    if total <= WHOLE_LINES:
        return RelatedFile(path=shown, lines=tuple(lines), total_lines=total, why=entry.why)
    spans = [entry.span] if entry.span else [(line - AROUND, line + AROUND) for line in entry.lines]
    spans += _definitions(text, entry.names)
    if not spans:
        spans = [(1, WHOLE_LINES)]
    first = max(1, min(start for start, _ in spans))
    last = min(total, max(end for _, end in spans))
    return RelatedFile(
        path=shown,
        lines=tuple(lines[first - 1 : last]),
        first_line=first,
        total_lines=total,
        why=entry.why,
    )


def _definitions(text: str, names: Sequence[str]) -> list[tuple[int, int]]:
    """The lines of the top-level definitions called `names`, as (first, last)."""
    if not names:
        return []
    try:
        tree = parse(text)
    except (SyntaxError, ValueError):
        return []
    return [
        (node.lineno, node.end_lineno or node.lineno)
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.name in names
    ]


def _in_workspace(root: Path, printed: str) -> Path | None:
    """A frame's file when it is the user's: inside the root, not installed code."""
    path = Path(printed)
    path = (path if path.is_absolute() else root / path).resolve()
    try:
        inside = path.relative_to(root.resolve())
    except ValueError:
        return None
    if _INSTALLED.intersection(inside.parts) or not path.is_file():
        return None
    return path
