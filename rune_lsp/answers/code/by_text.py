"""Placements a block's text alone makes unambiguous, for any language: the block is code the
file already has, the whole file, the lines between two anchor lines that each occur once, or
the lines its copied line numbers name when those lines read like it.

Lines are compared stripped; likeness is counted over lines or tokens with `Counter`s, so each
tier is linear in the block's and the file's size.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from rune_lsp.answers.code import prompts
from rune_lsp.answers.code.python_source import opens_definition
from rune_lsp.answers.code.spans import FileText, Replace, indent_steps
from rune_lsp.linediff import same_lines

#: Whole-file tier: the share of the file's non-blank lines the block must repeat.
WHOLE_FILE_SHARE = 0.6
#: Anchor tier: how alike the lines between the anchors and the block must be (0..1).
ANCHOR_LIKENESS = 0.5
#: Numbers tier: how far around the numbered lines a better fit is looked for.
NUMBERS_WINDOW = 3
_TOKEN = re.compile(r"\w+|[^\w\s]+")


@dataclass(frozen=True)
class Miss:
    """Why a block placed nowhere; `ambiguous` when it fits more than one place."""

    reason: str
    ambiguous: bool = False


def quoted(block: list[str], file: FileText) -> Replace | None:
    """Where `block` is the file's current code, moved as one piece: nothing to change there."""
    hay, starts = file.joined
    needle = "\n" + "\n".join(line.strip() for line in block) + "\n"
    # Moved as one piece: each line as much deeper than the block's line before it (the last
    # non-blank one) as in the file. Compared as tuples, at C speed: checked line by line at
    # each place the text occurs, a file of alike lines cost seconds (reader probe, 7 December
    # 2026).
    at = hay.find(needle)
    if at == -1:
        return None  # most blocks: asked before any other tier
    steps = indent_steps(block)
    first = next((i for i, line in enumerate(block) if line.strip()), len(block))
    while at != -1:
        lo = bisect_right(starts, at) - 1
        hi = lo + len(block) - 1
        if file.indent_steps[lo + first + 1 : hi + 1] == steps[first + 1 :]:
            return Replace(lo, hi, file.lines[lo : hi + 1])
        at = hay.find(needle, at + 1)
    return None


def whole_text(block: list[str], file: FileText, shown: str) -> Replace | Miss | None:
    """The whole file: the block starts and ends with the file's first and last non-blank lines
    and repeats most of its lines; a Miss when it leaves a run of the file's lines out."""
    filled = file.filled
    if not filled or len(block) < 2:
        return None
    lo, hi = filled[0], filled[-1]
    if (block[0].strip(), block[-1].strip()) != (file.stripped[lo], file.stripped[hi]):
        return None
    repeated = Counter(line.strip() for line in block if line.strip())
    if sum((repeated & file.counts).values()) < WHOLE_FILE_SHARE * len(filled):
        return None
    moved = _moved(block, _width(file.lines[lo]) - _width(block[0]))
    left_out = _left_out(file.lines[lo : hi + 1], block if moved is None else moved)
    if left_out is not None:
        return Miss(prompts.leaves_out(lo + left_out[0] + 1, lo + left_out[1] + 1, shown))
    return None if moved is None else Replace(lo, hi, moved)


#: The fewest lines of one unit of a file (a line opening it, the deeper lines under it, the
#: line closing it) that a whole-file block may not drop: a function of three lines.
LEFT_OUT = 3


