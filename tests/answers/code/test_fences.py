"""The one fence parser: CommonMark's backtick and tilde fences, the file a block names, and
reading work linear in the answer's length."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from rune_lsp.answers.code import fences
from rune_lsp.answers.code.fences import Fence, answer_blocks, fenced_blocks, speaks
from rune_lsp.answers.code.reading import named_paths
from tests.python_steps import lines_run


def test_backtick_and_tilde_fences_are_both_read() -> None:
    text = "A:\n```python\nx = 1\n```\nB:\n~~~py\ny = 2\n~~~\n"
    assert fenced_blocks(text) == [Fence("python", ("x = 1",)), Fence("py", ("y = 2",))]


def test_a_fence_closes_only_on_its_own_character_and_at_least_its_length() -> None:
    text = "````python\n```\ninside\n~~~~\n````\n"
    assert fenced_blocks(text) == [Fence("python", ("```", "inside", "~~~~"))]


def test_a_backtick_info_string_holding_a_backtick_opens_nothing() -> None:
    assert fenced_blocks("``` not `a fence`\nx\n```\n") == []


def test_an_indented_fence_removes_its_indentation_from_the_lines() -> None:
    text = "1. Fix:\n   ```python\n   def f():\n       return 1\n   ```\n"
    assert fenced_blocks(text) == [Fence("python", ("def f():", "    return 1"))]


#: The shape of a real library's function whose docstring holds an indented ```pycon example
#: (humanize's `intcomma`; bench/effect release_multi 25_humanize, Qwen2.5-Coder 1.5B).
DOCSTRING_EXAMPLE = (
    "def intcomma(value):\n"
    '    """Commas every three digits.\n'
    "\n"
    "    Examples:\n"
    "        ```pycon\n"
    "        >>> intcomma(1000)\n"
    "        '1,000'\n"
    "        ```\n"
    '    """\n'
    "    return f'{value:,}'"
)


def test_a_docstrings_fenced_example_does_not_cut_the_block_quoting_it() -> None:
    text = f"Fixed:\n```python\n{DOCSTRING_EXAMPLE}\n```\nDone."
    assert fenced_blocks(text) == [Fence("python", tuple(DOCSTRING_EXAMPLE.splitlines()))]


def test_a_closing_fence_indented_further_than_three_spaces_is_content() -> None:
    text = "```python\nx = '''\n    ```\n'''\n```\n"
    assert fenced_blocks(text) == [Fence("python", ("x = '''", "    ```", "'''"))]


def test_a_tagged_fence_at_the_blocks_own_indentation_nests_one_level() -> None:
    text = '```python\ndoc = """\n```pycon\n>>> 1\n```\n"""\n```\nafter\n'
    assert fenced_blocks(text) == [
        Fence("python", ('doc = """', "```pycon", ">>> 1", "```", '"""'))
    ]


def test_an_answer_without_fences_is_a_block_only_when_it_opens_with_a_file_label() -> None:
    code = "# file: pkg/x.py\n\ndef f():\n    return 1\n"
    assert answer_blocks(code) == [Fence("", ("", "def f():", "    return 1"), "pkg/x.py")]
    assert answer_blocks("# Fix\n\ndef f():\n    return 1\n") == []  # a heading, no file
    assert answer_blocks("# utils.py\nx = 1\n") == []  # only `# file:` stands for a fence
    assert answer_blocks("The bug is in f.\n# file: pkg/x.py\nx = 1\n") == []
    fenced = "# file: pkg/x.py\n```python\nx = 1\n```\n"
    assert answer_blocks(fenced) == fenced_blocks(fenced)


def test_an_unclosed_block_from_a_cut_stream_is_not_a_proposal() -> None:
    assert fenced_blocks("Fix:\n```python\ndef add(a, b):\n    return a +") == []


@pytest.mark.parametrize(
    ("opening", "first", "named"),
    [
        ("```python title=utils.py", "", "utils.py"),
        ('```python file="pkg/utils.py"', "", "pkg/utils.py"),
        ("```python:utils.py", "", "utils.py"),
        ("```utils.py", "", "utils.py"),
        ("```python", "# utils.py", "utils.py"),
        ("```python", "# file: pkg/utils.py", "pkg/utils.py"),
        ("```python", "# Fixed code", None),
        ("```python", "# fixed version of utils.py", None),
    ],
)
def test_the_file_a_block_names(opening: str, first: str, named: str | None) -> None:
    [fence] = fenced_blocks(f"{opening}\n{first}\nx = 1\n```")
    assert fence.named == named
    assert speaks(fence.tag, named or "prog.py")
    # A first line that names the file is a label, not code; any other line stays.
    label = first.startswith("#") and named is not None
    assert fence.lines == (("x = 1",) if label else (first, "x = 1"))


