"""Python source as `ast` sees it: its definitions, their exact extent, decorators and docstring.

The parser knows what indentation only suggests: a column-0 line inside a triple-quoted string
or a comment does not end a function, a decorator belongs to the definition below it, and a
multi-line signature is one header. Lines are counted as `rune_lsp.lines` counts them (only
`\\n`, `\\r\\n` and `\\r` end a line), so a line index here is a line index of the file.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from rune_lsp.python_parse import compile_check, parse

Kind = Literal["def", "class"]
#: The first parameter of a method, by convention: a function taking one is a method.
METHOD_FIRST_PARAMETERS = frozenset({"self", "cls"})
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_Node = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
#: A line that opens a definition (`def`, `async def`, `class`), indented or not.
_OPENS_DEFINITION = re.compile(r"[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]")


@dataclass(frozen=True)
class Definition:
    """One `def`/`async def`/`class`; line indexes are 0-based and inclusive."""

    kind: Kind
    name: str
    start: int  # the first decorator's line, or the header's
    header: int  # the `def`/`class` line
    body: int  # the first body statement's line
    end: int  # the last line of the last body statement
    docstring: tuple[int, int] | None  # the docstring's lines
    children: tuple[Definition, ...]  # definitions directly in its body
    other_statements: tuple[str, ...]  # its other body statements' code (see `_text`)
    ellipses: int  # `...` statements anywhere inside it (a stub's body, or a placeholder)
    empty_body: bool  # its body is only `...` and `pass` statements (and a docstring)
    exits: bool  # its body ends in a `return` or `raise`: nothing after it would run
    first_parameter: str | None  # a function's (`self` of a method), None for a class
    asynchronous: bool = False  # an `async def`

    @property
    def decorated(self) -> bool:
        return self.start < self.header


@dataclass(frozen=True)
class Statement:
    """A top-level statement that is no definition; line indexes are 0-based and inclusive."""

    start: int
    end: int
    text: str  # its code (see `_text`)
    #: The one name it binds, for `X = ...` and `X: T = ...` (None for anything else).
    assigns: str | None
    imports: bool  # an `import` or `from ... import`
    docstring: bool  # the module's docstring


@dataclass(frozen=True)
class Outline:
    """A parsed text: its top-level definitions and its other top-level statements."""

    definitions: tuple[Definition, ...]
    statements: tuple[Statement, ...]
    #: Definitions inside the top level's `if`, `try`, `with`, `for`, `while` or `match` (a
    #: fallback `except ImportError: def f`, a `def` per Python version): part of an
    #: `other_statements` statement, they are no `definitions`.
    guarded: tuple[Definition, ...]
    #: The parsed module, for what only a few readers ask (`top_level_names`).
    module: ast.Module = field(repr=False, compare=False)

    @property
    def other_statements(self) -> int:
        return len(self.statements)

    @cached_property
    def nested_assigned(self) -> frozenset[str]:
        """Every name assigned inside a definition (a local, an attribute's base is not one):
        a block of one assignment may be a line of a function as well as a module constant.
        Derived on demand, as only such a block asks: walking every definition of each
        outline was 40% of reading a one-line fix of a 2,600-line module (argparse.py)."""
        return frozenset(
            node.id
            for definition in self.module.body
            if isinstance(definition, _DEFINITIONS)
            for node in ast.walk(definition)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
        )

    @cached_property
    def top_level_names(self) -> frozenset[str]:
        """Every name the top level binds (definitions, imports, assignment and loop targets; a
        comprehension's variables too: one name more only keeps a block's new constant out).
        Derived on demand: only a block with a new assignment asks (by_statement.py)."""
        return frozenset(name for statement in self.module.body for name in _bound(statement))

    @cached_property
    def reads(self) -> dict[str, frozenset[str]]:
        """Each top-level definition's name and the names it reads and does not bind itself (as
        a local, a parameter, a nested definition): the module's names, or builtins, it relies
        on. Walked once, when first asked (only a few readers ask)."""
        found: dict[str, frozenset[str]] = {}
        for node in self.module.body:
            if isinstance(node, _DEFINITIONS):
                found[node.name] = found.get(node.name, frozenset()) | _free(node)
        return found

    @cached_property
    def by_name(self) -> dict[tuple[Kind, str], list[Definition]]:
        """Every definition, nested ones included, by kind and name, in file order."""
        return named(self.definitions, nested=True)

    @cached_property
    def guarded_by_name(self) -> dict[tuple[Kind, str], list[Definition]]:
        """Every guarded definition, nested ones included, by kind and name, in file order."""
        return named(self.guarded, nested=True)


def named(
    definitions: tuple[Definition, ...], *, nested: bool
) -> dict[tuple[Kind, str], list[Definition]]:
    """`definitions` (and, when `nested`, those inside them) by kind and name, in file order."""
    found: dict[tuple[Kind, str], list[Definition]] = {}
    stack = list(reversed(definitions))
    while stack:
        definition = stack.pop()
        found.setdefault((definition.kind, definition.name), []).append(definition)
        if nested:
            stack.extend(reversed(definition.children))
    return found


def opens_definition(line: str) -> bool:
    """Whether `line` is the header line of a `def`, `async def` or `class` (by its text: no
    parse)."""
    return _OPENS_DEFINITION.match(line) is not None


def class_header_parts(header: list[str] | tuple[str, ...]) -> frozenset[str] | None:
    """The decorators, bases and keywords of a class header (its decorator lines and `class`
    line), each as code; None when the header does not parse as one."""
    module = _module([*(line.strip() for line in header), "    pass"])
    node = module.body[0] if module is not None and len(module.body) == 1 else None
    if not isinstance(node, ast.ClassDef):
        return None
    parts = [*node.decorator_list, *node.bases, *node.keywords]
    return frozenset(f"{type(part).__name__}:{ast.unparse(part)}" for part in parts)


def parse_error(text: str) -> SyntaxError | None:
    """Why `text` is not Python, or None when it compiles: what `ast.parse` accepts and an
    import refuses ("'await' outside async function") counts as not Python too."""
    try:
        compile_check(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return error if isinstance(error, SyntaxError) else SyntaxError(str(error))
    return None


def _module(lines: list[str] | tuple[str, ...]) -> ast.Module | None:
    try:
        return parse("\n".join(lines))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def outline(lines: list[str]) -> Outline | None:
    """The outline of `lines` (without line endings), or None when they are not Python."""
    module = _module(lines)
    if module is None:
        return None
    ellipses = sorted(s.lineno - 1 for s in _statements(module.body) if _is_ellipsis(s))
    definitions = [node for node in module.body if isinstance(node, _DEFINITIONS)]
    return Outline(
        tuple(_definition(node, lines, ellipses) for node in definitions),
        tuple(
            _statement(s, lines, docstring=s is module.body[0] and _is_string(s))
            for s in module.body
            if not isinstance(s, _DEFINITIONS)
        ),
        tuple(_definition(node, lines, ellipses) for node in _guarded(module.body)),
        module,
    )


def _guarded(body: list[ast.stmt]) -> Iterator[_Node]:
    """The definitions inside the compound statements of `body` that are no definitions, at
    any depth of such statements (not inside a definition: those are its `children`)."""
    for statement in body:
        if isinstance(statement, _DEFINITIONS):
            continue
        for inner in _bodies(statement):
            for node in inner:
                if isinstance(node, _DEFINITIONS):
                    yield node
            yield from _guarded(inner)


def _bound(statement: ast.stmt) -> set[str]:
    if isinstance(statement, _DEFINITIONS):
        return {statement.name}
    if isinstance(statement, ast.Import | ast.ImportFrom):
        return {alias.asname or alias.name.split(".")[0] for alias in statement.names}
    return _stored(statement)


def _statement(statement: ast.stmt, lines: list[str], *, docstring: bool) -> Statement:
    assigns = None
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        assigns = target.id if isinstance(target, ast.Name) else None
    elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        assigns = statement.target.id if statement.value is not None else None
    return Statement(
        start=statement.lineno - 1,
        end=(statement.end_lineno or statement.lineno) - 1,
        text=_text(statement, lines),
        assigns=assigns,
        imports=isinstance(statement, ast.Import | ast.ImportFrom),
        docstring=docstring,
    )


def _is_string(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _definition(
    node: _Node,
    lines: list[str],
    ellipses: list[int],
) -> Definition:
    header = node.lineno - 1
    start = min([header, *(d.lineno - 1 for d in node.decorator_list)])
    end = (node.end_lineno or node.lineno) - 1
    docstring = None
    first = node.body[0]
    if ast.get_docstring(node, clean=False) is not None:
        docstring = (first.lineno - 1, (first.end_lineno or first.lineno) - 1)
    body = [s for s in node.body if not (docstring and s is first)]
    return Definition(
        kind="class" if isinstance(node, ast.ClassDef) else "def",
        name=node.name,
        start=start,
        header=header,
        body=first.lineno - 1,
        end=end,
        docstring=docstring,
        children=tuple(
            _definition(s, lines, ellipses) for s in node.body if isinstance(s, _DEFINITIONS)
        ),
        other_statements=tuple(_text(s, lines) for s in body if not isinstance(s, _DEFINITIONS)),
        ellipses=bisect_right(ellipses, end) - bisect_left(ellipses, header),
        empty_body=all(isinstance(s, ast.Pass) or _is_ellipsis(s) for s in body),
        exits=isinstance(node.body[-1], ast.Return | ast.Raise),
        first_parameter=_first_parameter(node),
        asynchronous=isinstance(node, ast.AsyncFunctionDef),
    )


def _first_parameter(node: _Node) -> str | None:
    if isinstance(node, ast.ClassDef):
        return None
    first = [*node.args.posonlyargs, *node.args.args][:1]
    return first[0].arg if first else None


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement in `body`, nested ones included (expressions are not visited)."""
    stack = list(body)
    while stack:
        statement = stack.pop()
        yield statement
        for inner in _bodies(statement):
            stack.extend(inner)


