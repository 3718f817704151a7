"""Whether a placed Python edit changes only what Python does not run: blank lines, comments,
line breaks inside brackets. Such an edit is marked `FileEdit.layout_only`; while the check
fails the loop treats it as the code sent back unchanged (loop/proposals.runs_unchanged).

The test is exact: the two texts must parse to the same syntax tree (`ast.dump` leaves line
numbers out). It is also cheap on a large file: every line outside the replaced spans is the
file's own, byte for byte, so only the innermost definition holding all of them is compared,
parsed on its own: comparing the two whole files' trees took some 90 ms for a one-function fix
of a 2,600-line module, more than the rest of its reading (docs/performance.md, "The module
sent back, word for word"). A change outside any definition compares the whole file. Anything
that cannot be compared (a text that does not parse, lines less indented than their
definition) is not layout only: the edit then stays an edit, as before.
"""

from __future__ import annotations

import ast

from rune_lsp.answers.code.python_source import Definition
from rune_lsp.answers.code.spans import FileText, Replace
from rune_lsp.python_parse import parse


def layout_only(file: FileText, replaces: list[Replace], after: str) -> bool:
    """Whether `after` (`file` with `replaces` made, in file order) runs as `file` does."""
    if not replaces or file.outline is None:
        return False
    lo, hi = replaces[0].lo, max(r.hi for r in replaces)
    around = _innermost(file.outline.definitions, lo, hi)
    if around is None:
        return _same_tree(file.text, after)
    before = list(file.lines[around.start : around.end + 1])
    made = _spliced(file, replaces, around.start, around.end)
    indent = _indent(file.lines[around.header])
    shown = (_dedented(before, indent), _dedented(made, indent))
    if shown[0] is None or shown[1] is None:
        return False
    return _same_tree(shown[0], shown[1])


def _innermost(definitions: tuple[Definition, ...], lo: int, hi: int) -> Definition | None:
    """The innermost definition whose lines hold lines `lo..hi` (an insertion, `hi == lo - 1`,
    inside it too)."""
    for definition in definitions:
        if definition.start <= lo <= definition.end and hi <= definition.end:
            return _innermost(definition.children, lo, hi) or definition
    return None


def _spliced(file: FileText, replaces: list[Replace], start: int, end: int) -> list[str]:
    """Lines `start..end` of `file` with `replaces` (all inside them) made."""
    made: list[str] = []
    at = start
    for replace in replaces:
        made.extend(file.lines[at : replace.lo])
        made.extend(replace.lines)
        at = replace.hi + 1
    made.extend(file.lines[at : end + 1])
    return made


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _dedented(lines: list[str], indent: str) -> str | None:
    """`lines` without the definition's indent, or None when a line with code has less (a
    string's continuation line: taking it out of context could read it otherwise)."""
    out: list[str] = []
    for line in lines:
        if line.startswith(indent):
            out.append(line[len(indent) :])
        elif line.strip():
            return None
        else:
            out.append("")
    return "\n".join(out) + "\n"


def _same_tree(before: str, after: str) -> bool:
    try:
        return ast.dump(parse(before)) == ast.dump(parse(after))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