@pytest.mark.parametrize(
    ("above", "named"),
    [
        ("# file: pkg/utils.py", "pkg/utils.py"),
        ("# file: pkg/utils.py\n", "pkg/utils.py"),  # a blank line apart
        ("// file: app.js", "app.js"),
        ("# file: pkg/utils.py\n\n\n", "pkg/utils.py"),  # blank lines apart
        ("# helpers.py", None),  # a caption or a heading: only `file:` names one up here
        ("# v2.0", None),
        ("The fix, in pkg/utils.py:", None),  # prose names no file: the target's block
        ("", None),
    ],
)
def test_a_label_above_the_fence_names_its_file(above: str, named: str | None) -> None:
    [fence] = fenced_blocks(f"Fixed.\n{above}\n```python\nx = 1\n```")
    assert fence.named == named
    assert fence.lines == ("x = 1",)


def test_the_blocks_own_name_wins_over_the_label_above_it() -> None:
    blocks = fenced_blocks("# file: a.py\n```python\n# file: b.py\nx = 1\n```\n```\ny = 2\n```")
    # The second block's line above is the first one's closing fence: it names nothing.
    assert [(fence.named, fence.lines) for fence in blocks] == [
        ("b.py", ("x = 1",)),
        (None, ("y = 2",)),
    ]


def test_named_paths_lists_other_files_once_with_the_target_folder_first() -> None:
    answer = "```python title=utils.py\nx = 1\n```\n```python\n# utils.py\ny = 2\n```\n"
    assert named_paths(answer, "pkg/prog.py") == ("pkg/utils.py", "utils.py")
    assert named_paths(answer, "prog.py") == ("utils.py",)
    assert named_paths("```python\n# prog.py\nx = 1\n```", "prog.py") == ()


def _work(text: str) -> int:
    return lines_run(lambda: fenced_blocks(text))


@pytest.mark.parametrize(
    "piece",
    [
        "```" + "a" * 10 + "`",  # the opening the old regex backtracked on
        "```python\n" + "x = 1\n" * 5 + "```\n",
        "~" * 10 + " " + "b" * 10 + "\n",
    ],
)
def test_reading_is_linear_in_the_answer_size(piece: str) -> None:
    # A wide ratio: 10 times the input may run well under 100 times the lines of Python.
    small, large = piece * 300, piece * 3_000
    assert _work(large) < 30 * _work(small)


class _Recorded:
    """A regular expression (or the `re` module) that notes how long each text it is asked
    to search is: one line's work is C code, invisible to `lines_run`."""

    def __init__(self, wrapped: object, lengths: list[int], text_at: int) -> None:
        self._wrapped, self._lengths, self._text_at = wrapped, lengths, text_at

    def __getattr__(self, name: str) -> Callable[..., object]:
        method = getattr(self._wrapped, name)

        def recorded(*args: object, **kwargs: object) -> object:
            self._lengths.append(len(str(args[self._text_at])))
            return method(*args, **kwargs)

        return recorded


@pytest.fixture
def searched(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every text the fence reader's regular expressions search."""
    lengths: list[int] = []
    for name, value in vars(fences).items():
        if isinstance(value, re.Pattern):
            monkeypatch.setattr(fences, name, _Recorded(value, lengths, text_at=0))
    monkeypatch.setattr(fences, "re", _Recorded(re, lengths, text_at=1))
    return lengths


def test_the_regular_expressions_search_named_paths(searched: list[int]) -> None:
    answer = "# file: a.py\n```python title=utils.py\n# utils.py\nx = 1\n```\n```utils.py\ny\n```"
    fenced_blocks(answer)
    assert searched  # the recorder sees the reader's searches


@pytest.mark.parametrize(
    "line",
    [
        # Spaces then a backtick: the old opening regex backtracked over the spaces (a 30 KB
        # line stalled the server 8.3 s, issue 24).
        "```" + " " * 30_000 + "x`",
        "```" + "a" * 1_000_000,
        "```python title=" + "a" * 100_000 + ".py",
        "# file: " + "a" * 100_000 + ".py",
    ],
)
def test_no_regular_expression_searches_a_long_line(searched: list[int], line: str) -> None:
    # Regular expressions can backtrack; str methods cannot. A long line is only ever split
    # and stripped, so its cost is linear.
    for answer in (line, line + "\nx = 1\n```", "```python\n" + line + "\nx\n```"):
        fenced_blocks(answer)
        answer_blocks(answer)
    assert max(searched, default=0) <= fences._NAMING_LENGTH


def test_labelled_code_whose_opening_fence_was_left_out_ends_at_its_closing_fence() -> None:
    answer = "# file: pkg/x.py\ndef f():\n    return 1\n```\n\nThat returns one.\n"
    assert answer_blocks(answer) == [Fence("", ("def f():", "    return 1"), "pkg/x.py")]
