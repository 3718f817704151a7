"""Code blocks in prose answers, placed in the target file: matched, refused, or nothing."""

from __future__ import annotations

import pytest

from rune_lsp.answers.code.blocks import BlockEdit, BlockReading, read_blocks
from rune_lsp.answers.code.fences import fenced_blocks

SHAPES = """import math


class Stack:
    def __init__(self):
        self.items = []

    @property
    def top(self):
        return self.items[0]

    def pop(self):
        return self.items.pop(0)


def add(a, b):
    return a - b


def area(r):
    return math.pi * r
"""


def fenced(code: str, tag: str = "python", prose: str = "Here is the corrected code:") -> str:
    return f"{prose}\n\n```{tag}\n{code}\n```\n\nThis fixes the bug."


def applied(reading: BlockReading, current: str) -> str:
    """The file after the proposed edit, as edit_file would make it (exact, unique match)."""
    assert reading.edit is not None, reading.refusal
    assert current.count(reading.edit.old_text) == 1
    return current.replace(reading.edit.old_text, reading.edit.new_text)


def test_a_function_is_matched_by_its_def_header() -> None:
    answer = fenced("def add(a, b):\n    return a + b")
    reading = read_blocks(answer, SHAPES, "app.py")
    assert reading.edit == BlockEdit("    return a - b", "    return a + b")
    assert applied(reading, SHAPES) == SHAPES.replace("a - b", "a + b")


def test_a_method_shown_alone_is_placed_in_its_class_and_reindented() -> None:
    # Shown at the top level, as models often do: it goes back into the class, 4 spaces in.
    answer = fenced("def pop(self):\n    return self.items.pop()")
    after = applied(read_blocks(answer, SHAPES, "app.py"), SHAPES)
    assert "    def pop(self):\n        return self.items.pop()\n" in after
    assert after.count("def pop") == 1


def test_a_class_shown_with_one_method_changes_only_that_method() -> None:
    answer = fenced("class Stack:\n    def pop(self):\n        return self.items.pop()")
    after = applied(read_blocks(answer, SHAPES, "app.py"), SHAPES)
    assert after == SHAPES.replace("self.items.pop(0)", "self.items.pop()")  # the rest stays


def test_a_decorated_method_is_matched_with_its_decorator() -> None:
    answer = fenced("    @property\n    def top(self):\n        return self.items[-1]")
    after = applied(read_blocks(answer, SHAPES, "app.py"), SHAPES)
    assert after == SHAPES.replace("self.items[0]", "self.items[-1]")
    assert after.count("@property") == 1


def test_the_whole_file_in_one_block_replaces_it() -> None:
    fixed = SHAPES.replace("math.pi * r\n", "math.pi * r * r\n")
    reading = read_blocks(fenced(fixed.rstrip("\n")), SHAPES, "app.py")
    assert applied(reading, SHAPES) == fixed
    assert reading.edit is not None and len(reading.edit.old_text) < 40  # only what changed


def test_a_region_is_matched_by_unique_first_and_last_lines() -> None:
    current = "total = 0\nfor n in range(10):\n    total += n\nprint(total)\n"
    answer = fenced("for n in range(10):\n    total += n * n\nprint(total)")
    after = applied(read_blocks(answer, current, "script.py"), current)
    assert after == "total = 0\nfor n in range(10):\n    total += n * n\nprint(total)\n"


def test_a_definition_that_occurs_twice_is_not_guessed() -> None:
    current = (
        "class A:\n    def run(self):\n        return 1\n\n\n"
        "class B:\n    def run(self):\n        return 2\n"
    )
    reading = read_blocks(fenced("def run(self):\n    return 3"), current, "app.py")
    assert reading.edit is None
    assert reading.refusal is not None
    assert "`def run` occurs 2 times in app.py (lines 2, 7)" in reading.refusal


def test_anchor_lines_that_occur_twice_are_not_guessed() -> None:
    current = "x = 1\nprint(x)\nx = 1\nprint(x)\n"
    reading = read_blocks(fenced("x = 1\ny = 2\nprint(x)"), current, "script.py")
    assert reading.edit is None and reading.refusal is not None
    assert "more than once" in reading.refusal


def test_a_block_that_matches_nothing_is_refused_with_the_reason() -> None:
    reading = read_blocks(fenced("def subtract(a, b):\n    return a - b"), SHAPES, "app.py")
    assert reading.edit is None
    assert (
        reading.refusal is not None and "`def subtract` is not defined in app.py" in reading.refusal
    )


def test_two_blocks_that_disagree_are_not_guessed() -> None:
    answer = fenced("def add(a, b):\n    return a + b") + fenced("def add(a, b):\n    return b + a")
    reading = read_blocks(answer, SHAPES, "app.py")
    assert reading.edit is None
    assert reading.refusal is not None and "differently" in reading.refusal


def test_a_usage_example_next_to_the_fix_is_ignored() -> None:
    answer = fenced("def add(a, b):\n    return a + b") + fenced("print(add(2, 3))  # 5")
    after = applied(read_blocks(answer, SHAPES, "app.py"), SHAPES)
    assert after == SHAPES.replace("a - b", "a + b")


def test_the_buggy_code_quoted_before_the_fix_is_not_a_second_proposal() -> None:
    answer = fenced("def add(a, b):\n    return a - b", prose="The bug is here:") + fenced(
        "def add(a, b):\n    return a + b"
    )
    assert applied(read_blocks(answer, SHAPES, "app.py"), SHAPES) == SHAPES.replace(
        "a - b", "a + b"
    )