def _left_out(now: Sequence[str], block: Sequence[str]) -> tuple[int, int] | None:
    """The first and last line (indexes) of the first unit of `now` that `block` drops, of
    LEFT_OUT lines or more, opening shallower than anything the block puts in its place: a
    whole-file answer that leaves a function out (no parser here tells a function from a line)
    deleted it (review, 7 December 2026). A fix that rewrites a body into fewer lines stays as
    deep as they were, and one that rewrites a function as one line puts a line as shallow.
    Which of two alike `}` lines pairs with the block's is the alignment's choice, so the
    dropped function may share its stretch with a fixed line above it, and its own `}` may be
    the line after the stretch. Depths are compared as levels (the rank of a line's indent
    among the text's own), since a block may indent with 4 spaces a file that uses tabs."""
    stripped = [line.strip() for line in now]
    level_now, level_block = _levels(now), _levels(block)
    pairs = [(-1, -1), *same_lines(stripped, [line.strip() for line in block])]
    for (i, j), (next_i, next_j) in pairwise([*pairs, (len(now), len(block))]):
        dropped = [k for k in range(i + 1, next_i) if stripped[k]]
        put = [level_block[k] for k in range(j + 1, next_j) if block[k].strip()]
        floor = min(put, default=len(now))
        for at, start in enumerate(dropped):
            if level_now[start] < floor and stripped[start][0] not in ")]}":
                unit = _unit(now, dropped[at:], next_i)
                if unit is not None:
                    return unit
    return None


def _unit(now: Sequence[str], dropped: Sequence[int], after: int) -> tuple[int, int] | None:
    """The unit opening at `dropped[0]` among the dropped lines `dropped` (a stretch that ends
    before line `after`): that line, the deeper lines under it, and a closing line as deep
    (the stretch's, else the line after it); its first and last line when they are LEFT_OUT
    lines or more."""
    start = dropped[0]
    width = _width(now[start])
    count, end = 1, start
    for k in dropped[1:]:
        if _width(now[k]) <= width:
            if _closes(now[k], width):
                count, end = count + 1, k
            break
        count, end = count + 1, k
    else:
        if after < len(now) and _closes(now[after], width):
            count, end = count + 1, after
    return (start, end) if count >= LEFT_OUT else None


def _closes(line: str, width: int) -> bool:
    return line.strip()[:1] in (")", "]", "}") and _width(line) == width


def _levels(lines: Sequence[str]) -> list[int]:
    """Each line's depth as the rank of its indent's width among the widths of `lines`' non-blank
    lines (a blank line: 0)."""
    widths = sorted({_width(line) for line in lines if line.strip()})
    rank = {width: level for level, width in enumerate(widths)}
    return [rank[_width(line)] if line.strip() else 0 for line in lines]


def anchors(block: list[str], file: FileText, shown: str, python: bool) -> list[Replace] | Miss:
    """The lines from the file's one occurrence of the block's first line to its one occurrence
    of the block's last line, when those between read alike; the block moves as one piece."""
    if len(block) < 2:
        return Miss(prompts.one_line(shown))
    first, last = block[0].strip(), block[-1].strip()
    firsts = file.where.get(first, [])
    lasts = file.where.get(last, [])
    if len(firsts) > 1 or len(lasts) > 1:
        return Miss(prompts.anchors_repeat(shown), ambiguous=True)
    if not firsts or not lasts or lasts[0] < firsts[0]:
        if python and all(line.lstrip().startswith("#") for line in block if line.strip()):
            # Two comments describing a change (recorded: tests/answers/cases/
            # rec-1.5b-tokenizer-blind): the model must hear its block held no code.
            return Miss(prompts.comments_only(shown))
        return Miss(prompts.anchors_missing(shown))
    lo, hi = firsts[0], lasts[0]
    if not _alike(list(file.lines[lo : hi + 1]), block) or (
        python and _drops_a_header(list(file.stripped[lo : hi + 1]), block)
    ):
        return Miss(prompts.anchors_unlike(lo + 1, hi + 1, shown))
    move = _width(file.lines[lo]) - _width(block[0])
    if move and python and _loose_lines(block):
        return Miss(prompts.anchors_shifted(shown))
    moved = _moved(block, move)
    if moved is None or _width(moved[-1]) != _width(file.lines[hi]):
        return Miss(prompts.anchors_shifted(shown))
    return [Replace(lo, hi, moved)]


