"""A Python block's top-level statements that are no definitions, placed by what they bind.

Asked for the whole function it changes, a model shows the module's imports and constants
above it, and the fix may lie there: Qwen2.5-Coder 1.5B changed `_SEPARATORS = re.compile(...)`
above an unchanged `slugify` (bench/effect corpus_multi 02_slugify, 5 December 2026); placing
only the definitions, the reader read the block as the code sent back and told the model it
changed nothing. So, beside the definitions:

- a statement the file has word for word is context: nothing to place;
- an assignment `X = ...` (or `X: T = ...`) changed, where the file assigns `X` once at its top
  level, replaces that statement;
- an import the file lacks goes after the file's last top-level import (with none, after its
  docstring, else at its top); one the file has under `if TYPE_CHECKING:`, whose names the
  block reads in annotations only, is context: at the top it would run on import, and may
  import in a circle;
- an assignment of a name the file does not bind, which a definition of the block reads
  (`_NUMBER = re.compile(...)` above the `parse` that now uses it), goes after the file's
  statements above its first definition: left out, the function was placed without the name
  it needs, a diff that looked whole and raised NameError;
- anything else (a call showing how to use the code, an `if __name__` block, a name the file
  does not assign and the block's code does not read) is no code of the file and is not
  placed, as before; and a changed assignment under a column-0 comment that opens a usage
  example (`# Example usage`, `# Test the function`, a comment the file does not have), up to
  the block's next definition, is the example's data: the demo's `numbers = [1, 2, 3]`
  replaced the script's own (reader probe, 7 December 2026). Imports and new constants
  under it are placed as anywhere: left out, the code reading them raised NameError.

A block of only such assignments and imports (the constant alone) is placed the same way when
every name it assigns is the file's module-level one, assigned in no function: a line of a
function body shown alone may assign a name too (`total = 0`), and goes to the text tiers.
Only a block written at column 0: indented, its statements are a class's or a function's.
"""

from __future__ import annotations

import re
from collections import Counter

from rune_lsp.answers.code.by_definition import ParsedBlock
from rune_lsp.answers.code.python_source import (
    Outline,
    Statement,
    imports_for_types_only,
    names_read,
)
from rune_lsp.answers.code.spans import FileText, Replace

#: A comment that opens a usage example, the whole comment: `# Example usage`, `# Test the
#: function`, `# Usage:` (not `# Example: "a=1" -> {...}` or `# Tests for the parser`).
_EXAMPLE = re.compile(
    r"#\s*(?:(?:an?\s+)?example(?:\s+usage)?(?:\s+of\s+\w+(?:\s+\w+)?)?|(?:sample\s+)?usage"
    r"|test(?:ing)?(?:\s+(?:it|the\s+\w+))?|test\s+cases?|driver\s+code|demo)\s*:?\s*$",
    re.IGNORECASE,
)


def by_statements(parsed: ParsedBlock, file: FileText, now: Outline) -> list[Replace]:
    """The replacements the block's top-level statements make in a file outlined `now`
    (imports inserted as one stretch, new constants as another); those that are no code of
    the file are left out."""
    if parsed.base:
        return []  # indented: a class's attributes or a function's lines, not the module's
    return _placed(parsed, file, now, _assigned_once(now))


def only_statements(parsed: ParsedBlock, file: FileText, now: Outline) -> list[Replace] | None:
    """A block of only assignments and imports that changes one, each assignment of a name
    the file assigns once at its top level and in no function: its replacements; None for
    any other block."""
    if not binds_only(parsed):
        return None
    have = {statement.text for statement in now.statements}
    if all(statement.text in have for statement in parsed.outline.statements):
        return None  # the code as it is: what else differs (a comment) is the text tiers'
    once = _assigned_once(now)
    for statement in parsed.outline.statements:
        name = statement.assigns
        if name is not None and (name not in once or name in now.nested_assigned):
            return None
    return _placed(parsed, file, now, once)


