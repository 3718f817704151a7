"""What a failing test uses: the test functions the check names, and the workspace definitions
they call, followed as "go to definition" would follow them.

A person at a failing test reads the failing test, then the function it calls, then what that
calls. Shown instead the modules the test file imports, Qwen2.5-Coder got a package's
`__init__.py` of re-exports and unrelated siblings: on the release-bugs corpus (bug fixes of
PyPI patch releases, the agent pointed at the failing test) the first request showed the lines
the fix changes in 14 of 74 tasks (`python -m bench.effect.reach --corpus release_multi`,
docs/performance.md "Release bugs corpus"). Everything here is static: names are resolved
through the imports (re-exports included), never by running the user's code.
"""

from __future__ import annotations

import ast
import re
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath

from rune_lsp.python_parse import parse
from rune_lsp.runner.attributes import attribute_names
from rune_lsp.runner.py_imports import Binding, bindings, module_file, search_bases

#: Calls followed from the failing test: what it calls, and what that calls (`report.total`
#: -> `words.count`: bench/effect/corpus_multi 08 and 11).
CALL_DEPTH = 2
#: Re-exports followed for one name (`pkg/__init__.py` -> `pkg/_impl/__init__.py` -> ...).
REEXPORT_DEPTH = 4
#: A class longer than this is shown as its methods the test names, not whole.
WHOLE_CLASS_LINES = 60
#: Lines of a long test file's head shown before its failing tests (`focus_lines`).
HEAD_LINES = 30

#: pytest's short summary (`FAILED tests/test_x.py::TestC::test_y[1-2] - AssertionError`) and
#: unittest's headers (`FAIL: test_y (tests.test_x.TestC.test_y)`).
_PYTEST_FAILED = re.compile(r"^(?:FAILED|ERROR) (?P<path>[^\s:]+\.py)::(?P<id>\S+)", re.MULTILINE)
_UNITTEST_FAILED = re.compile(r"^(?:FAIL|ERROR): (?P<name>\w+) \(", re.MULTILINE)

_Def = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
#: Folders whose code is the tests' own (helpers, fixtures): shown after the code under test.
_TEST_FOLDERS = frozenset({"tests", "test", "testing"})


@dataclass(frozen=True)
class Definition:
    """A definition to show beside a failing test: lines `first`..`last` (1-based) of `path`,
    and why it is shown, as the task labels it."""

    path: Path
    name: str
    first: int
    last: int
    why: str


def failing_test_names(output: str, shown: str) -> list[str]:
    """The test functions of the file `shown` (as the tools name it) the check's output says
    failed, in the order printed: the last part of each pytest node id (parameters dropped),
    and unittest's test names."""
    names: list[str] = []
    for match in _PYTEST_FAILED.finditer(output):
        if Path(match.group("path")).as_posix().endswith(shown):
            names.append(match.group("id").split("::")[-1].split("[")[0])
    names.extend(match.group("name") for match in _UNITTEST_FAILED.finditer(output))
    return list(dict.fromkeys(names))


def focus_lines(text: str, tests: list[str]) -> tuple[tuple[int, int], ...]:
    """What to show of the test file `text` when it is too long to show whole: its head (up to
    `HEAD_LINES` lines before its first definition: the imports name the code under test) and
    each function of `tests` with its decorators (a `parametrize` table holds the expected
    values), as 1-based (first, last) lines; nothing when no failing test is found in it."""
    try:
        tree = parse(text)
    except (SyntaxError, ValueError):
        return ()
    spans = _test_spans(tree, tests)
    if not spans:
        return ()
    defined = [_span(node)[0] for node in tree.body if isinstance(node, _DEFINITIONS)]
    head_end = min([*defined, HEAD_LINES + 1]) - 1
    head = [(1, head_end)] if head_end >= 1 else []
    return tuple(head + spans)


def failing_spans(text: str, tests: list[str]) -> tuple[tuple[int, int], ...]:
    """The 1-based (first, last) lines of each function of `tests` in the test file `text`,
    decorators included, in file order; nothing when it does not parse."""
    try:
        return tuple(_test_spans(parse(text), tests))
    except (SyntaxError, ValueError):
        return ()


def _test_spans(tree: ast.AST, tests: list[str]) -> list[tuple[int, int]]:
    return sorted(_span(node) for node in _functions(tree) if node.name in tests)