def by_numbers(
    block: list[str], numbers: list[int], file: FileText, shown: str
) -> list[Replace] | Miss:
    """The lines the block numbers (Qwen2.5-Coder 1.5B answered a failing test with
    "```\\n    8 |         self.count += 1\\n```", bench/effect task 31_counter), when it
    numbers each of its lines consecutively within the file, each keeps the indentation of the
    line it numbers, and those lines read more like the block than the lines a few above or
    below: a miscounted number is refused, not followed (and so is a number among lines that
    read alike: the text cannot confirm it)."""
    lo = numbers[0] - 1
    hi = lo + len(block) - 1
    if len(numbers) != len(block) or numbers != list(range(lo + 1, hi + 2)) or lo < 0:
        return Miss(prompts.numbers_disagree(shown))
    if hi >= len(file):
        return Miss(prompts.numbers_disagree(shown))
    if any(_width(b) != _width(f) for b, f in zip(block, file.lines[lo : hi + 1], strict=True)):
        return Miss(prompts.numbers_disagree(shown))
    tokens = [_tokens(line) for line in block]
    here = _token_likeness(tokens, file, lo)
    others = [
        _token_likeness(tokens, file, lo + offset)
        for offset in range(-NUMBERS_WINDOW, NUMBERS_WINDOW + 1)
        if offset and lo + offset >= 0 and lo + offset + len(block) <= len(file)
    ]
    if here < ANCHOR_LIKENESS or any(other >= here for other in others):
        return Miss(prompts.numbers_disagree(shown))
    return [Replace(lo, hi, tuple(block))]


def _loose_lines(block: list[str]) -> bool:
    """Whether some lines of a Python block may sit at a depth of their own, so that moving the
    block as one piece could move them wrongly: a multi-line string's lines, or a comment or a
    closing bracket as shallow as the block's shallowest line (a column-0 comment inside a
    function, the `):` of a signature)."""
    if any('"""' in line or "'''" in line for line in block):
        return True
    shallowest = min(_width(line) for line in block if line.strip())
    return any(
        line.lstrip()[:1] in ("#", ")", "]", "}") and _width(line) == shallowest
        for line in block
        if line.strip()
    )


def _token_likeness(tokens: list[Counter[str]], file: FileText, lo: int) -> float:
    pairs = zip(tokens, file.lines[lo : lo + len(tokens)], strict=True)
    return sum(_dice(a, _tokens(line)) for a, line in pairs) / len(tokens)


def _tokens(line: str) -> Counter[str]:
    return Counter(_TOKEN.findall(line))


def _dice(a: Counter[str], b: Counter[str]) -> float:
    total = sum(a.values()) + sum(b.values())
    return 2 * sum((a & b).values()) / total if total else 1.0


def _alike(now: list[str], block: list[str]) -> bool:
    """The lines between the anchors read like the block, and the block drops few of them: an
    anchor that is a changed line equal to another one would otherwise swallow the lines
    between them."""
    had = Counter(line.strip() for line in now if line.strip())
    shown = Counter(line.strip() for line in block if line.strip())
    dropped = sum((had - shown).values())
    return _dice(had, shown) >= ANCHOR_LIKENESS and dropped <= max(2, sum(had.values()) // 4)


def _drops_a_header(now: list[str], block: list[str]) -> bool:
    """The span between the anchors holds a `def`/`class` line the block does not: a fixed
    last line equal to a line of the next function ran the span on into it, and its header
    went with the few dropped lines `_alike` allows (reader probe, 7 December 2026)."""
    shown = {line.strip() for line in block}
    return any(opens_definition(line) and line not in shown for line in now)


def _width(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _moved(block: list[str], move: int) -> tuple[str, ...] | None:
    """`block` moved `move` columns as one piece; None when a line would go past column 0 or
    its indentation holds a tab (its width is then not known)."""
    if not move:
        return tuple("" if not line.strip() else line for line in block)
    moved = []
    for line in block:
        if not line.strip():
            moved.append("")
            continue
        width = _width(line)
        if "\t" in line[:width] or width + move < 0:
            return None
        moved.append(" " * (width + move) + line[width:])
    return tuple(moved)
