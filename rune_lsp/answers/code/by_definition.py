"""Python blocks placed by what `ast` says they define: each `def`/`class` of the block
replacing the file's definition of that name, exactly over its extent (the whole file is
`by_whole_file`'s).

- A method shown alone goes back into its class, moved as one piece to the method's depth.
- A definition shown without the decorators, the docstring or the `async` the file has keeps
  the file's.
- A class shown with some of its methods (or with placeholders for the others) changes only the
  methods it shows, each whole.
- A definition whose body is only a placeholder (`...`, `pass  # unchanged`) is left as it is;
  one that mixes real code with a placeholder is refused: the code it leaves out is not known.
- A name defined twice in the block counts once, as its last definition, when the earlier ones
  are the code as it is now ("# Original code" then "# Fixed code" in one block).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property

from rune_lsp.answers.code import prompts
from rune_lsp.answers.code.by_text import Miss
from rune_lsp.answers.code.placeholders import has_placeholder, is_placeholder
from rune_lsp.answers.code.python_source import (
    METHOD_FIRST_PARAMETERS,
    Definition,
    Kind,
    Outline,
    class_header_parts,
    named,
    outline,
)
from rune_lsp.answers.code.spans import FileText, Replace, indent_of, shifted

#: The decorators that say what kind of method a function is.
_METHOD_KINDS = frozenset({"@staticmethod", "@classmethod"})
#: A property's accessor decorator line (`@property`, `@celsius.setter`).
_ACCESSOR = re.compile(r"^\s*@(?:(property)|\w+\.(setter|deleter))\s*$")
#: A decorator line of `typing.overload` (`@overload`, `@typing.overload`, `@t.overload`).
_OVERLOAD = re.compile(r"^\s*@(\w+\.)?overload\s*$")


#: Where a unit's namesake is looked for: definitions by kind and name.
Scope = dict[tuple[Kind, str], list[Definition]]


@dataclass(frozen=True)
class ParsedBlock:
    """A block that parses as Python once its first line's indentation is taken off."""

    raw: list[str]
    base: str  # the indentation taken off
    outline: Outline

    def indent(self, unit: Definition) -> str:
        return indent_of(self.raw[unit.header])

    @cached_property
    def _top(self) -> frozenset[int]:
        return frozenset(unit.start for unit in self.outline.definitions)

    @cached_property
    def callers(self) -> dict[str, tuple[str, ...]]:
        """Each name the block's top-level definitions read from the module, and those of them
        that read it (a definition reading its own name, recursion, is no caller)."""
        found: dict[str, list[str]] = {}
        for name, read in self.outline.reads.items():
            for other in read - {name}:
                found.setdefault(other, []).append(name)
        return {name: tuple(names) for name, names in found.items()}

    def at_top(self, unit: Definition) -> bool:
        """Whether `unit` is one of the block's top-level definitions (no definition inside
        another starts on its line)."""
        return unit.start in self._top


def parse_block(block: list[str]) -> ParsedBlock | None:
    for base in dict.fromkeys(("", indent_of(block[0]))):
        dedented = [line[len(base) :] if line.startswith(base) else line for line in block]
        found = outline(dedented)
        if found is not None:
            return ParsedBlock(block, base, found)
    return None


def partial_class(unit: Definition, target: Definition, raw: list[str]) -> bool:
    """The class is shown with some of its methods (or a nested class's) left out or standing
    in placeholders (an empty body where the file's method has code: an abstract method empty
    in both is shown whole)."""
    shown = {(c.kind, c.name): c for c in unit.children}
    if any((c.kind, c.name) not in shown for c in target.children):
        return True
    if len(unit.other_statements) < len(target.other_statements):
        return True  # its attributes left out
    for child in target.children:
        block = shown[(child.kind, child.name)]
        if block.empty_body and not child.empty_body:
            return True
        if child.kind == "class" and partial_class(block, child, raw):
            return True
    own = set(range(unit.start, unit.end + 1))
    for child in unit.children:
        own -= set(range(child.start, child.end + 1))
    return any(is_placeholder(raw[i]) for i in own)


def by_definitions(
    parsed: ParsedBlock, file: FileText, now: Outline, shown: str
) -> list[Replace] | Miss:
    placer = _Placer(parsed, file, shown, now)
    return placer.units(parsed.outline.definitions, now.by_name, now.guarded_by_name)


