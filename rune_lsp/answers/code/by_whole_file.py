"""A Python block that is the whole file: placed over all of it, as one replacement."""

from __future__ import annotations

from collections import Counter

from rune_lsp.answers.code.by_definition import ParsedBlock, partial_class
from rune_lsp.answers.code.by_text import WHOLE_FILE_SHARE
from rune_lsp.answers.code.placeholders import has_placeholder
from rune_lsp.answers.code.python_source import Outline
from rune_lsp.answers.code.spans import FileText, Replace


def whole_file(parsed: ParsedBlock, file: FileText, now: Outline) -> Replace | None:
    """The whole file: the block defines every top-level name the file does, each class whole
    (not `partial_class`), has the file's docstring if it has one and as many other top-level
    statements, repeats most of its lines and leaves nothing out with a placeholder.

    Counting names and statements alone took the imports and one class, shown without a
    method, for the whole file, and the method was deleted; a usage `print` counted for the
    docstring it replaced, which was deleted (reader probe, 7 December 2026)."""
    names = {(d.kind, d.name) for d in parsed.outline.definitions}
    if len(names) < len(parsed.outline.definitions):
        return None  # a name defined twice: "# Original code" and "# Fixed code", say
    if not now.definitions or any((d.kind, d.name) not in names for d in now.definitions):
        return None
    if _docstring(now) and not _docstring(parsed.outline):
        return None
    if _code_statements(parsed.outline) < _code_statements(now):
        return None
    if has_placeholder(parsed.raw):
        return None
    shown = {(d.kind, d.name): d for d in parsed.outline.definitions}
    if any(
        d.kind == "class" and partial_class(shown[(d.kind, d.name)], d, parsed.raw)
        for d in now.definitions
    ):
        return None
    filled = file.filled
    if (
        sum(1 for line in parsed.raw if line.strip()) < len(filled)
        and parsed.raw[-1].strip() != file.lines[filled[-1]].strip()
    ):
        return None  # it stops before the file's end
    repeated = Counter(line.strip() for line in parsed.raw if line.strip())
    if sum((file.counts & repeated).values()) < WHOLE_FILE_SHARE * len(filled):
        return None
    if any(line.strip() and not line.startswith(parsed.base) for line in parsed.raw):
        return None
    lines = tuple(line[len(parsed.base) :] for line in parsed.raw)
    return Replace(
        filled[0], filled[-1], tuple(line.rstrip() if line.strip() else "" for line in lines)
    )


def _docstring(outline: Outline) -> bool:
    return any(statement.docstring for statement in outline.statements)


def _code_statements(outline: Outline) -> int:
    """Top-level statements that are neither definitions nor the docstring."""
    return sum(not statement.docstring for statement in outline.statements)
