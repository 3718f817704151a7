"""The task prompt splits lines as the editor does (docs/interface.md: LSP positions) and shows
code as plain fenced code, without line numbers to copy."""

from __future__ import annotations

import pytest

from rune_lsp.loop.prompts import check_before_text
from rune_lsp.loop.state import CheckReport
from rune_lsp.loop.task import (
    BLOCK_ASK,
    MAX_EXCERPT_CHARS,
    FixTask,
    RelatedFile,
    TaskDiagnostic,
    fenced,
    file_listing,
    is_test_path,
)

#: Form feed, U+2028, NEL and a vertical tab inside lines, plus a lone `\r` (which does end one).
TEXT = "def a():\x0c\n    return 1\u2028  # tail\nx = '\x85'\x0b\ry = 2\nlast\n"


def test_the_range_is_quoted_with_the_lines_lsp_counts() -> None:
    prompt = FixTask(path="mod.py", text=TEXT, start_line=3, end_line=3).prompt()

    # Line 4 as the editor shows it: a lone \r ends line 3, U+2028 and NEL do not end lines.
    assert "Range: lines 4-4:\n```\ny = 2\n```\n" in prompt
    lsp_lines = TEXT[:-1].replace("\r", "\n")  # the lone \r ends a line, as LSP says
    assert f"Range: lines 4-4:\n```\ny = 2\n```\n```\n{lsp_lines}\n```\n" in prompt
    assert " | " not in prompt  # no copied-number gutter anywhere


def test_a_crlf_file_has_no_extra_lines() -> None:
    prompt = FixTask(path="mod.py", text="a\r\nb\r\n").prompt()
    assert "File: mod.py\n```\na\nb\n```\nMake the smallest change" in prompt


def test_a_long_file_shows_an_excerpt_around_the_range_and_says_so() -> None:
    text = "".join(f"x{n} = {n}\n" for n in range(1, 101))
    prompt = FixTask(path="big.py", text=text, start_line=59).prompt()
    assert "Excerpt (lines 40-80 of 100; use read_file for the rest):\n```\nx40 = 40\n" in prompt
    assert "x80 = 80\n```" in prompt and "x81 = 81" not in prompt


def test_a_file_without_a_range_is_shown_whole_as_far_as_it_fits() -> None:
    text = "".join(f"x{n} = {n}\n" for n in range(1, 136))  # 135 lines, the bug near the end
    prompt = FixTask(path="mid.py", text=text).prompt()
    assert "Excerpt" not in prompt and "x1 = 1\n" in prompt and "x135 = 135\n```" in prompt

    long = "".join(f"value_{n} = {n} * {n}\n" for n in range(1, 1001))
    prompt = FixTask(path="long.py", text=long).prompt()
    shown = prompt.split("```\n", 1)[1].split("\n```", 1)[0].split("\n")
    count = len(shown)  # whole lines only, as many as fit
    assert len("\n".join(shown)) <= MAX_EXCERPT_CHARS
    assert shown[-1] == f"value_{count} = {count} * {count}"
    assert f"Excerpt (lines 1-{count} of 1000;" in prompt


def test_a_diagnostic_quotes_its_line() -> None:
    diagnostic = TaskDiagnostic(line=1, message="undefined name 'b'", source="ruff")
    prompt = FixTask(path="m.py", text="def f():\n    return b\n", diagnostics=(diagnostic,))
    assert "- line 2 `return b`: error [ruff]: undefined name 'b'" in prompt.prompt()


def test_a_fence_is_longer_than_any_backticks_in_the_code() -> None:
    assert fenced(['s = "```"'], 100) == '````\ns = "```"\n````'
    assert file_listing("a.md", "") == "a.md is now empty."


MODULE_LINES = ("def add(a, b):", "    return a - b")


def _test_task(related: tuple[RelatedFile, ...] = ()) -> FixTask:
    return FixTask(
        path="tests/test_x.py",
        text="from pkg.x import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
        instruction="The test tests/test_x.py fails. Fix the bug.",
        related=related,
    )


def test_a_related_file_is_shown_after_the_task_file_with_why() -> None:
    related = RelatedFile(
        path="pkg/x.py", lines=MODULE_LINES, total_lines=2, why="imported by tests/test_x.py"
    )

    prompt = _test_task(related=(related,)).prompt()

    assert prompt.index("File: tests/test_x.py") < prompt.index("Other file: pkg/x.py")
    assert "Other file: pkg/x.py (imported by tests/test_x.py):\n```\ndef add(a, b):" in prompt
    assert prompt.endswith(
        "for a fix in another file than tests/test_x.py, name that file on the block's first "
        "line, e.g. `# file: pkg/x.py`."
    )