def _bodies(statement: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The statement lists directly inside `statement`: its body, `else`, `finally`, each
    `except` handler's and each `match` case's."""
    for name in ("body", "orelse", "finalbody", "handlers", "cases"):
        inner = getattr(statement, name, [])
        if inner and isinstance(inner[0], ast.stmt):
            yield inner
        else:  # except handlers or match cases: each one's body
            for part in inner:
                yield part.body


def _text(statement: ast.stmt, lines: list[str]) -> str:
    """A statement's code, its lines stripped and joined."""
    end = statement.end_lineno or statement.lineno
    return "\n".join(line.strip() for line in lines[statement.lineno - 1 : end])


def _is_ellipsis(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and statement.value.value is Ellipsis
    )


def names_read(lines: list[str]) -> frozenset[str]:
    """Every name `lines` read (`HANDLERS = {"add": handle_add}` reads `handle_add`); empty
    when they are not Python. Asked of a block's new constants only, so not kept per statement
    in every outline (400 statements walked cost a 400-line answer 8 ms)."""
    module = _module(lines)
    return frozenset() if module is None else frozenset(_names(module)[0])


def _free(definition: _Node) -> set[str]:
    """The names a definition reads and does not bind (as a local, a parameter, a nested
    definition): the module's names, or builtins."""
    read, bound = _names(definition)
    return read - bound


def _names(node: ast.AST) -> tuple[set[str], set[str]]:
    """The names read and the names bound anywhere inside `node`, in one walk."""
    read: set[str] = set()
    bound: set[str] = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            (read if isinstance(inner.ctx, ast.Load) else bound).add(inner.id)
        elif isinstance(inner, ast.arg):
            bound.add(inner.arg)
        elif isinstance(inner, _DEFINITIONS) and inner is not node:
            bound.add(inner.name)
    return read, bound


def imports_for_types_only(block: Outline, file: Outline) -> frozenset[int]:
    """The first lines of the block's top-level imports that the file has under a top-level
    `if TYPE_CHECKING:` and whose names the block reads in annotations only: context, since
    added at the top they would run on import and may import in a circle. One whose name the
    block reads at run time (`Decimal(0)`) is a new import it needs."""
    guarded = {
        ast.unparse(inner)
        for node in file.module.body
        if isinstance(node, ast.If) and names_type_checking(node.test)
        for inner in node.body
        if isinstance(inner, ast.Import | ast.ImportFrom)
    }
    if not guarded:
        return frozenset()
    at_run_time = _read_at_run_time(block.module)
    return frozenset(
        node.lineno - 1
        for node in block.module.body
        if isinstance(node, ast.Import | ast.ImportFrom)
        and ast.unparse(node) in guarded
        and not _bound(node) & at_run_time
    )


def names_type_checking(test: ast.expr) -> bool:
    """`TYPE_CHECKING` or `typing.TYPE_CHECKING` (any module's attribute of that name)."""
    if isinstance(test, ast.Attribute):
        return test.attr == "TYPE_CHECKING"
    return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"


def _read_at_run_time(module: ast.Module) -> set[str]:
    """The names `module` reads outside annotations (a parameter's, a return's, an annotated
    assignment's)."""
    read: set[str] = set()
    stack: list[ast.AST] = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            read.add(node.id)
        for name, value in ast.iter_fields(node):
            if name in ("annotation", "returns"):
                continue
            if isinstance(value, ast.AST):
                stack.append(value)
            elif isinstance(value, list):
                stack.extend(item for item in value if isinstance(item, ast.AST))
    return read


def _stored(node: ast.AST) -> set[str]:
    return {
        inner.id
        for inner in ast.walk(node)
        if isinstance(inner, ast.Name) and not isinstance(inner.ctx, ast.Load)
    }
