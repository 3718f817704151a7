"""Python blocks for a file that does not parse: each definition of the block placed over the
lines from the file's one header of that name to the end of its indentation (no `ast` of the
file to ask, so `by_definition`'s exact extents are not known)."""

from __future__ import annotations

import re

from rune_lsp.answers.code import prompts
from rune_lsp.answers.code.by_definition import ParsedBlock, label, with_async
from rune_lsp.answers.code.by_text import Miss
from rune_lsp.answers.code.placeholders import has_placeholder
from rune_lsp.answers.code.python_source import parse_error
from rune_lsp.answers.code.spans import FileText, Replace, disjoint, indent_of, shifted


def by_headers(parsed: ParsedBlock, file: FileText, shown: str) -> list[Replace] | Miss:
    """For a Python file that does not parse (no `ast` of it to ask): each definition of the
    block over the lines from the file's one header of that name to the end of its indentation,
    taken only when the whole file then parses: an extent guessed wrong leaves a broken tail."""
    replaces: list[Replace] = []
    for unit in parsed.outline.definitions:
        header = re.compile(rf"[ \t]*(async[ \t]+)?{unit.kind}[ \t]+{re.escape(unit.name)}\b")
        found = [i for i, line in enumerate(file.lines) if header.match(line)]
        if len(found) != 1:
            shown_as = label(unit)
            if found:
                numbers = [i + 1 for i in found]
                return Miss(prompts.defined_more_than_once(shown_as, shown, numbers), True)
            return Miss(prompts.not_defined(shown_as, shown))
        at = found[0]
        if has_placeholder(parsed.raw[unit.start : unit.end + 1]):
            return Miss(prompts.placeholder(label(unit)))
        lines = parsed.raw[unit.start : unit.end + 1]
        moved = shifted(
            lines, parsed.indent(unit), indent_of(file.lines[at]), unit.header + 1 - unit.start
        )
        if moved is None:
            return Miss(prompts.loose_indentation(label(unit)))
        if file.lines[at].lstrip().startswith("async") and not unit.asynchronous:
            moved = with_async(moved, unit.header - unit.start)
        lo = at if not unit.decorated else _decorators_above(file, at)
        replaces.append(Replace(lo, _indented_end(file, at), moved))
    merged = disjoint(replaces)
    if merged is None:
        return Miss(prompts.blocks_disagree(shown), True)
    error = parse_error("\n".join(FileText.of(file.spliced(merged)).lines))
    return merged if error is None else Miss(prompts.would_not_parse(shown, error))


def _indented_end(file: FileText, header: int) -> int:
    width = len(indent_of(file.lines[header]))
    end = header
    for index in range(header + 1, len(file)):
        line = file.lines[index]
        if line.strip():
            if len(indent_of(line)) <= width and line.strip()[0] not in ")]}":
                break
            end = index
    return end


def _decorators_above(file: FileText, header: int) -> int:
    start = header
    while start > 0 and file.lines[start - 1].strip().startswith("@"):
        start -= 1
    return start
