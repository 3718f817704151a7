"""Parsing Python source: the one way rune-lsp calls `ast.parse`, one parse at a time.

CPython 3.11 keeps the AST constructor's recursion depth in interpreter-wide state, so two
threads inside `ast.parse` at once can fail with "SystemError: AST constructor recursion depth
mismatch" (python/cpython#106905; the full suite hit it on 3.11.7). The code reader parses in a
worker thread (answers/code/reading.py) while a run's thread reads a test's imports
(runner/context.py); both go through `parse`, which also keeps the warnings a model's code
raises (invalid escape sequences) quiet without two threads changing the filters at once.
"""

from __future__ import annotations

import ast
import threading
import warnings

_ONE_AT_A_TIME = threading.Lock()


def parse(text: str) -> ast.Module:
    """`ast.parse(text)`, serialised; raises SyntaxError or ValueError as it does."""
    with _ONE_AT_A_TIME, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text)


def compile_check(text: str) -> None:
    """`text` compiled to bytecode and thrown away, serialised as `parse`: raises the
    SyntaxError that `ast.parse` lets through and an import would not ("'await' outside async
    function", "'return' outside function", a `nonlocal` with no binding), or ValueError."""
    with _ONE_AT_A_TIME, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compile(text, "<block>", "exec", dont_inherit=True)
