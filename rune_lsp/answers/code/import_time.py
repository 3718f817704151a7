"""Which module names a Python file reads while it is imported before the line that binds them.

A placement can be exact line for line and still raise NameError on import: a new constant put
above the module constant it reads (`_WORDS = re.compile(... % LIMIT)` after the imports, with
`LIMIT = 10` at the bottom of the file), or below the function whose default value reads it.
Run at import are the top level's statements, a function's decorators and default values (not
its body), a class's decorators, bases and body; not an `if TYPE_CHECKING:` body. Line order
stands for the order they run in, which holds at the top level but for loops. Names the file
never binds at its top level (a star import's, a class's own attributes) and what a module
reads unbound and still runs (a builtin rebound later, as `csv.py`'s fallback `complex =
float`; `undefined.GIVEN`) are not asked about. The walks keep their own stack: a module-level
expression nested a thousand deep (`X = 1 + 1 + ...`) compiles, and must not overflow Python's.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from rune_lsp.answers.code.python_source import names_type_checking
from rune_lsp.answers.code.undefined import GIVEN

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def read_before_bound(module: ast.Module) -> dict[str, tuple[int, int]]:
    """Each name the module reads at import on an earlier line than any top-level statement
    binds it, with the (1-based) lines of its first such read and of its first binding."""
    bound: dict[str, int] = {}
    for name, line in _bindings(module.body):
        bound[name] = min(line, bound.get(name, line))
    early: dict[str, tuple[int, int]] = {}
    for name, line in _reads(module.body):
        first = bound.get(name)
        if first is not None and line < first and name not in GIVEN:
            early[name] = (min(line, early.get(name, (line, 0))[0]), first)
    return early


def _bindings(body: Sequence[ast.AST]) -> list[tuple[str, int]]:
    """The module names top-level statements `body` bind, each with its line: not a function's
    or a class's body, nor a comprehension's variables."""
    found: list[tuple[str, int]] = []
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            found.append((node.name, node.lineno))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            found += [(a.asname or a.name.split(".")[0], node.lineno) for a in node.names]
        elif isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store):
                found.append((node.id, node.lineno))
        elif not isinstance(node, (ast.Lambda, *_COMPREHENSIONS)):
            stack.extend(ast.iter_child_nodes(node))
    return found


def _reads(body: list[ast.stmt]) -> list[tuple[str, int]]:
    """The names read when top-level statements `body` run at import, with their lines. Each
    node is walked with the names its class body or comprehension binds itself, which are
    not the module's."""
    found: list[tuple[str, int]] = []
    stack: list[tuple[ast.AST, frozenset[str]]] = [(node, frozenset()) for node in body]
    while stack:
        node, local = stack.pop()
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load) and node.id not in local:
                found.append((node.id, node.lineno))
            continue
        if isinstance(node, ast.ClassDef):
            own = local | {name for name, _ in _bindings(node.body)}
            stack += [(statement, own) for statement in node.body]
        elif isinstance(node, _COMPREHENSIONS):
            targets = [generator.target for generator in node.generators]
            local = local | {name for target in targets for name, _ in _bindings([target])}
        stack += [(child, local) for child in _run_at_import(node)]
    return found


def _run_at_import(node: ast.AST) -> list[ast.AST]:
    """The parts of `node` that run when it does (a class's body is walked apart, with its own
    names)."""
    if isinstance(node, (*_FUNCTIONS, ast.Lambda)):
        arguments = node.args
        defaults = [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]
        decorators = [] if isinstance(node, ast.Lambda) else node.decorator_list
        return [*decorators, *defaults]
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]
    if isinstance(node, ast.AnnAssign):
        # The annotation is left out: under `from __future__ import annotations` it never runs.
        return [part for part in (node.target, node.value) if part is not None]
    if isinstance(node, ast.If) and names_type_checking(node.test):
        return [node.test, *node.orelse]
    return list(ast.iter_child_nodes(node))
