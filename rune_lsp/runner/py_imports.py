"""Python imports resolved to the workspace's files, as the interpreter would find them.

One owner for "which file does this import name": the files shown beside a failing test
(runner/context.py), the definitions that test uses (runner/failing_tests.py) and the check offered
for code a test covers (runner/offered_check.py) all resolve imports here. A module found
nowhere in the workspace is installed code, never the user's.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rune_lsp.python_parse import parse


@dataclass(frozen=True)
class Binding:
    """What a name bound by an import refers to: module `module` itself (`name` None), or the
    name `name` taken from it (`from module import name`)."""

    module: str
    name: str | None = None


def search_bases(root: Path, target: Path) -> list[Path]:
    """Where imports of `target` are looked for: the root, its `src/` folder, the file's folder."""
    return [root, root / "src", target.parent]


def module_file(module: str, bases: Sequence[Path]) -> Path | None:
    """The file of the dotted `module` under the first of `bases` that has it, resolved."""
    if not module:
        return None
    parts = module.split(".")
    for base in bases:
        package = base.joinpath(*parts)
        for candidate in (package.with_suffix(".py"), package / "__init__.py"):
            if candidate.is_file():
                return candidate.resolve()
    return None


def imported_files(text: str, target: Path, root: Path) -> list[tuple[Path, list[str]]]:
    """The workspace files `text` (the Python file `target`) imports, each with the names
    imported from it, in import order. Resolved as the interpreter would from the root, its
    `src/` folder and the target's folder; a module found nowhere there is installed code."""
    try:
        tree = parse(text)
    except (SyntaxError, ValueError):
        return []
    bases = search_bases(root, target)
    found: dict[Path, list[str]] = {}
    for node in ast.walk(tree):
        for module, names in imported_modules(node, target, root):
            # `from pkg import x`: x may be a module itself, the file to look at then.
            rest = []
            for name in names:
                sub = module_file(f"{module}.{name}" if module else name, bases)
                if sub is None:
                    rest.append(name)
                elif sub != target:
                    found.setdefault(sub, [])
            path = module_file(module, bases)
            if path is not None and path != target and (rest or not names):
                found.setdefault(path, []).extend(rest)
    return list(found.items())


def bindings(tree: ast.AST, target: Path, root: Path) -> dict[str, Binding]:
    """The names the imports anywhere in `tree` (the Python file `target`) bind, each with what
    it refers to: `import a.b` binds `a` to module `a`, `import a.b as x` binds `x` to `a.b`,
    `from m import n as k` binds `k` to name `n` of `m` (relative imports made absolute)."""
    bound: dict[str, Binding] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bound[alias.asname] = Binding(alias.name)
                else:
                    head = alias.name.split(".")[0]
                    bound[head] = Binding(head)
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node, target, root)
            if module is None:
                continue
            for alias in node.names:
                if alias.name != "*":
                    bound[alias.asname or alias.name] = Binding(module, alias.name)
    return bound


def imported_modules(node: ast.AST, target: Path, root: Path) -> list[tuple[str, list[str]]]:
    """The modules one import statement `node` of `target` imports, each with the names it
    takes from it (none for `import m`); relative imports made absolute from the root."""
    if isinstance(node, ast.Import):
        return [(alias.name, []) for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        module = _absolute(node, target, root)
        if module is None:
            return []
        return [(module, [alias.name for alias in node.names if alias.name != "*"])]
    return []


def _absolute(node: ast.ImportFrom, target: Path, root: Path) -> str | None:
    if node.level == 0:
        return node.module or ""
    package = target.parent
    for _ in range(node.level - 1):
        package = package.parent
    try:
        prefix = ".".join(package.relative_to(root).parts)
    except ValueError:
        return None
    return ".".join(part for part in (prefix, node.module or "") if part)
