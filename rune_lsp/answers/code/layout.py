"""Whether a placed Python edit changes only what Python does not run: blank lines, comments,
line breaks inside brackets. Such an edit is marked `FileEdit.layout_only`; while the check
fails the loop treats it as the code sent back unchanged (loop/proposals.runs_unchanged).

The test is exact: the two texts must parse to the same syntax tree (`ast.dump` leaves line
numbers out). It is also cheap on a large file: every line outside the replaced spans is the
file's own, byte for byte, so only the innermost definition holding all of them is compared,
parsed on its own: comparing the two whole files' trees took some 90 ms for a one-function fix
of a 2,600-line module, more than the rest of its reading (docs/performance.md, "The module
sent back, word for word"). A change outside any one definition compares only the top-level
statements it touches, each stretch parsed on its own: a stretch of whole statements starts
and ends where Python's tokenizer starts afresh, so the file's tree is the same when each
stretch's is (the whole file compared took a tenth of the reading of 400 numbered lines,
`bench/reading.py`). Anything
that cannot be compared (a text that does not parse, lines less indented than their
definition, a coding cookie added or changed) is not layout only:
the edit then stays an edit, as before.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_right

from rune_lsp.answers.code.python_source import Definition, Outline
from rune_lsp.answers.code.spans import FileText, Replace
from rune_lsp.python_parse import parse

#: PEP 263's pattern of an encoding declaration.
_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")


def layout_only(file: FileText, replaces: list[Replace], after: str) -> bool:
    """Whether `after` (`file` with `replaces` made, in file order) runs as `file` does."""
    if not replaces or file.outline is None or _touches_encoding(file, after):
        return False
    lo, hi = replaces[0].lo, max(r.hi for r in replaces)
    around = _innermost(file.outline.definitions, lo, hi)
    if around is None:
        return all(
            _same_tree("\n".join(file.lines[start : end + 1]), "\n".join(made))
            for start, end, made in _stretches(file, replaces, _top_level_spans(file.outline))
        )
    before = file.lines[around.start : around.end + 1]
    made = _spliced(file, replaces, around.start, around.end)
    if file.lines[around.header][:1] in (" ", "\t"):
        # Nested: parsed as the body of `if 1:`, every line as it is (a line of a string
        # keeps its spaces, and a line less indented than the block does not parse).
        return _same_tree("if 1:\n" + "\n".join(before), "if 1:\n" + "\n".join(made))
    return _same_tree("\n".join(before), "\n".join(made))


def _touches_encoding(file: FileText, after: str) -> bool:
    """A coding cookie (PEP 263: a comment naming `coding:` in the first two lines) added,
    removed or changed: it decides how the file's bytes read, which the syntax tree of the
    text cannot tell."""
    first, made = file.lines[:2], after.split("\n", 2)[:2]
    cookies = [line for line in (*first, *made) if _COOKIE.match(line)]
    return bool(cookies) and [line.rstrip("\r") for line in made] != list(first)


def _innermost(definitions: tuple[Definition, ...], lo: int, hi: int) -> Definition | None:
    """The innermost definition whose lines hold lines `lo..hi` (an insertion, `hi == lo - 1`,
    inside it too)."""
    for definition in definitions:
        if definition.start <= lo <= definition.end and hi <= definition.end:
            return _innermost(definition.children, lo, hi) or definition
    return None


def _top_level_spans(outline: Outline) -> list[tuple[int, int]]:
    """The (first, last) lines of every top-level statement, definitions with their
    decorators, in file order."""
    spans = [(d.start, d.end) for d in outline.definitions]
    spans.extend((statement.start, statement.end) for statement in outline.statements)
    return sorted(spans)


def _stretches(
    file: FileText, replaces: list[Replace], spans: list[tuple[int, int]]
) -> list[tuple[int, int, list[str]]]:
    """For `replaces` (in file order) the stretches of whole top-level statements they lie in:
    (first, last) lines of `file` and those lines with the replaces made. A replace widens to
    the statements holding its first and last lines (an insertion between two statements
    stays empty on the file's side); replaces whose stretches overlap share one."""
    starts = [start for start, _ in spans]
    merged: list[tuple[int, int, list[Replace]]] = []
    for replace in replaces:
        start = _holding(spans, starts, replace.lo, replace.lo)[0]
        end = _holding(spans, starts, replace.hi, replace.hi)[1]
        end = max(end, start - 1)
        if merged and start <= merged[-1][1]:
            first, last, group = merged.pop()
            merged.append((first, max(last, end), [*group, replace]))
        else:
            merged.append((start, end, [replace]))
    return [(start, end, _spliced(file, group, start, end)) for start, end, group in merged]


def _holding(
    spans: list[tuple[int, int]], starts: list[int], line: int, default: int
) -> tuple[int, int]:
    """The span holding `line`, else (`default`, `default`): a line between statements."""
    at = bisect_right(starts, line) - 1
    if at >= 0 and spans[at][0] <= line <= spans[at][1]:
        return spans[at]
    return default, default


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


def _same_tree(before: str, after: str) -> bool:
    try:
        return ast.dump(parse(before)) == ast.dump(parse(after))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