def _placed(
    parsed: ParsedBlock, file: FileText, now: Outline, once: dict[str, Statement]
) -> list[Replace]:
    have = {statement.text for statement in now.statements}
    for_types: frozenset[int] | None = None  # asked only of a block with a new import
    replaces: list[Replace] = []
    imports: list[str] = []
    new: list[Statement] = []
    examples = _examples(parsed, file)
    for statement in parsed.outline.statements:
        if statement.text in have:
            continue
        lines = _lines(parsed, statement)
        there = once.get(statement.assigns or "")
        if there is not None:
            if statement.start not in examples:
                replaces.append(Replace(there.start, there.end, lines))
        elif statement.imports:
            if for_types is None:
                for_types = imports_for_types_only(parsed.outline, now)
            if statement.start not in for_types:
                imports.extend(lines)
        elif statement.assigns is not None:
            new.append(statement)
    constants = _new_constants(parsed, new, now)
    inserts: dict[int, list[str]] = {}
    if imports:
        inserts.setdefault(_import_point(now), []).extend(imports)
    if constants:
        written = [line for statement in constants for line in _lines(parsed, statement)]
        at = _constant_point(now)
        after = _after_names_read(now, written)
        if after is not None and after > at:
            at, written = after, ["", "", *written]  # two blank lines below the definition
        elif at == 0 and now.definitions:
            written.extend(("", ""))  # the file starts with a definition: keep it apart
        inserts.setdefault(at, []).extend(written)
    replaces.extend(Replace(at, at - 1, tuple(inserted)) for at, inserted in inserts.items())
    return replaces


def _examples(parsed: ParsedBlock, file: FileText) -> frozenset[int]:
    """The first lines of the block's statements that stand under a comment opening a usage
    example (one the file does not have: there it heads the file's own lines), with no
    definition of the block between them."""
    comments = [
        (i, 0)
        for i, line in enumerate(parsed.raw)
        if _EXAMPLE.match(line) and line.strip() not in file.where
    ]
    if not comments:
        return frozenset()
    definitions = [(d.start, 1) for d in parsed.outline.definitions]
    statements = [(statement.start, 2) for statement in parsed.outline.statements]
    under, found = False, set()
    for line, kind in sorted([*comments, *definitions, *statements]):
        if kind == 2 and under:
            found.add(line)
        elif kind < 2:
            under = kind == 0
    return frozenset(found)


def binds_only(parsed: ParsedBlock) -> bool:
    """The block defines nothing and holds only assignments of one name and imports."""
    statements = parsed.outline.statements
    return (
        not parsed.base
        and not parsed.outline.definitions
        and bool(statements)
        and all(s.imports or s.assigns is not None for s in statements)
    )


def _assigned_once(now: Outline) -> dict[str, Statement]:
    """The file's top-level assignments of a name it assigns at its top level only once."""
    counts = Counter(s.assigns for s in now.statements if s.assigns is not None)
    return {
        s.assigns: s for s in now.statements if s.assigns is not None and counts[s.assigns] == 1
    }


def _lines(parsed: ParsedBlock, statement: Statement) -> tuple[str, ...]:
    base = parsed.base
    raw = parsed.raw[statement.start : statement.end + 1]
    return tuple(line[len(base) :] if line.startswith(base) else line for line in raw)


def _new_constants(
    parsed: ParsedBlock, assignments: list[Statement], now: Outline
) -> list[Statement]:
    """The `assignments` that bind a name the file outlined `now` does not and the block's
    definitions read (`Outline.reads`, walked only when there is such an assignment: most
    blocks have none)."""
    if not assignments or not parsed.outline.definitions:
        return []
    read = frozenset().union(*parsed.outline.reads.values())
    return [
        statement
        for statement in assignments
        if statement.assigns in read and statement.assigns not in now.top_level_names
    ]


def _after_names_read(now: Outline, constants: list[str]) -> int | None:
    """The line after the last of the file's top-level definitions and assignments the new
    constants (their lines) read, or None: `HANDLERS = {"add": handle_add}` put above
    `def handle_add` raised NameError on import (reader probe, 7 December 2026), and so would
    `_WORDS = re.compile(... % LIMIT)` above a `LIMIT = 10` below the functions. Where that
    puts a constant below code that reads it on import, the reader refuses the result
    (`import_time.py`)."""
    read = names_read(constants)
    ends = [d.end for d in now.definitions if d.name in read]
    ends += [s.end for s in now.statements if s.assigns in read]
    return max(ends) + 1 if ends else None


def _constant_point(now: Outline) -> int:
    """The line a new module constant goes before: after the last top-level statement above
    the file's first definition (its imports and constants), else its first line."""
    first = now.definitions[0].start if now.definitions else None
    above = [s.end for s in now.statements if first is None or s.end < first]
    return max(above) + 1 if above else 0


def _import_point(now: Outline) -> int:
    """The line an import the file lacks goes before: after its last top-level import, else
    after its docstring, else its first line."""
    imports = [s.end for s in now.statements if s.imports]
    if imports:
        return max(imports) + 1
    first = now.statements[0] if now.statements else None
    if first is not None and first.docstring:
        return first.end + 1
    return 0
