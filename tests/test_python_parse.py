"""`rune_lsp.python_parse.parse`: one `ast.parse` at a time across threads (CPython 3.11's
AST constructor keeps its recursion depth interpreter-wide: python/cpython#106905)."""

from __future__ import annotations

import ast
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from rune_lsp import python_parse


def test_parses_and_raises_as_ast_parse_does() -> None:
    tree = python_parse.parse("def f(x):\n    return '\\d' + x\n")
    assert isinstance(tree.body[0], ast.FunctionDef)
    with pytest.raises(SyntaxError):
        python_parse.parse("def f(:\n")


@pytest.mark.parametrize(
    "text",
    [
        "def f(source):\n    return await source.read()\n",
        "return 1\n",
        "def f():\n    nonlocal x\n",
    ],
)
def test_the_compile_check_refuses_what_parses_and_no_import_would(text: str) -> None:
    python_parse.parse(text)  # ast.parse takes it
    with pytest.raises(SyntaxError):
        python_parse.compile_check(text)


def test_the_compile_check_takes_code_that_imports() -> None:
    python_parse.compile_check("async def f(source):\n    return await source.read()\n")


def test_threads_never_parse_at_the_same_time(monkeypatch: pytest.MonkeyPatch) -> None:
    inside = 0
    most = 0
    guard = threading.Lock()
    real = ast.parse

    def slow_parse(text: str) -> ast.Module:
        nonlocal inside, most
        with guard:
            inside += 1
            most = max(most, inside)
        time.sleep(0.01)  # long enough for the other threads to arrive meanwhile
        with guard:
            inside -= 1
        return real(text)

    monkeypatch.setattr(python_parse.ast, "parse", slow_parse)
    with ThreadPoolExecutor(max_workers=4) as pool:
        trees = list(pool.map(python_parse.parse, [f"x = {n}\n" for n in range(16)]))

    assert len(trees) == 16
    assert most == 1
