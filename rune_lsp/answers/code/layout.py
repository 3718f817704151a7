"""Whether a placed Python edit changes only what Python does not run: blank lines, comments,
line breaks inside brackets. Such an edit is marked `FileEdit.layout_only`; while the check
fails the loop treats it as the code sent back unchanged (loop/proposals.runs_unchanged).

The test is exact: the two texts must parse to the same syntax tree (`ast.dump` leaves line
numbers out). It is also cheap on a large file: every line outside the replaced spans is the
file's own, byte for byte, so only the innermost definition holding all of them is compared,
parsed on its own: comparing the two whole files' trees took some 90 ms for a one-function fix
of a 2,600-line module, more than the rest of its reading (docs/performance.md, "The module
sent back, word for word"). A change outside any one definition compares only the top-level
statements it touches, each stretch parsed on its own (the whole file compared was a third of
reading 400 numbered lines, `bench/reading.py`). A stretch starts where Python's tokenizer
starts afresh: at a statement, never inside one sharing its line with another (`a = 1; b =
2`), nor on a line a backslash above continues; so when every stretch's tree is the same, the
file's is. Anything that cannot be compared (a text or a stretch that does not parse alone,
one ending in a backslash say; lines less indented than their definition; a coding cookie
added or changed) is not layout only: the edit then stays an edit, as before.
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


def layout_only(file: FileText, replaces: list[Replace], after: FileText) -> bool:
    """Whether `after` (`file` with `replaces` made, in file order) runs as `file` does."""
    if not replaces or file.outline is None or _touches_encoding(file, after):
        return False
    # The lines as written, not as the block gave them: splicing puts the file's own trailing
    # spaces back, inside a triple-quoted string too (review of 7 December 2026).
    made = after.lines
    lo, hi = replaces[0].lo, max(r.hi for r in replaces)
    around = _innermost(file.outline.definitions, lo, hi)
    if around is None:
        return all(
            _same_tree("\n".join(file.lines[start : end + 1]), "\n".join(made[first:last]))
            for start, end, first, last in _stretches(file, replaces, file.outline)
        )
    before = file.lines[around.start : around.end + 1]
    spliced = made[around.start : around.end + 1 + _growth(replaces)]
    if file.lines[around.header][:1] in (" ", "\t"):
        # Nested: parsed as the body of `if 1:`, every line as it is (a line of a string
        # keeps its spaces, and a line less indented than the block does not parse).
        return _same_tree("if 1:\n" + "\n".join(before), "if 1:\n" + "\n".join(spliced))
    return _same_tree("\n".join(before), "\n".join(spliced))


def _touches_encoding(file: FileText, after: FileText) -> bool:
    """A coding cookie (PEP 263: a comment naming `coding:` in the first two lines) added,
    removed or changed: it decides how the file's bytes read, which the syntax tree of the
    text cannot tell."""
    first, made = file.lines[:2], after.lines[:2]
    cookies = [line for line in (*first, *made) if _COOKIE.match(line)]
    return bool(cookies) and made != first


def _innermost(definitions: tuple[Definition, ...], lo: int, hi: int) -> Definition | None:
    """The innermost definition whose lines hold lines `lo..hi` (an insertion, `hi == lo - 1`,
    inside it too)."""
    for definition in definitions:
        if definition.start <= lo <= definition.end and hi <= definition.end:
            return _innermost(definition.children, lo, hi) or definition
    return None


def _top_level_spans(outline: Outline) -> list[tuple[int, int]]:
    """The (first, last) lines of the top-level statements, definitions with their decorators,
    in file order; statements sharing a line (`a = '''...'''; b = 1`) are one span."""
    spans = [(d.start, d.end) for d in outline.definitions]
    spans.extend((statement.start, statement.end) for statement in outline.statements)
    joined: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if joined and start <= joined[-1][1]:
            joined[-1] = (joined[-1][0], max(joined[-1][1], end))
        else:
            joined.append((start, end))
    return joined


def _stretches(
    file: FileText, replaces: list[Replace], outline: Outline
) -> list[tuple[int, int, int, int]]:
    """For `replaces` (in file order) the stretches of whole top-level statements they lie in,
    each as its (first, last) lines in `file` and the [first, last) lines it became in the
    result. A replace widens to the statements holding its first and last lines (an
    insertion between two statements stays empty on the file's side), and back over a line
    ended by a backslash, which the stretch's first line continues; replaces whose stretches
    overlap share one. `outline` is `file`'s."""
    spans = _top_level_spans(outline)
    starts = [start for start, _ in spans]
    merged: list[tuple[int, int, list[Replace]]] = []
    for replace in replaces:
        start = _holding(spans, starts, replace.lo)[0]
        while start > 0 and file.lines[start - 1].endswith("\\"):
            start = _holding(spans, starts, start - 1)[0]
        end = max(_holding(spans, starts, replace.hi)[1], start - 1)
        if merged and start <= merged[-1][1]:
            first, last, group = merged.pop()
            merged.append((first, max(last, end), [*group, replace]))
        else:
            merged.append((start, end, [replace]))
    stretches: list[tuple[int, int, int, int]] = []
    shift = 0  # how many lines the result has more than the file before this stretch
    for start, end, group in merged:
        grow = _growth(group)
        stretches.append((start, end, start + shift, end + 1 + shift + grow))
        shift += grow
    return stretches


def _holding(spans: list[tuple[int, int]], starts: list[int], line: int) -> tuple[int, int]:
    """The span holding `line`, else (`line`, `line`): a line between statements."""
    at = bisect_right(starts, line) - 1
    if at >= 0 and spans[at][0] <= line <= spans[at][1]:
        return spans[at]
    return line, line


def _growth(replaces: list[Replace]) -> int:
    """How many lines more `replaces` make (one result line per line of a replacement)."""
    return sum(r.growth for r in replaces)


def _same_tree(before: str, after: str) -> bool:
    try:
        return ast.dump(parse(before)) == ast.dump(parse(after))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