def test_an_excerpt_of_a_related_file_says_which_lines() -> None:
    related = RelatedFile(
        path="pkg/x.py", lines=MODULE_LINES, first_line=40, total_lines=90, why="named"
    )

    assert related.shown().startswith("Other file: pkg/x.py (named; lines 40-41 of 90):")


def test_a_task_moved_to_the_module_shows_the_failing_test_after_it() -> None:
    # What the fix must make true, as a person at the failing test reads it; the test is no
    # file to change, so the ask names only the module's neighbours.
    failing = RelatedFile(
        path="tests/test_x.py",
        lines=("def test_add():", "    assert add(1, 2) == 3"),
        first_line=4,
        total_lines=5,
        why="the failing test",
    )
    other = RelatedFile(path="pkg/y.py", lines=("Y = 1",), total_lines=1, why="imported")

    moved = _test_task().moved_to("pkg/x.py", "\n".join(MODULE_LINES), (), (other,), (failing,))
    prompt = moved.prompt()

    assert prompt.startswith("Task: The test tests/test_x.py fails. Fix the bug.\nFile: pkg/x.py")
    shown = "The failing test (tests/test_x.py, lines 4-5):\n```\ndef test_add():\n"
    assert prompt.index("def add(a, b):") < prompt.index(shown) < prompt.index("Other file:")
    assert "`# file: pkg/y.py`" in prompt


def test_without_related_files_the_ask_is_unchanged() -> None:
    assert _test_task().prompt().endswith(f"{BLOCK_ASK.capitalize()}.")


@pytest.mark.parametrize(
    ("path", "is_test"),
    [
        ("tests/test_x.py", True),
        ("test_prog.py", True),
        ("pkg/x_test.py", True),
        ("tests/conftest.py", False),
        ("tests/helpers.py", False),
        ("web/__tests__/x.js", True),
        ("src/x.test.ts", True),
        ("src/x.spec.jsx", True),
        ("pkg/x.py", False),
        ("prog.py", False),
        ("pkg/testing.py", False),
        ("tests.py", True),
        ("app/tests.py", True),
        ("pkg/contests.py", False),
        ("test.py", False),
        ("tests", False),
    ],
)
def test_a_test_file_is_known_by_its_name(path: str, is_test: bool) -> None:
    assert is_test_path(path) is is_test


def test_a_failing_check_on_a_test_says_the_test_is_right_and_names_no_bug_in_it() -> None:
    report = CheckReport(command="pytest -q tests/test_x.py", exit_code=1, output="assert -1 == 3")

    said = check_before_text(report, "tests/test_x.py")

    assert "The test is right: do not change tests/test_x.py." in said
    assert "the bug is in tests/test_x.py" not in said
    assert said.endswith("its first line `# file:` and that file's path.")


def test_a_failing_check_on_code_still_names_the_code() -> None:
    report = CheckReport(command="pytest -q", exit_code=1, output="assert -1 == 3")

    said = check_before_text(report, "pkg/x.py")

    assert "The test is right; the bug is in pkg/x.py. Change pkg/x.py" in said


def test_a_failing_check_on_code_names_the_files_shown_beside_it_too() -> None:
    report = CheckReport(command="pytest -q", exit_code=1, output="assert -1 == 3")

    said = check_before_text(report, "pkg/x.py", ("pkg/y.py", "pkg/z.py"))

    assert "The test is right; the bug is in pkg/x.py, pkg/y.py or pkg/z.py. Change that" in said
    assert said.endswith(
        "for a fix in another file than pkg/x.py, name that file on the block's first line, "
        "e.g. `# file: pkg/y.py`."
    )


def test_a_long_file_with_a_focus_shows_each_stretch_as_its_own_excerpt() -> None:
    text = "".join(f"line{n} = {n}\n" for n in range(1, 2001))
    task = FixTask(path="tests/test_x.py", text=text, focus=((1, 3), (1500, 1502)))

    prompt = task.prompt()

    assert "Excerpt (lines 1-3 of 2000):\n```\nline1 = 1\nline2 = 2\nline3 = 3\n```" in prompt
    assert "Excerpt (lines 1500-1502 of 2000):\n```\nline1500 = 1500\n" in prompt
    assert "line4 = 4" not in prompt and "line1499 =" not in prompt


def test_a_focus_is_ignored_when_the_file_fits_or_a_range_is_given() -> None:
    short = "a = 1\nb = 2\n"
    assert "Excerpt" not in FixTask(path="t.py", text=short, focus=((2, 2),)).prompt()
    text = "".join(f"line{n} = {n}\n" for n in range(1, 2001))
    ranged = FixTask(path="t.py", text=text, start_line=99, end_line=99, focus=((1500, 1502),))
    assert "line1500 = 1500" not in ranged.prompt()