@dataclass(frozen=True)
class _Placer:
    block: ParsedBlock
    file: FileText
    shown: str
    now: Outline  # the file's

    def units(
        self,
        units: tuple[Definition, ...],
        scope: Scope,
        guarded: Scope | None = None,
    ) -> list[Replace] | Miss:
        """Each of `units` placed over its namesake in `scope` (else in `guarded`); the last of
        a name counts (a property's getter, setter and deleter are three names)."""
        last = {self.key(u): u for u in units}
        replaces: list[Replace] = []
        skipped = 0
        for unit in units:
            placed = self.unit(unit, scope, guarded or {})
            if isinstance(placed, Miss):
                return placed
            if last[self.key(unit)] is not unit:
                if any(r.changes(self.file) for r in placed):
                    return Miss(prompts.defined_twice_in_block(label(unit)))
                continue  # the code as it is now, quoted before its fix
            skipped += not placed
            replaces.extend(placed)
        if units and skipped == len(last):
            return Miss(prompts.placeholder(label(units[0])))
        return replaces

    def key(self, unit: Definition) -> tuple[Kind, str, str]:
        return unit.kind, unit.name, _accessor(self.block.raw[unit.start : unit.header])

    def unit(self, unit: Definition, scope: Scope, guarded: Scope) -> list[Replace] | Miss:
        target = self.target(unit, scope, guarded)
        if isinstance(target, Miss):
            return target
        if self.placeholder_only(unit, target):
            return []
        if unit.kind == "class" and partial_class(unit, target, self.block.raw):
            if any(s not in target.other_statements for s in unit.other_statements):
                return Miss(prompts.class_changed_outside_methods(label(unit)))
            placed = self.units(unit.children, named(target.children, nested=False))
            header = self.class_header(unit, target)
            if isinstance(placed, Miss) or header is None:
                return placed
            return [header, *placed]
        if self.leaves_code_out(unit, target):
            return Miss(prompts.placeholder(label(unit)))
        if self.cut_short(unit, target):
            return Miss(prompts.cut_short(label(unit)))
        return self.replace(unit, target)

    def target(self, unit: Definition, scope: Scope, guarded: Scope) -> Definition | Miss:
        """The file's definition `unit` is: the one of its kind and name (at any depth for a
        unit at the block's top level: a method shown alone), or the one with its exact header
        when there are several. Definitions under the top level's `if` or `try` (a fallback
        `except ImportError: def f`) count too: no top-level definition, yet "not defined"
        would be false, and a method of a fallback class makes its namesake ambiguous."""
        key = (unit.kind, unit.name)
        found = sorted([*scope.get(key, []), *guarded.get(key, [])], key=lambda d: d.start)
        if len(found) > 1:
            header = self.block.raw[unit.header].strip()
            exact = [d for d in found if self.file.lines[d.header].strip() == header]
            if len(exact) != 1:
                exact = self.implementation(unit, found)
            if len(exact) != 1:
                exact = self.same_accessor(unit, found)
            if len(exact) != 1:
                lines = [d.header + 1 for d in found]
                return Miss(prompts.defined_more_than_once(label(unit), self.shown, lines), True)
            found = exact
        if not found:
            return Miss(prompts.not_defined(label(unit), self.shown))
        if self.function_for_method(unit, found[0]):
            first, line = unit.first_parameter, found[0].header + 1
            return Miss(prompts.function_for_method(label(unit), first, self.shown, line))
        holder = self.called_nested(unit, found[0])
        if holder is not None:
            where = f"inside {label(holder)} (line {found[0].header + 1})"
            return Miss(prompts.module_function_for_nested(label(unit), self.shown, where))
        return found[0]

    def called_nested(self, unit: Definition, target: Definition) -> Definition | None:
        """The definition `target` is nested in, when `unit`, a function of the block's top
        level, is called by name by another of the block's top-level definitions that the file
        has outside it (or not at all): then `unit` is a module function, wherever the file's
        namesake is. A new helper `def clean(row)` placed over the one nested in `load` left
        the block's `load` calling a `clean` that no longer existed, and `def normalize(text)`
        placed over `Slug.normalize` left `slugify`'s `normalize(text)` a NameError (reader
        probe, 7 December 2026). A nested function or a method shown alone, or with its
        siblings (`render` and the `index` calling it, both inside `create_app`), goes back
        where it is."""
        # Cheapest first: most units are no top-level block function over a nested namesake,
        # and the callers need the block's names walked.
        holder = self.holder(target) if self.block.at_top(unit) else None
        if holder is None:
            return None
        callers = self.block.callers.get(unit.name, ())
        return None if all(self.inside(holder, name) for name in callers) else holder

    def holder(self, target: Definition) -> Definition | None:
        """The file's module-level definition `target` is nested in, if any (a definition under
        the top level's `if` or `try` is module-level)."""
        for level in (self.now.definitions, self.now.guarded):
            at = bisect_right(level, target.start, key=lambda d: d.start) - 1
            if at >= 0 and level[at] is not target and target.end <= level[at].end:
                return level[at]
        return None

    def inside(self, holder: Definition, name: str) -> bool:
        """Whether the file defines `name` inside `holder` (not `holder` itself)."""
        return any(
            d is not holder and holder.start <= d.start and d.end <= holder.end
            for kind in ("def", "class")
            for d in self.now.by_name.get((kind, name), [])
        )

    def function_for_method(self, unit: Definition, target: Definition) -> bool:
        """A function of the block's top level without `self`/`cls` whose one namesake in
        the file is a method taking one: a new helper `def parse(text)` replaced
        `Parser.parse(self, text)`, and the block's other functions calling `parse` raised
        NameError (reader probe, 7 December 2026). A method shown alone keeps its `self`."""
        return (
            unit.kind == "def"
            and target.first_parameter in METHOD_FIRST_PARAMETERS
            and unit.first_parameter not in METHOD_FIRST_PARAMETERS
            and self.block.at_top(unit)
        )

    def implementation(self, unit: Definition, found: list[Definition]) -> list[Definition]:
        """Of a function the file declares with `@overload` stubs before its one
        implementation, that implementation, for a block with a body that is no overload:
        the stubs are no place for it. The 1.5B's `lookup_default` of click's `Context`
        (two overloads, then the code) was refused as "occurs 3 times" (bench/effect
        release_multi 19_click, 6 December 2026)."""
        if unit.empty_body or _overload(self.block.raw[unit.start : unit.header]):
            return []
        return [d for d in found if not _overload(self.file.lines[d.start : d.header])]

    def same_accessor(self, unit: Definition, found: list[Definition]) -> list[Definition]:
        """Of a property's getter, setter and deleter (one name), the one `unit`'s decorators
        say it is (`@property`, `@celsius.setter`, `@celsius.deleter`); none when they say
        none of those: a deleter shown without its decorator is no getter."""
        role = _accessor(self.block.raw[unit.start : unit.header])
        if not role:
            return []
        return [d for d in found if _accessor(self.file.lines[d.start : d.header]) == role]

    def placeholder_only(self, unit: Definition, target: Definition) -> bool:
        """A body of only `...`/`pass` (and comments) where the file has real code: shown to
        stand for the code as it is (a class's other methods, say)."""
        return unit.empty_body and not target.empty_body

    def leaves_code_out(self, unit: Definition, target: Definition) -> bool:
        if unit.ellipses > target.ellipses:
            return True
        return has_placeholder(self.block.raw[unit.start : unit.end + 1])

    def cut_short(self, unit: Definition, target: Definition) -> bool:
        """The block stops before the definition's end: shorter than the file's, ending on
        another line, and not on a `return` or `raise` (after which nothing would run: a fix
        like `return sorted(scores)` for two lines, bench/effect 10_ranked, is whole)."""
        if unit.exits:
            return False
        shown = _filled(self.block.raw[unit.header : unit.end + 1])
        now = _filled(self.file.lines[target.header : target.end + 1])
        if target.docstring is not None and unit.docstring is None:
            now -= target.docstring[1] - target.docstring[0] + 1
        last_shown, last_now = self.block.raw[unit.end], self.file.lines[target.end]
        return shown < now and last_shown.strip() != last_now.strip()

    def class_header(self, unit: Definition, target: Definition) -> Replace | None:
        """A partly shown class's `class` line (and decorators, when the block has some) where
        they add to the file's: placing only its methods dropped a new base class, and the
        `super().__init__(message)` the block added then called `object` (reader probe, 7
        December 2026). None when they add nothing (a block that writes `class AppError:` for
        the file's `class AppError(Exception):` shows the class in short, and leaves it), or
        cannot move to the file's depth."""
        unit_body, target_body = _first_body_line(unit), _first_body_line(target)
        if unit_body <= unit.header or target_body <= target.header:
            return None  # a one-line class (`class A(B): pass`): no lines of its own to compare
        raw, lines = self.block.raw, self.file.lines
        lo = target.start if unit.decorated else target.header
        shown = raw[(unit.start if unit.decorated else unit.header) : unit_body]
        now = lines[lo:target_body]
        shown = shown[: _header_end(shown, len(shown) - (unit_body - unit.header), len(shown)) + 1]
        now = now[: _header_end(now, len(now) - (target_body - target.header), len(now)) + 1]
        if not _adds_to(shown, now):
            return None
        top = len(shown)
        moved = shifted(shown, self.block.indent(unit), indent_of(lines[target.header]), top)
        return None if moved is None else Replace(lo, lo + len(now) - 1, moved)

    def kinds_left_out(self, unit: Definition, target: Definition) -> list[str]:
        """The file's `@staticmethod`/`@classmethod` lines a decorated block leaves out: its
        decorators replace the file's, and a method shown out of its class (`@lru_cache` on
        `fib`) dropped the `@staticmethod` above them (reader probe, 7 December 2026)."""
        if not unit.decorated or not target.decorated:
            return []
        shown = {line.strip() for line in self.block.raw[unit.start : unit.header]}
        if shown & _METHOD_KINDS or unit.first_parameter != target.first_parameter:
            return []  # the block says what kind it is, or makes it another (`self` added)
        return [
            line
            for line in self.file.lines[target.start : target.header]
            if line.strip() in _METHOD_KINDS
        ]

    def replace(self, unit: Definition, target: Definition) -> list[Replace] | Miss:
        """`target` replaced by `unit` moved to its depth, keeping the decorators and the
        docstring the block left out."""
        lines = self.block.raw[unit.start : unit.end + 1]
        old, new = self.block.indent(unit), indent_of(self.file.lines[target.header])
        moved = shifted(lines, old, new, top=unit.header - unit.start + 1)
        if moved is None:
            return Miss(prompts.loose_indentation(label(unit)))
        lo = target.start if unit.decorated or not target.decorated else target.header
        if target.asynchronous and not unit.asynchronous:
            moved = with_async(moved, unit.header - unit.start)
        kept = list(moved)
        if target.docstring is not None and unit.docstring is None and unit.body > unit.header:
            doc_lo, doc_hi = target.docstring
            if indent_of(kept[unit.body - unit.start]) == indent_of(self.file.lines[doc_lo]):
                at = _header_end(kept, unit.header - unit.start, unit.body - unit.start) + 1
                if kept[at].strip():  # with the blank lines after it, as in the file
                    while doc_hi + 1 < target.end and not self.file.lines[doc_hi + 1].strip():
                        doc_hi += 1
                kept[at:at] = self.file.lines[doc_lo : doc_hi + 1]
        return [Replace(lo, target.end, (*self.kinds_left_out(unit, target), *kept))]


