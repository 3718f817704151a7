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
from pathlib import Path

from rune_lsp.lines import line_texts
from rune_lsp.loop.task import RelatedFile, is_test_path
from rune_lsp.python_parse import parse
from rune_lsp.tools.errors import ToolError
from rune_lsp.tools.executor import WorkspaceTools

#: Files shown beside the task's, and characters of them in all: a small model reads every
#: token of the first request (issue 16).
MAX_FILES = 3
MAX_CHARS = 6_000
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


def traceback_frames(output: str) -> list[Frame]:
    """The frames a check's output names, in the order printed (outermost first)."""
    found = [
        (match.start(), Frame(match.group("path"), int(match.group("line"))))
        for pattern in (_PYTEST_FRAME, _PYTHON_FRAME)
        for match in pattern.finditer(output)
    ]
    return [frame for _, frame in sorted(found, key=lambda item: item[0])]


def imported_files(text: str, target: Path, root: Path) -> list[tuple[Path, list[str]]]:
    """The workspace files `text` (the Python file `target`) imports, each with the names
    imported from it, in import order. Resolved as the interpreter would from the root, its
    `src/` folder and the target's folder; a module found nowhere there is installed code."""
    try:
        tree = parse(text)
    except (SyntaxError, ValueError):
        return []
    bases = [root, root / "src", target.parent]
    found: dict[Path, list[str]] = {}
    for node in ast.walk(tree):
        for module, names in _imports(node, target, root):
            # `from pkg import x`: x may be a module itself, the file to look at then.
            rest = []
            for name in names:
                sub = _module_file(f"{module}.{name}" if module else name, bases)
                if sub is None:
                    rest.append(name)
                elif sub != target:
                    found.setdefault(sub, [])
            path = _module_file(module, bases)
            if path is not None and path != target and (rest or not names):
                found.setdefault(path, []).extend(rest)
    return list(found.items())


def related_files(
    tools: WorkspaceTools, target: Path, text: str, check_output: str | None
) -> tuple[RelatedFile, ...]:
    """The files shown beside a test `target` (its text `text`): first those the failing
    check's traceback names, innermost first, then the workspace modules it imports; at most
    MAX_FILES, MAX_CHARS in all. Nothing for a file that is no test: its bug is its own."""
    shown = tools.show(target)
    if not is_test_path(shown):
        return ()
    found: dict[Path, _Found] = {}
    for frame in reversed(traceback_frames(check_output or "")):
        path = _in_workspace(tools.root, frame.path)
        if path is None or path == target.resolve():
            continue
        entry = found.setdefault(path, _Found(path, "named by the failing check's traceback"))
        entry.lines.append(frame.line)
    if target.suffix == ".py":
        direct = _add_imports(found, text, target.resolve(), tools.root, shown)
        # One level further: the module a test goes through often calls the one with the bug
        # (bench/effect/corpus_multi 08 and 11: the test imports report.py, the bug is in the
        # words.py it imports).
        for path in direct:
            try:
                imported = tools.task_text(path)
            except (ToolError, OSError):
                continue
            if imported:
                _add_imports(found, imported, path, tools.root, tools.show(path))
    return tuple(_read_bounded(tools, found.values()))


def _add_imports(
    found: dict[Path, _Found], text: str, path: Path, root: Path, shown: str
) -> list[Path]:
    """The workspace files `text` (of `path`) imports, added to `found`; those it names."""
    imported = imported_files(text, path, root)
    for module, names in imported:
        entry = found.setdefault(module, _Found(module, f"imported by {shown}"))
        entry.names.extend(names)
    return [module for module, _ in imported]


def _read_bounded(tools: WorkspaceTools, found: Iterable[_Found]) -> Iterable[RelatedFile]:
    budget = MAX_CHARS
    count = 0
    for entry in found:
        if count == MAX_FILES or budget <= 0:
            return
        try:
            text = tools.task_text(entry.path)
        except (ToolError, OSError):  # refused by the read rules, or no text: not shown
            continue
        if not text:
            continue
        related = _excerpt(tools.show(entry.path), text, entry)
        size = sum(len(line) + 1 for line in related.lines)
        if size > budget:
            continue
        budget -= size
        count += 1
        yield related


def _excerpt(shown: str, text: str, entry: _Found) -> RelatedFile:
    lines = line_texts(text)
    total = len(lines)
    if total <= WHOLE_LINES:
        return RelatedFile(path=shown, lines=tuple(lines), total_lines=total, why=entry.why)
    spans = [(line - AROUND, line + AROUND) for line in entry.lines]
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


def _imports(node: ast.AST, target: Path, root: Path) -> list[tuple[str, list[str]]]:
    if isinstance(node, ast.Import):
        return [(alias.name, []) for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        names = [alias.name for alias in node.names if alias.name != "*"]
        if node.level == 0:
            return [(node.module or "", names)]
        package = target.parent
        for _ in range(node.level - 1):
            package = package.parent
        try:
            prefix = ".".join(package.relative_to(root).parts)
        except ValueError:
            return []
        module = ".".join(part for part in (prefix, node.module or "") if part)
        return [(module, names)]
    return []


def _module_file(module: str, bases: Sequence[Path]) -> Path | None:
    if not module:
        return None
    parts = module.split(".")
    for base in bases:
        package = base.joinpath(*parts)
        for candidate in (package.with_suffix(".py"), package / "__init__.py"):
            if candidate.is_file():
                return candidate.resolve()
    return None


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
