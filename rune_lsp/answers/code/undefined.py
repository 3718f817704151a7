"""Names a Python file reads that it binds nowhere: what pyflakes calls an undefined name.

A placement can be exact and still fail on the first call: Qwen2.5-Coder 1.5B rewrote
`median` around `ordered[middle]` and dropped the line `middle = len(ordered) // 2` (bench
own corpus, 22_median, 7 December 2026); placed, that diff raised NameError when it ran, and
a run without a check ended with it applied. The standard library's `symtable` says which
names each scope reads from the module's globals; a name the module neither assigns nor
imports (nor a function declares `global` and assigns), and that is no builtin or module
attribute, is undefined. A file that binds names no reader sees (a star import, `exec`, a
write to `globals()`, an enum's members put into the module) is not asked.
"""

from __future__ import annotations

import ast
import builtins
import re
import symtable
from collections.abc import Iterator, Sequence

#: Ways a module gets names no reader sees: `globals()`/`locals()`/`vars()` written to
#: (`plistlib`), `exec`, `sys.modules[__name__]`, an enum's members put into the module
#: (`re`'s `@global_enum`, `ssl`'s `_convert_`), gettext's `install` (`_`). Star imports are
#: found in the syntax tree (`from tkinter import*` has no space). Review, 7 December 2026.
_DYNAMIC = re.compile(
    r"\b(?:globals|locals|vars)\(\)|\bexec\(|sys\.modules\[__name__\]|\bglobal_enum\b"
    r"|\b_convert_\(|\binstall\("
)
#: What a module may read without binding it: builtins (and Windows' one), the attributes
#: the import system sets, a method's implicit `__class__` and a class body's own names.
GIVEN = frozenset(dir(builtins)) | frozenset(
    (
        *("__file__", "__name__", "__doc__", "__spec__", "__loader__", "__package__"),
        *("__path__", "__builtins__", "__annotations__", "__cached__", "__class__"),
        *("__qualname__", "__module__", "WindowsError"),
    )
)
#: The scopes `symtable` makes for an expression inside a definition: their reads are the
#: definition's.
_INNER = frozenset({"listcomp", "setcomp", "dictcomp", "genexpr", "lambda"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_OWN_SCOPE = (*_SCOPES, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def undefined_names(source: str, path: str) -> dict[str, str]:
    """Each name `source` reads and binds nowhere, with the definition reading it first, by
    its qualified name (`Cart.total`; "" for the module's own statements), as `symtable` sees
    them (`pruned` takes out what it cannot tell); empty for a file that binds names
    dynamically or that `symtable` cannot read."""
    if _DYNAMIC.search(source):
        return {}
    try:
        module = symtable.symtable(source, path, "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    scopes = list(_scopes(module))
    bound = {
        symbol.get_name()
        for scope, _ in scopes
        for symbol in scope.get_symbols()
        if (scope is module or symbol.is_declared_global())
        and (symbol.is_assigned() or symbol.is_imported())
    }
    known = bound | GIVEN
    found: dict[str, str] = {}
    for scope, qualified in scopes:
        for symbol in scope.get_symbols():
            name = symbol.get_name()
            if symbol.is_referenced() and symbol.is_global() and name not in known:
                found.setdefault(name, qualified)
    return found


def pruned(tree: ast.Module, found: dict[str, str]) -> dict[str, str]:
    """`found` (of the module parsed as `tree`) without what `symtable` cannot tell: nothing
    when a star import may bind any name, and no name read only in a local variable's
    annotation. Walks the tree, so asked only of the names that matter."""
    if not found or any(_star_import(node) for node in ast.walk(tree)):
        return {}
    unread = _only_in_local_annotations(tree)
    return {name: reader for name, reader in found.items() if name not in unread}


def _scopes(table: symtable.SymbolTable) -> Iterator[tuple[symtable.SymbolTable, str]]:
    """`table` and every scope inside it, each with the qualified name of the definition it
    reads for, with an explicit stack."""
    stack = [(table, "")]
    while stack:
        scope, qualified = stack.pop()
        yield scope, qualified
        for child in scope.get_children():
            name = child.get_name()
            inner = qualified if name in _INNER else f"{qualified}.{name}".lstrip(".")
            stack.append((child, inner))


def _star_import(node: ast.AST) -> bool:
    return isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)


def _only_in_local_annotations(tree: ast.Module) -> set[str]:
    """The names read only in annotations of a function's local variables (`total: Decimal =
    0`), which Python never evaluates (PEP 526) and `symtable` counts as read; a class body's
    annotations, inside a function too, are evaluated."""
    annotated: set[int] = set()  # the ids of the Name nodes inside such annotations
    for function in ast.walk(tree):
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            for node in _own_nodes(function, (ast.ClassDef,)):
                if isinstance(node, ast.AnnAssign):
                    annotated.update(id(name) for name in ast.walk(node.annotation))
    names = [node for node in ast.walk(tree) if isinstance(node, ast.Name)]
    elsewhere = {node.id for node in names if id(node) not in annotated}
    return {node.id for node in names if id(node) in annotated} - elsewhere


def _own_nodes(definition: ast.AST, apart: tuple[type[ast.AST], ...]) -> Iterator[ast.AST]:
    """The nodes of `definition`'s body, not entering the nodes of the kinds `apart`."""
    stack: list[ast.AST] = list(getattr(definition, "body", []))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, apart):
            stack.extend(ast.iter_child_nodes(node))


def left_out_line(
    module: ast.Module, lines: Sequence[str], reader: str, name: str, result: str
) -> str | None:
    """The line where the file (parsed `module`, its `lines`) binds `name` in the definition
    whose qualified name is `reader` ("" for its top level), not inside a definition or an
    expression scope of its own, when the `result` of the placement lacks it; else None (one
    still there means a scope rule, a class body's comprehension say, not a line left out).
    What a fix reading `name` unbound left out, quoted back to the model."""
    found = _definition(module, reader)
    if found is None:
        return None
    for node in _own_nodes(found, _OWN_SCOPE):
        if (
            isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Store)
            and node.id == name
            and 0 < node.lineno <= len(lines)
        ):
            line = lines[node.lineno - 1].strip()
            kept = {text.strip() for text in result.splitlines()}
            return None if line in kept else line
    return None


def _definition(module: ast.Module, qualified: str) -> ast.AST | None:
    """The definition of `module` with the qualified name `qualified` ("" is the module)."""
    node: ast.AST = module
    for part in qualified.split(".") if qualified else ():
        body = getattr(node, "body", [])
        found = [child for child in body if isinstance(child, _SCOPES) and child.name == part]
        if not found:
            return None
        node = found[-1]  # the one that stands: a later definition replaces an earlier one
    return node
