"""A whole-file block for a language without a parser here (answers/code/by_text.whole_text):
placed, or refused when it leaves a function out, whichever of two alike lines the alignment
pairs with the block's."""

from __future__ import annotations

import pytest

from rune_lsp.answers.code.by_text import Miss, whole_text
from rune_lsp.answers.code.spans import FileText, Replace

ADD = "function add(a, b) {\n  return a - b;\n}\n"
MUL = "function mul(a, b) {\n  return a * b;\n}\n"
REST = "".join(
    f"\nfunction {name}(a, b) {{\n  return a {op} b;\n}}\n"
    for name, op in (("div", "/"), ("sub", "-"), ("mod", "%"), ("pow", "**"))
)
CALC = FileText.of(f"{ADD}\n{MUL}{REST}")


def _block(text: str) -> list[str]:
    return text.rstrip("\n").split("\n")


@pytest.mark.parametrize(
    "add",
    [ADD, ADD.replace("a - b", "a + b")],
    ids=["mul-alone", "mul-beside-the-fix-of-add"],  # the latter: one stretch becomes one line
)
def test_a_function_left_out_is_refused_and_named_by_its_lines(add: str) -> None:
    found = whole_text(_block(add + REST), CALC, "calc.js")

    assert isinstance(found, Miss)
    assert "leaves out lines 5-7" in found.reason


def test_a_body_rewritten_into_fewer_lines_is_placed() -> None:
    loop = "  let s = a;\n  s += b;\n  s += 0;\n  s -= 0;\n  return s;\n"
    file = FileText.of(CALC.text.replace("  return a - b;\n", loop, 1))

    found = whole_text(_block(CALC.text), file, "calc.js")

    assert found == Replace(0, len(file) - 1, tuple(_block(CALC.text)))


def test_a_function_rewritten_as_one_line_as_deep_is_placed() -> None:
    long_mul = MUL.replace(
        "  return a * b;\n", "  let p = 0;\n  p += a * b;\n  p += 0;\n  return p;\n"
    )
    file = FileText.of(f"{ADD}\n{long_mul}{REST}")
    answer = f"{ADD}\nconst mul = (a, b) => a * b;\n{REST}"

    found = whole_text(_block(answer), file, "calc.js")

    assert found == Replace(0, len(file) - 1, tuple(_block(answer)))


def test_a_function_left_out_beside_lines_added_above_it_is_refused() -> None:
    # The lines added to `add` stand where `mul` stood once the two `}` are paired: as many
    # lines put as dropped, yet `mul`'s header is shallower than any of them.
    longer_add = ADD.replace(
        "  return a - b;\n", "  const s = a;\n  const t = b;\n  return s + t;\n"
    )
    found = whole_text(_block(longer_add + REST), CALC, "calc.js")

    assert isinstance(found, Miss)
    assert "leaves out lines 5-7" in found.reason


@pytest.mark.parametrize(("file_indent", "block_indent"), [("\t", "    "), ("  ", "    ")])
def test_a_body_rewritten_in_another_indent_unit_is_placed(
    file_indent: str, block_indent: str
) -> None:
    body = "".join(f"{file_indent}step{k}();\n" for k in range(4))
    text = f"function a() {{\n{file_indent}one();\n}}\n\nfunction b() {{\n{body}}}\n"
    file = FileText.of(text + REST.replace("  ", file_indent))
    answer = (
        text.replace(body, f"{file_indent}all();\n") + REST.replace("  ", file_indent)
    ).replace(file_indent, block_indent)

    found = whole_text(_block(answer), file, "calc.js")

    assert isinstance(found, Replace)


def test_a_branch_removed_is_no_function_left_out() -> None:
    branch = "  if (b === 0) {\n    return 0;\n  } else {\n    log(b);\n    count(b);\n  }\n"
    file = FileText.of(CALC.text.replace("  return a / b;\n", branch + "  return a / b;\n"))
    answer = file.text.replace("  } else {\n    log(b);\n    count(b);\n", "")

    assert isinstance(whole_text(_block(answer), file, "calc.js"), Replace)
