"""One block placed in one file: the tiers in order, each exact or a reason.

For a Python file that parses: the block already there (nothing to change), else the whole
file, else its definitions (`by_definition`), else, for a block that defines nothing, its anchor
lines. For a Python file that does not parse: the block already there, the whole file by its
first and last lines, its definitions by their headers when the result then parses, or its
anchor lines. For another language (no parser here), only what the text makes unambiguous: the
block already there, the whole file by its first and last lines, or its anchor lines. A block
that placed nowhere but copied the excerpt's line numbers goes where they say when they agree
with the text.
"""

from __future__ import annotations

from dataclasses import dataclass

from rune_lsp.answers.code import by_text, prompts
from rune_lsp.answers.code.by_definition import by_definitions, parse_block
from rune_lsp.answers.code.by_header import by_headers
from rune_lsp.answers.code.by_statement import binds_only, by_statements, only_statements
from rune_lsp.answers.code.by_text import Miss
from rune_lsp.answers.code.by_whole_file import whole_file
from rune_lsp.answers.code.placeholders import comment_markers, is_placeholder
from rune_lsp.answers.code.python_source import opens_definition
from rune_lsp.answers.code.spans import FileText, Replace
from rune_lsp.lines import copied_numbers, without_copied_numbers


@dataclass(frozen=True)
class Block:
    """A block's lines without trailing spaces, copied line numbers or blank edges."""

    lines: list[str]
    numbers: list[int] | None  # the line numbers it copied, one per non-blank line

    @classmethod
    def of(cls, raw: tuple[str, ...]) -> Block:
        body = [line.rstrip() for line in raw]
        numbers = copied_numbers(body)
        body = without_copied_numbers(body) or body
        while body and not body[0].strip():
            body.pop(0)
        while body and not body[-1].strip():
            body.pop()
        return cls(body, numbers)


def place(block: Block, file: FileText, python: bool, shown: str) -> list[Replace] | Miss:
    """Where `block` goes in `file` (`python`: the file is Python)."""
    lines = block.lines
    there = by_text.quoted(lines, file)
    if there is not None:
        return [there]
    placed = _by_structure(lines, file, python, shown)
    # The numbers place line for line: a placeholder among them replaced the line it numbers
    # (a loop's header), as the other text tiers would have.
    if (
        isinstance(placed, Miss)
        and not placed.ambiguous
        and block.numbers is not None
        and not _stands_for_code(lines, file, shown)
    ):
        return by_text.by_numbers(lines, block.numbers, file, shown)
    return placed


def _by_structure(
    lines: list[str], file: FileText, python: bool, shown: str
) -> list[Replace] | Miss:
    # Parsed only when it may define something, or bind a module constant (at column 0): most
    # blocks that are neither are fragments of a function, which would fail to parse twice.
    parsed = parse_block(lines) if python and (_defines(lines) or _at_top(lines)) else None
    if parsed is not None and parsed.outline.definitions:
        now = file.outline  # parsed only here: most blocks that define nothing need none
        if now is not None:
            found = whole_file(parsed, file, now)
            if found is not None:
                return [found]
            placed = by_definitions(parsed, file, now, shown)
            return placed if isinstance(placed, Miss) else placed + by_statements(parsed, file, now)
    elif parsed is not None and binds_only(parsed):
        now = file.outline
        constants = only_statements(parsed, file, now) if now is not None else None
        if constants is not None:
            return constants
    if _stands_for_code(lines, file, shown):
        return Miss(prompts.placeholder_lines(shown))
    whole = by_text.whole_text(lines, file, shown)
    if whole is not None:
        return whole if isinstance(whole, Miss) else [whole]
    if parsed is not None and parsed.outline.definitions:
        return by_headers(parsed, file, shown)
    return by_text.anchors(lines, file, shown, python)


def _stands_for_code(lines: list[str], file: FileText, shown: str) -> bool:
    """Whether a block the text tiers would place holds a comment standing for code it left
    out (`// ... unchanged`, `# rest of the code`) that the file does not have: placed by its
    first and last lines, it replaced the code it stood for (review, 7 December 2026)."""
    markers = comment_markers(shown)
    return any(is_placeholder(line, markers) and line.strip() not in file.where for line in lines)


def _defines(lines: list[str]) -> bool:
    """Whether a line may start a definition (or decorate one)."""
    return any(opens_definition(line) or line.lstrip().startswith("@") for line in lines)


def _at_top(lines: list[str]) -> bool:
    """Whether the block starts at column 0, where a module's constants and imports are."""
    return bool(lines) and not lines[0][:1].isspace()