def _adds_to(shown: list[str], now: list[str] | tuple[str, ...]) -> bool:
    """Whether the class header `shown` (decorators and `class` line) has every base, keyword
    and decorator of the header `now` and more: what it leaves out it shows in short."""
    mine, theirs = class_header_parts(shown), class_header_parts(now)
    return mine is not None and theirs is not None and mine > theirs


def _first_body_line(unit: Definition) -> int:
    """The first line of a definition's body, a decorator of its first method included (`ast`
    starts a decorated definition at its `def` line)."""
    return min([unit.body, *(child.start for child in unit.children)])


def _header_end(lines: list[str] | tuple[str, ...], header: int, body: int) -> int:
    """The last line of a definition's header: the last line before its body that is neither
    blank nor a comment (a signature may span lines)."""
    return max(
        i for i in range(header, body) if lines[i].strip() and not lines[i].lstrip().startswith("#")
    )


def with_async(lines: tuple[str, ...], header: int) -> tuple[str, ...]:
    """A definition's `lines` with its `def` line (at `header`) made an `async def` one: a
    block that wrote the file's `async def` as `def` means the same function, and placed as
    written its `await`s would no longer compile ("'await' outside async function", which
    `ast.parse` lets through) and its callers' `await` would get a plain value."""
    indent = indent_of(lines[header])
    line = f"{indent}async {lines[header][len(indent) :]}"
    return (*lines[:header], line, *lines[header + 1 :])


def label(unit: Definition) -> str:
    return f"`{unit.kind} {unit.name}`"


def _filled(lines: list[str] | tuple[str, ...]) -> int:
    return sum(1 for line in lines if line.strip())


def _accessor(decorators: list[str] | tuple[str, ...]) -> str:
    """`property`, `setter` or `deleter` for a property's accessor (`@property`,
    `@name.setter`, `@name.deleter`), else ""."""
    for line in decorators:
        found = _ACCESSOR.match(line)
        if found is not None:
            return found.group(1) or found.group(2)
    return ""


def _overload(decorators: list[str] | tuple[str, ...]) -> bool:
    return any(_OVERLOAD.match(line) for line in decorators)
