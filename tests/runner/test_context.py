"""The files a person looks at beside a failing test: its traceback's frames and its imports,
inside the workspace only, bounded (issue 26, point 2). Parsed from real pytest and unittest
output, run in a temp workspace."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rune_lsp.loop.task import RelatedFile
from rune_lsp.runner.context import (
    MAX_FILES,
    MAX_TEST_CHARS,
    WHOLE_LINES,
    Frame,
    failing_tests_shown,
    module_under_test,
    related_files,
    traceback_frames,
)
from rune_lsp.runner.py_imports import imported_files
from rune_lsp.tools.documents import DiskDocuments
from rune_lsp.tools.executor import WorkspaceTools
from rune_lsp.tools.sandbox import Sandbox

MODULE = "def add(a, b):\n    return a - b\n\n\ndef div(a, b):\n    return a / (b - b)\n"
PYTEST_TEST = (
    "from pkg.x import add, div\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\n"
    "def test_div():\n    assert div(4, 2) == 2\n"
)
UNITTEST_TEST = (
    "import unittest\n\nfrom pkg.x import div\n\n\nclass T(unittest.TestCase):\n"
    "    def test_div(self):\n        self.assertEqual(div(4, 2), 2)\n"
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = (tmp_path / "ws").resolve()
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "x.py").write_text(MODULE, encoding="utf-8")
    (root / "tests" / "test_x.py").write_text(PYTEST_TEST, encoding="utf-8")
    (root / "tests" / "test_u.py").write_text(UNITTEST_TEST, encoding="utf-8")
    return root


def _tools(root: Path) -> WorkspaceTools:
    return WorkspaceTools(root, Sandbox.for_workspace([root]), DiskDocuments())


def _output(root: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-B", *args], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert done.returncode != 0  # the module's bugs make the tests fail
    return done.stdout + done.stderr


def test_pytest_frames_name_the_test_and_the_module(root: Path) -> None:
    output = _output(
        root, "-m", "pytest", "-q", "-p", "no:asyncio", "-p", "no:cacheprovider", "tests/test_x.py"
    )

    frames = traceback_frames(output)

    assert Frame("tests/test_x.py", 5) in frames  # the assertion in the test
    assert frames.index(Frame("tests/test_x.py", 9)) < frames.index(Frame("pkg/x.py", 6))


def test_unittest_frames_are_absolute_paths(root: Path) -> None:
    output = _output(root, "-m", "unittest", "tests.test_u")

    frames = traceback_frames(output)

    assert frames == [
        Frame(str(root / "tests" / "test_u.py"), 8),
        Frame(str(root / "pkg" / "x.py"), 6),
    ]


def test_the_module_a_traceback_names_comes_first(root: Path) -> None:
    output = _output(root, "-m", "unittest", "tests.test_u")
    target = root / "tests" / "test_u.py"

    [related] = related_files(_tools(root), target, UNITTEST_TEST, output)

    assert related.path == "pkg/x.py"
    assert related.why == "named by the failing check's traceback"
    assert "\n".join(related.lines) == MODULE.rstrip("\n")


def test_without_a_check_the_imported_module_is_shown(root: Path) -> None:
    target = root / "tests" / "test_x.py"

    [related] = related_files(_tools(root), target, PYTEST_TEST, None)

    assert (related.path, related.why) == ("pkg/x.py", "imported by tests/test_x.py")


def test_code_that_is_no_test_gets_nothing_beside_it(root: Path) -> None:
    (root / "pkg" / "y.py").write_text("from pkg.x import add\n", encoding="utf-8")

    assert related_files(_tools(root), root / "pkg" / "y.py", "from pkg.x import add\n", None) == ()


def test_installed_code_and_files_outside_are_left_out(root: Path, tmp_path: Path) -> None:
    installed = root / ".venv" / "lib" / "site-packages" / "lib.py"
    installed.parent.mkdir(parents=True)
    installed.write_text("x = 1\n", encoding="utf-8")
    outside = tmp_path / "elsewhere.py"
    outside.write_text("y = 2\n", encoding="utf-8")
    output = f'  File "{installed}", line 1, in <module>\n  File "{outside}", line 1, in f\n'

    related = related_files(_tools(root), root / "tests" / "test_x.py", "import os\n", output)

    assert related == ()


def test_a_long_file_is_shown_around_the_frame(root: Path) -> None:
    long = "".join(f"v{n} = {n}\n" for n in range(1, 301))
    (root / "pkg" / "long.py").write_text(long, encoding="utf-8")
    output = "pkg/long.py:150: in <module>\n"

    [related] = related_files(_tools(root), root / "tests" / "test_x.py", "", output)

    assert related.total_lines == 300
    assert related.first_line < 150 < related.first_line + len(related.lines)
    assert len(related.lines) < WHOLE_LINES
    assert "lines 138-162 of 300" in related.shown()


def test_at_most_a_few_files(root: Path) -> None:
    names = [f"m{n}" for n in range(6)]
    for name in names:
        (root / "pkg" / f"{name}.py").write_text(f"def {name}():\n    return 1\n", "utf-8")
    text = "".join(f"from pkg.{name} import {name}\n" for name in names)

    related = related_files(_tools(root), root / "tests" / "test_x.py", text, None)

    assert [r.path for r in related] == [f"pkg/m{n}.py" for n in range(MAX_FILES)]


def test_imports_resolve_relative_submodule_and_src_layouts(root: Path) -> None:
    (root / "src" / "lib").mkdir(parents=True)
    (root / "src" / "lib" / "core.py").write_text("z = 3\n", encoding="utf-8")
    target = (root / "tests" / "test_x.py").resolve()
    (root / "tests" / "helpers.py").write_text("", encoding="utf-8")
    text = (
        "import os\nfrom pkg import x\nfrom lib.core import z\nimport pkg\nfrom . import helpers\n"
    )

    found = [path.relative_to(root).as_posix() for path, _ in imported_files(text, target, root)]

    assert found == ["pkg/x.py", "src/lib/core.py", "pkg/__init__.py", "tests/helpers.py"]


def test_the_modules_an_imported_module_imports_come_next(root: Path) -> None:
    (root / "pkg" / "report.py").write_text(
        "from pkg.x import add\n\n\ndef total(a, b):\n    return add(a, b)\n", encoding="utf-8"
    )
    text = "from pkg.report import total\n"

    related = related_files(_tools(root), root / "tests" / "test_x.py", text, None)

    assert [(r.path, r.why) for r in related] == [
        ("pkg/report.py", "imported by tests/test_x.py"),
        ("pkg/x.py", "imported by pkg/report.py"),
    ]


# The module a failing test points to, which the run then fixes.


def _shown(path: str, first: int = 1, lines: int = 2) -> RelatedFile:
    return RelatedFile(path=path, lines=("x",) * lines, first_line=first, total_lines=9, why="w")


def test_the_first_code_file_shown_is_the_module_under_test(root: Path) -> None:
    (root / "pkg" / "y.py").write_text("Y = 1\n", encoding="utf-8")
    (root / "tests" / "helpers.py").write_text("H = 1\n", encoding="utf-8")
    related = [
        _shown("tests/test_u.py"),  # a test
        _shown("tests/helpers.py"),  # no test, but in a test folder
        _shown("pkg/x.py", first=4, lines=3),
        _shown("pkg/y.py"),
        _shown("pkg/x.py", first=1, lines=2),  # a second excerpt of the same module
    ]

    moved = module_under_test(_tools(root), related)

    assert moved is not None
    assert (moved.path, moved.file, moved.text) == ("pkg/x.py", root / "pkg" / "x.py", MODULE)
    assert moved.focus == ((4, 6), (1, 2))  # every excerpt shown beside the test
    assert [other.path for other in moved.beside] == ["pkg/y.py"]


def test_no_module_under_test_when_only_tests_or_unreadable_files_are_shown(root: Path) -> None:
    (root / "pkg" / "blob.py").write_bytes(b"\x00\x01\x02")  # no text
    related = [_shown("tests/test_u.py"), _shown("pkg/blob.py"), _shown("pkg/gone.py")]

    assert module_under_test(_tools(root), related) is None


def test_a_root_tests_py_moves_the_run_to_the_module_it_tests(root: Path) -> None:
    # release_multi's jsonpointer: the tests live in a root tests.py (Django's startapp name,
    # which unittest collects); it is a test, so the module its traceback names is shown and
    # the run moves there (loop/task.is_test_path).
    target = root / "tests.py"
    target.write_text(UNITTEST_TEST, encoding="utf-8")
    output = _output(root, "-m", "unittest", "tests")

    related = related_files(_tools(root), target, UNITTEST_TEST, output)
    moved = module_under_test(_tools(root), related)

    assert [shown.path for shown in related] == ["pkg/x.py"]
    assert moved is not None
    assert (moved.path, moved.text) == ("pkg/x.py", MODULE)


def test_the_failing_tests_code_is_shown_as_the_check_names_it(root: Path) -> None:
    target = root / "tests" / "test_x.py"
    output = _output(root, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_x.py")

    shown = failing_tests_shown(_tools(root), target, PYTEST_TEST, output)

    assert [(t.path, t.first_line, t.lines) for t in shown] == [
        ("tests/test_x.py", 4, ("def test_add():", "    assert add(1, 2) == 3")),
        ("tests/test_x.py", 8, ("def test_div():", "    assert div(4, 2) == 2")),
    ]
    # A target that is no test has no failing tests of its own.
    assert failing_tests_shown(_tools(root), root / "pkg" / "x.py", MODULE, output) == ()


def test_failing_tests_beyond_the_budget_are_left_out(root: Path) -> None:
    body = "".join(f"    assert add({n}, 0) == {n}\n" for n in range(MAX_TEST_CHARS // 20))
    test = f"from pkg.x import add\n\n\ndef test_a():\n{body}\n\ndef test_b():\n{body}"
    output = "FAILED tests/test_x.py::test_a - x\nFAILED tests/test_x.py::test_b - x\n"

    shown = failing_tests_shown(_tools(root), root / "tests" / "test_x.py", test, output)

    # The first is shown even when long (the fence clips it); the next would pass the budget.
    assert [t.lines[0] for t in shown] == ["def test_a():"]