def used_definitions(
    text: str,
    target: Path,
    root: Path,
    tests: list[str],
    read: Callable[[Path], str | None],
    failing_lines: Sequence[int] = (),
) -> list[Definition]:
    """The workspace definitions the functions `tests` of the test file `target` (text
    `text`) use, in the order a reader meets them: what each test calls (through the test
    file's own helpers), the names on `failing_lines` (1-based lines of `target` the
    traceback names) first, then the rest in source order; then what those call, `CALL_DEPTH`
    levels. Code in a test folder (a helper beside the tests) comes after the code under test.
    `read` gives a file's text under the tools' rules (None: not to be shown). A class longer
    than `WHOLE_CLASS_LINES` is given as its head and the methods the tests name."""
    try:
        tree = parse(text)
    except (SyntaxError, ValueError):
        return []
    functions = [node for node in _functions(tree) if node.name in tests]
    if not functions:
        return []
    resolver = _Resolver(root, read)
    attributes = {name for node in functions for name in attribute_names(node)}
    found: list[Definition] = []
    seen: set[tuple[Path, int]] = set()  # (file, first line) of every definition shown
    frontier: list[tuple[Path, str, _Part]] = [
        (target.resolve(), node.name, _Part(node.name, *_span(node), node))
        for node in _with_local_helpers(tree, functions)
    ]
    for depth in range(CALL_DEPTH):
        following: list[tuple[Path, str, _Part]] = []
        for path, caller, shown in frontier:
            if shown.node is None:
                continue
            first = failing_lines if depth == 0 else ()
            uses = [
                *resolver.uses(path, shown.node, first),
                *((path, method) for method in _own_calls(shown)),
            ]
            for module_path, definition in uses:
                key = (module_path, _span(definition)[0])
                if module_path == target.resolve() or key in seen:
                    continue
                seen.add(key)
                for part in _parts(definition, attributes, shown.owner):
                    seen.add((module_path, part.first))
                    why = f"{part.name}, used by {caller}"
                    found.append(Definition(module_path, part.name, part.first, part.last, why))
                    if part.node is not None:
                        following.append((module_path, part.name, part))
        frontier = following
    return sorted(found, key=lambda definition: _in_test_folder(definition.path, root))


def _in_test_folder(path: Path, root: Path) -> bool:
    try:
        relative = path.relative_to(root.resolve())
    except ValueError:
        return False
    return in_test_folder(relative)


def in_test_folder(relative: PurePath) -> bool:
    """Whether a file at `relative` (to the workspace) lies in a folder of the tests' own code."""
    return any(part in _TEST_FOLDERS for part in relative.parts[:-1])


