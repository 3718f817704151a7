"""read_code's edits are the smallest exact ones, and reading is linear in the answer's size."""

from __future__ import annotations

from rune_lsp.answers.code.reading import CodeReading, FileEdit, read_code
from tests.python_steps import lines_run

SHAPES = (
    "import math\n\n\ndef add(a, b):\n    return a - b\n\n\ndef area(r):\n    return math.pi * r\n"
)


def fenced(code: str) -> str:
    return f"Here is the fix:\n\n```python\n{code}\n```\n"


def test_the_edit_holds_only_the_changed_lines() -> None:
    reading = read_code(fenced("def add(a, b):\n    return a + b"), {"app.py": SHAPES}, "app.py")
    edit = FileEdit("app.py", "    return a - b", "    return a + b")
    assert reading == CodeReading(edits=(edit,))


def test_a_whole_file_answer_edits_only_what_changed() -> None:
    fixed = SHAPES.replace("math.pi * r\n", "math.pi * r * r\n")
    reading = read_code(fenced(fixed.rstrip("\n")), {"app.py": SHAPES}, "app.py")
    assert reading.edits == (
        FileEdit("app.py", "    return math.pi * r", "    return math.pi * r * r"),
    )


def test_a_fix_reading_a_name_bound_nowhere_is_refused_and_the_files_own_are_not() -> None:
    dropped = read_code(
        fenced("def add(a, b):\n    return a + total"), {"app.py": SHAPES}, "app.py"
    )
    assert dropped.refusal is not None
    assert "`add` would read `total`, which app.py defines nowhere" in dropped.refusal

    # A name the file already reads unbound (a plugin injects it, say) is the file's business.
    injected = SHAPES + "\n\ndef hook():\n    return registry\n"
    fixed = read_code(fenced("def add(a, b):\n    return a + b"), {"app.py": injected}, "app.py")
    assert fixed.edits == (FileEdit("app.py", "    return a - b", "    return a + b"),)


def test_a_block_for_an_unreadable_named_file_is_refused_naming_it() -> None:
    answer = "```python title=utils.py\ndef double(x):\n    return x * 2\n```"
    reading = read_code(answer, {"app.py": SHAPES}, "app.py")
    assert reading.edits == ()
    assert reading.refusal is not None and "utils.py, which could not be read" in reading.refusal


def _numbered_answer(lines: int) -> tuple[str, str]:
    """A file of `lines` lines and an answer copying all of them numbered, the first and last
    changed (so that no anchor places it and its numbers do)."""
    file = "".join(f"value_{i} = compute({i}, factor={i % 7})\n" for i in range(lines))
    body = [f"value_{i} = compute({i}, factor={i % 7})" for i in range(lines)]
    body[0] += "  # first"
    body[-1] += "  # last"
    numbered = "\n".join(f"{i + 1:>5} | {line}" for i, line in enumerate(body))
    return file, f"```python\n{numbered}\n```"


def _work(file: str, answer: str) -> int:
    readings: list[CodeReading] = []
    steps = lines_run(lambda: readings.append(read_code(answer, {"prog.py": file}, "prog.py")))
    assert readings[0].edits, readings[0].refusal  # the numbers tier did the work counted
    return steps


def test_reading_copied_numbers_is_linear_in_the_answer_size() -> None:
    # Issue 24: a character-level SequenceMatcher made a 400-line answer take 206 s. A wide
    # ratio: 10 times the lines may run well under 100 times the lines of Python.
    small, large = _numbered_answer(60), _numbered_answer(600)
    counted = _work(*small)
    assert counted > 1_000  # the reading ran here, in Python, where lines are counted
    assert _work(*large) < 30 * counted


def test_reading_many_blocks_is_linear_in_their_number() -> None:
    piece = "```python\ndef add(a, b):\n    return b + a\n```\n```python\nx = 1\n```\n"
    small, large = piece * 100, piece * 1_000

    def work(answer: str) -> int:
        return lines_run(lambda: read_code(answer, {"app.py": SHAPES}, "app.py"))

    counted = work(small)
    assert counted > 1_000  # the reading ran here, in Python, where lines are counted
    assert work(large) < 30 * counted


def test_an_answer_that_is_labelled_code_without_a_fence_is_that_files_block() -> None:
    # Asked for a block whose first line is `# file: pkg/x.py`, the 1.5B began its answer with
    # that line and left the fence out.
    answer = "# file: pkg/x.py\n\ndef add(a, b):\n    return a + b\n"
    files = {"tests/test_x.py": "def test_add():\n    pass\n", "pkg/x.py": SHAPES}
    reading = read_code(answer, files, "tests/test_x.py")
    assert reading.edits == (FileEdit("pkg/x.py", "    return a - b", "    return a + b"),)


def test_labelled_code_followed_by_prose_is_refused_not_guessed() -> None:
    answer = "# file: app.py\n\ndef add(a, b):\n    return a + b\n\nThis fixes the sign.\n"
    reading = read_code(answer, {"app.py": SHAPES}, "app.py")
    assert reading.edits == () and reading.refusal is not None


def test_an_edit_of_only_blank_lines_and_comments_is_marked_layout_only() -> None:
    laid_out = "def add(a, b):\n\n    # the sum\n    return a - b"
    [edit] = read_code(fenced(laid_out), {"app.py": SHAPES}, "app.py").edits
    assert edit.layout_only
    [fix] = read_code(
        fenced("def add(a, b):\n    return a + b"), {"app.py": SHAPES}, "app.py"
    ).edits
    assert not fix.layout_only
    # A changed docstring is code Python keeps (a help text, a doctest): not layout.
    documented = 'def add(a, b):\n    """The sum."""\n    return a - b'
    [doc] = read_code(fenced(documented), {"app.py": SHAPES}, "app.py").edits
    assert not doc.layout_only


def test_an_edit_of_a_file_that_is_not_python_is_never_layout_only() -> None:
    answer = "```\nx = 1\n# a note\ny = 2\n```"
    settings = "# settings\n\nx = 1\ny = 2\n"
    [python] = read_code(answer, {"conf.py": settings}, "conf.py").edits
    assert python.layout_only
    [other] = read_code(answer, {"conf.cfg": settings}, "conf.cfg").edits
    assert not other.layout_only


def test_a_classmethod_shown_out_of_its_class_is_refused_naming_cls() -> None:
    answer = fenced(f"{SHAPES.rstrip()}\n\n\ndef build(cls, r):\n    return cls(r)")
    reading = read_code(answer, {"app.py": SHAPES}, "app.py")
    assert reading.edits == ()
    assert reading.refusal is not None and "build takes `cls`" in reading.refusal
