"""No import cycle in rune_lsp/, counting every import a module can make.

Module-level, function-level (the lazy imports that keep start-up small) and `TYPE_CHECKING`
imports all count: a lazy import only moves a cycle to first use, and a type-only one still
ties two modules together for a reader. `from package import name` depends on the submodule
`package.name` when there is one, else on the package itself.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "rune_lsp"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imported(path: Path, name: str, known: dict[str, Path]) -> Iterator[str]:
    """The rune_lsp modules `path` (module `name`) imports, anywhere in its body."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                yield submodule if submodule in known else source


def import_graph() -> dict[str, set[str]]:
    known = modules()
    return {
        name: {dep for dep in imported(path, name, known) if dep in known and dep != name}
        for name, path in known.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for dep in sorted(graph[node]):
            if dep not in index:
                visit(dep)
                low[node] = min(low[node], low[dep])
            elif dep in on_stack:
                low[node] = min(low[node], index[dep])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_in_the_package() -> None:
    assert cycles(import_graph()) == []


def test_the_graph_sees_lazy_and_type_only_imports() -> None:
    graph = import_graph()
    # Function-level: the run manager is imported on first use, not at start-up.
    assert "rune_lsp.server.runs" in graph["rune_lsp.server.services"]
    # Under TYPE_CHECKING only.
    assert "rune_lsp.server.desk" in graph["rune_lsp.server.edits"]
    # `from rune_lsp.server import config` names the submodule, not the package.
    assert "rune_lsp.server.config" in graph["rune_lsp.server.lifecycle"]
    assert "rune_lsp.server" not in graph["rune_lsp.server.lifecycle"]


def test_a_cycle_is_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