@pytest.mark.parametrize("tag", ["javascript", "json", "bash"])
def test_a_block_in_another_language_is_not_an_edit(tag: str) -> None:
    answer = fenced("def add(a, b):\n    return a + b", tag=tag)
    assert read_blocks(answer, SHAPES, "app.py") == BlockReading()


@pytest.mark.parametrize("tag", ["", "py", "Python", "app.py"])
def test_untagged_and_python_tagged_blocks_fit_a_python_file(tag: str) -> None:
    answer = fenced("def add(a, b):\n    return a + b", tag=tag)
    assert read_blocks(answer, SHAPES, "app.py").edit is not None


def test_a_block_equal_to_the_current_code_is_no_edit_and_says_unchanged() -> None:
    answer = fenced("def add(a, b):\n    return a - b")
    assert read_blocks(answer, SHAPES, "app.py") == BlockReading(unchanged=True)
    whole = read_blocks(fenced(SHAPES.rstrip("\n")), SHAPES, "app.py")
    assert whole == BlockReading(unchanged=True)


def test_prose_without_a_block_proposes_nothing() -> None:
    assert read_blocks("Change `a - b` to `a + b` in add.", SHAPES, "app.py") == BlockReading()


def test_an_unclosed_block_from_a_cut_stream_is_not_a_proposal() -> None:
    assert fenced_blocks("Fix:\n```python\ndef add(a, b):\n    return a +") == []
    assert read_blocks("```python\ndef add(a, b):\n    return a + b", SHAPES, "app.py").edit is None


def test_line_numbers_copied_from_the_excerpt_are_dropped() -> None:
    current = 'def add(a, b):\n    """Return the sum of a and b."""\n    return a - b\n'
    answer = fenced(
        '    1 | def add(a, b):\n    2 |     """Return the sum of a and b."""\n'
        "    3 |     return a + b"
    )
    assert applied(read_blocks(answer, current, "app.py"), current) == current.replace("-", "+")


COUNTER = (
    "class Counter:\n    def __init__(self):\n        self.count = 0\n\n"
    "    def increment(self):\n        self.count + 1\n        return self.count\n"
)


def test_a_numbered_line_replaces_the_line_it_numbers() -> None:
    # One line can place by no header or anchors; its copied number says where it goes.
    reading = read_blocks(fenced("    6 |         self.count += 1"), COUNTER, "app.py")
    assert reading.edit == BlockEdit("        self.count + 1", "        self.count += 1")


def test_numbered_lines_replace_their_run_of_lines() -> None:
    answer = fenced("    6 |         self.count += 1\n    7 |         return self.count  # new")
    after = applied(read_blocks(answer, COUNTER, "app.py"), COUNTER)
    assert after.endswith("        self.count += 1\n        return self.count  # new\n")


@pytest.mark.parametrize(
    "numbered",
    [
        "    9 |         self.count += 1",  # past the file's end
        "    2 |         self.count += 1",  # a line that reads nothing like it
        "    6 |         self.count += 1\n    8 |         return self.count",  # a gap
    ],
)
def test_numbers_that_do_not_fit_the_file_are_not_followed(numbered: str) -> None:
    reading = read_blocks(fenced(numbered), COUNTER, "app.py")
    assert reading.edit is None and reading.refusal is not None


def test_a_crlf_file_keeps_its_line_endings() -> None:
    current = SHAPES.replace("\n", "\r\n")
    after = applied(
        read_blocks(fenced("def add(a, b):\n    return a + b"), current, "app.py"), current
    )
    assert after == current.replace("a - b", "a + b")
    assert "\r\n" in after and "\n" not in after.replace("\r\n", "")


def test_an_edit_whose_lines_repeat_elsewhere_carries_context_to_be_unique() -> None:
    current = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n"
    reading = read_blocks(fenced("def add(a, b):\n    return a + b"), current, "app.py")
    assert applied(reading, current) == current.replace("a - b", "a + b", 1)


def test_a_multiline_signature_is_part_of_the_definition() -> None:
    current = "def add(\n    a,\n    b,\n):\n    return a - b\n\n\nVALUE = add(1, 2)\n"
    answer = fenced("def add(\n    a,\n    b,\n):\n    return a + b")
    assert applied(read_blocks(answer, current, "app.py"), current) == current.replace("-", "+")


def test_a_whole_file_answer_may_add_lines_outside_any_definition() -> None:
    current = "def area(r):\n    return math.pi * r\n\n\nprint(area(2))\n"
    fixed = "import math\n\n\ndef area(r):\n    return math.pi * r * r\n\n\nprint(area(2))\n"
    assert applied(read_blocks(fenced(fixed.rstrip("\n")), current, "app.py"), current) == fixed


def test_a_block_that_leaves_out_the_end_of_the_file_is_not_the_whole_file() -> None:
    current = (
        "def add(a, b):\n    return a - b\n\n\nif __name__ == '__main__':\n    print(add(2, 3))\n"
    )
    answer = fenced("def add(a, b):\n    return a + b")
    assert applied(read_blocks(answer, current, "app.py"), current) == current.replace("-", "+")


def test_the_old_code_quoted_after_the_fix_landed_does_not_revert_it() -> None:
    fixed = SHAPES.replace("a - b", "a + b")
    summary = fenced("def add(a, b):\n    return a - b", prose="I changed this:") + fenced(
        "def add(a, b):\n    return a + b", prose="into this:"
    )
    assert read_blocks(summary, fixed, "app.py") == BlockReading(unchanged=True)