def _functions(tree: ast.AST) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def _with_local_helpers(
    tree: ast.Module, functions: list[ast.FunctionDef | ast.AsyncFunctionDef]
) -> list[_Def]:
    """The failing tests and the test file's own top-level functions they call (a `check(...)`
    helper), whose bodies use the code under test too."""
    local = {
        node.name: node
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    called = {name for node in functions for name in _loaded_names(node)}
    helpers = [local[name] for name in called if name in local and local[name] not in functions]
    return [*functions, *helpers]


def _loaded_names(node: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]


def _chains(node: ast.AST, first_lines: Sequence[int] = ()) -> list[list[str]]:
    """Every dotted name used in `node`, outermost chain only (`a.b.c(x)` gives [a, b, c]), in
    source order, those on `first_lines` first."""
    inner: set[int] = set()
    chains: list[tuple[tuple[bool, int, int], list[str]]] = []
    for child in ast.walk(node):
        if id(child) in inner or not isinstance(child, ast.Attribute | ast.Name):
            continue
        parts: list[str] = []
        current: ast.AST = child
        while isinstance(current, ast.Attribute):
            parts.append(current.attr)
            inner.add(id(current.value))
            current = current.value
        if isinstance(current, ast.Name):
            line = getattr(child, "lineno", 0)
            where = (line not in first_lines, line, getattr(child, "col_offset", 0))
            chains.append((where, [current.id, *reversed(parts)]))
    return [chain for _, chain in sorted(chains, key=lambda item: item[0])]


@dataclass(frozen=True)
class _Part:
    """A stretch of a definition to show; `node`: what is followed from it (None: nothing);
    `owner`: the long class a method shown on its own belongs to (its `self.x()` calls)."""

    name: str
    first: int
    last: int
    node: _Def | None
    owner: ast.ClassDef | None = None


def _parts(node: _Def, attributes: set[str], owner: ast.ClassDef | None = None) -> list[_Part]:
    """What is shown of `node`: all of it, or of a long class its head (bases and class
    attributes, not followed) and its `__init__` and the methods named in `attributes`, each
    once (an `@overload` stub shares its name with the method). `owner`: `node` is a method of
    that class, reached through `self`."""
    first, last = _span(node)
    if owner is not None:
        return [_Part(f"{owner.name}.{node.name}", first, last, node, owner)]
    if not isinstance(node, ast.ClassDef) or last - first < WHOLE_CLASS_LINES:
        return [_Part(node.name, first, last, node)]
    head_end = (_methods(node)[0].lineno - 1) if _methods(node) else last
    parts = [_Part(node.name, first, min(head_end, first + WHOLE_CLASS_LINES // 4), None)]
    named: dict[str, _Part] = {}
    for method in _methods(node):
        if method.name in attributes or method.name == "__init__":
            start, end = _span(method)
            # The last definition of a name is the one that runs (after `@overload` stubs).
            named[method.name] = _Part(f"{node.name}.{method.name}", start, end, method, node)
    return parts + list(named.values())


def _methods(node: ast.ClassDef) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    functions = ast.FunctionDef | ast.AsyncFunctionDef
    return [child for child in node.body if isinstance(child, functions)]


def _own_calls(shown: _Part) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The methods of its class a method shown on its own calls through `self` (tinydb's
    `LRUCache.__setitem__` calls `self.set`, where the bug was)."""
    if shown.owner is None or shown.node is None:
        return []
    methods = {method.name: method for method in _methods(shown.owner)}
    called = [chain[1] for chain in _chains(shown.node) if len(chain) > 1 and chain[0] == "self"]
    return [methods[name] for name in dict.fromkeys(called) if name in methods]


def _span(node: _Def) -> tuple[int, int]:
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return first, node.end_lineno or node.lineno


@dataclass(frozen=True)
class _Module:
    """One parsed file: its top-level definitions and the names its imports bind."""

    own: dict[str, _Def]
    bound: dict[str, Binding]
    bases: list[Path]


class _Resolver:
    """Names used in a definition, resolved to the workspace definitions they refer to. Each
    file is read and parsed once per run, however many names lead to it."""

    def __init__(self, root: Path, read: Callable[[Path], str | None]) -> None:
        self.root = root
        self.read = read
        self._modules: dict[Path, _Module | None] = {}

    def module(self, path: Path) -> _Module | None:
        if path not in self._modules:
            self._modules[path] = self._parsed(path)
        return self._modules[path]

    def _parsed(self, path: Path) -> _Module | None:
        text = self.read(path)
        if not text:
            return None
        try:
            tree = parse(text)
        except (SyntaxError, ValueError):
            return None
        return _Module(
            _top_definitions(tree), bindings(tree, path, self.root), search_bases(self.root, path)
        )

    def uses(
        self, path: Path, node: ast.AST, first_lines: Sequence[int] = ()
    ) -> Iterator[tuple[Path, _Def]]:
        """The definitions the names in `node` (of file `path`) refer to, in order of use
        (`first_lines` first)."""
        module = self.module(path)
        if module is None:
            return
        for chain in _chains(node, first_lines):
            head, rest = chain[0], chain[1:]
            if head in module.own and module.own[head] is not node:
                yield path, module.own[head]
            elif head in module.bound:
                found = self._follow(module.bound[head], rest, module.bases, REEXPORT_DEPTH)
                if found is not None:
                    yield found

    def _follow(
        self, binding: Binding, rest: list[str], bases: list[Path], depth: int
    ) -> tuple[Path, _Def] | None:
        """The definition `binding` (then the attributes `rest`) names, through modules and
        re-exports."""
        module = binding.module if binding.name is None else f"{binding.module}.{binding.name}"
        names = list(rest)
        path = module_file(module, bases) if module else None
        if path is None and binding.name is not None:  # a name taken from a module
            module, names = binding.module, [binding.name, *rest]
            path = module_file(module, bases)
        # Descend through submodules (`pkg.sub.func`) while the next name is one.
        while path is not None and names and (sub := module_file(f"{module}.{names[0]}", bases)):
            module, path, names = f"{module}.{names[0]}", sub, names[1:]
        if path is None or not names:
            return None
        return self._defined(path, names[0], depth)

    def _defined(self, path: Path, name: str, depth: int) -> tuple[Path, _Def] | None:
        module = self.module(path)
        if module is None:
            return None
        if name in module.own:
            return path, module.own[name]
        bound = module.bound.get(name)
        if bound is None or depth == 0:
            return None
        return self._follow(bound, [], module.bases, depth - 1)


def _top_definitions(tree: ast.Module) -> dict[str, _Def]:
    """The functions and classes a module defines at its top level (also under `if`/`try`)."""
    found: dict[str, _Def] = {}
    pending: deque[ast.stmt] = deque(tree.body)
    while pending:
        node = pending.popleft()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.setdefault(node.name, node)
        elif isinstance(node, ast.If | ast.Try):
            pending.extend([*node.body, *node.orelse])
    return found
