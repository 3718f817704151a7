"""A fenced code block in a prose answer, read as the edit it proposes to the target file.

Small local models asked to fix code mostly answer without a tool call, with the corrected
function in a fenced block. When a run was asked to change a file, such a block is placed in
that file the way a careful reader would place it, and becomes an ordinary `edit_file` proposal
(reviewed like any other). A block is placed by, in order:

1. the whole file: the block holds every top-level definition of the file and most of its lines;
2. its definitions: each `def`/`class` of the block replaces the file's definition of that name
   (methods inside a class too; a class shown with only some of its methods replaces just those);
3. its anchor lines: the block's first and last lines each occur exactly once in the file, and
   the block replaces the lines from one to the other.

A block that places by none of these but copied the excerpt's line numbers (`    8 |   x += 1`,
one line or a run of consecutive ones) replaces the lines it numbers, when they read alike.

Nothing is guessed: a definition or anchor found twice, nothing found, or two blocks that change
the same lines differently give a short reason for the model instead of an edit. A block that
equals the current code proposes nothing (the reading says `unchanged`), as does a block tagged
for another language.
Pure: the caller supplies the file's current text.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import pairwise
from pathlib import PurePath

from rune_lsp.answers.code.fences import fenced_blocks, speaks
from rune_lsp.answers.code.outline import Definition, children, definitions, indent_of, top_level
from rune_lsp.lines import copied_numbers, without_copied_numbers

#: Whole-file tier: the share of the file's non-blank lines the block must repeat.
WHOLE_FILE_SHARE = 0.6
#: Anchor tier: how alike the lines between the anchors and the block must be (0..1).
ANCHOR_LIKENESS = 0.5


@dataclass(frozen=True)
class BlockEdit:
    """An `edit_file` proposal: `old_text` occurs exactly once in the file it was read from."""

    old_text: str
    new_text: str


@dataclass(frozen=True)
class BlockReading:
    """What an answer's code blocks propose: an edit, a reason for none, or nothing at all."""

    edit: BlockEdit | None = None
    refusal: str | None = None
    unchanged: bool = False  # every block placed, and each is the code as it is now


def read_blocks(answer: str, current: str, path: str) -> BlockReading:
    """The edit `answer`'s code blocks propose to `path`, whose text is `current`."""
    blocks = [_Block.of(f.lines) for f in fenced_blocks(answer) if speaks(f.tag, path)]
    blocks = [block for block in blocks if block.lines]
    if not blocks:
        return BlockReading()
    file = _FileLines.of(current)
    python = PurePath(path).suffix.lower() in (".py", ".pyi")
    shown = PurePath(path).name
    placements: list[list[_Replace]] = []
    misses: list[_Miss] = []
    for block in blocks:
        placed = _place(block, file.lines, python, shown)
        if isinstance(placed, _Miss):
            misses.append(placed)
        else:
            placements.append(placed)
    replaces = _last_word(placements, file.lines)
    ambiguous = next((miss for miss in misses if miss.ambiguous), None)
    if ambiguous is not None:
        return _refused(ambiguous.reason)
    if not replaces:
        # Blocks that place nowhere are often usage examples; they matter only when no block
        # placed at all.
        return _refused(misses[0].reason) if misses else BlockReading(unchanged=True)
    merged = _merge(replaces)
    if merged is None:
        return _refused(f"two code blocks change the same lines of {shown} differently")
    return BlockReading(edit=file.edit(merged))


def _last_word(placements: list[list[_Replace]], file: list[str]) -> list[_Replace]:
    """The changes the answer stands by: a change to lines that a later block shows as they are
    now is withdrawn ("I changed ```old``` into ```new```" after the fix landed), while the
    current code quoted before a change ("the bug is here: ```...```") leaves it standing."""
    kept = []
    for index, placed in enumerate(placements):
        for replace in placed:
            if not replace.changes(file):
                continue
            later = (r for after in placements[index + 1 :] for r in after)
            if not any(not r.changes(file) and r.overlaps(replace) for r in later):
                kept.append(replace)
    return kept


def _refused(reason: str) -> BlockReading:
    return BlockReading(
        refusal=(
            f"Your code block was not proposed as an edit: {reason}. To change the file, call "
            "edit_file with old_text copied exactly from it, or answer with the complete "
            "corrected definition (from its def/class line) in one code block."
        )
    )


# --- placing one block --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Replace:
    """File lines `lo..hi` (inclusive) become `lines`."""

    lo: int
    hi: int
    lines: tuple[str, ...]

    def changes(self, file: list[str]) -> bool:
        return [line.rstrip() for line in file[self.lo : self.hi + 1]] != list(self.lines)

    def overlaps(self, other: _Replace) -> bool:
        return self.lo <= other.hi and other.lo <= self.hi


@dataclass(frozen=True)
class _Miss:
    reason: str
    ambiguous: bool  # found more than once, as opposed to not found


@dataclass(frozen=True)
class _Block:
    lines: list[str]  # see `_normalized`
    numbers: list[int] | None  # the line numbers it copied, one per non-blank line

    @classmethod
    def of(cls, raw: tuple[str, ...]) -> _Block:
        return cls(_normalized(raw), copied_numbers([line.rstrip() for line in raw]))


def _place(found: _Block, file: list[str], python: bool, shown: str) -> list[_Replace] | _Miss:
    block = found.lines
    there = _already_there(block, file)
    if there is not None:
        return [there]
    whole = _whole_file(block, file, python)
    if whole is not None:
        return [whole]
    units = top_level(block) if python else []
    if units:
        placed = _place_definitions(block, units, file, (0, len(file)), shown)
    else:
        placed = _place_by_anchors(block, file, shown)
    if isinstance(placed, _Miss) and not placed.ambiguous and found.numbers is not None:
        return _place_by_numbers(block, found.numbers, file) or placed
    return placed


def _already_there(block: list[str], file: list[str]) -> _Replace | None:
    """Where the block is the file's current code (indentation aside): nothing to do there."""
    first = block[0].strip()
    for start, line in enumerate(file):
        if line.strip() != first:
            continue
        moved = _rebased(block, indent_of(block[0]), indent_of(line))
        if [text.rstrip() for text in file[start : start + len(block)]] == list(moved):
            return _Replace(start, start + len(block) - 1, moved)
    return None


def _whole_file(block: list[str], file: list[str], python: bool) -> _Replace | None:
    file_text = [line.strip() for line in file if line.strip()]
    block_text = [line.strip() for line in block if line.strip()]
    if not file_text or len(block_text) < WHOLE_FILE_SHARE * len(file_text):
        return None
    if python:
        names = {(d.kind, d.name) for d in top_level(block)}
        outer = top_level(file)
        if not outer or any((d.kind, d.name) not in names for d in outer):
            return None
    available = Counter(block_text)
    repeated = sum(1 for line in file_text if available[line] > 0 and _take(available, line))
    if repeated < WHOLE_FILE_SHARE * len(file_text) or _drops_top_level(block, file):
        return None
    lo = next(i for i, line in enumerate(file) if line.strip())
    hi = max(i for i, line in enumerate(file) if line.strip())
    base = min((indent_of(line) for line in block if line.strip()), key=len)
    return _Replace(lo, hi, _rebased(block, base, ""))


def _drops_top_level(block: list[str], file: list[str]) -> bool:
    """Whether the block leaves out some of the file's outermost lines (a statement after the
    function it shows, say): then it is a part of the file, not all of it. Changed and added
    outermost lines are what a whole-file answer has; removed ones are not."""
    base = min((indent_of(line) for line in block if line.strip()), key=len)
    outer = [line.strip() for line in file if line.strip() and not indent_of(line)]
    shown = [line.strip() for line in block if line.strip() and indent_of(line) == base]
    for op, i1, i2, j1, j2 in SequenceMatcher(None, outer, shown, autojunk=False).get_opcodes():
        if op == "delete" or (op == "replace" and i2 - i1 > j2 - j1):
            return True
    return False


def _take(counter: Counter[str], line: str) -> bool:
    counter[line] -= 1
    return True


def _place_definitions(
    block: list[str],
    units: list[Definition],
    file: list[str],
    scope: tuple[int, int],
    shown: str,
) -> list[_Replace] | _Miss:
    replaces: list[_Replace] = []
    for unit in units:
        target = _find_definition(block, unit, file, scope, shown)
        if isinstance(target, _Miss):
            return target
        if unit.kind == "class" and _partial(block, unit, file, target):
            inner = _place_definitions(
                block, children(block, unit), file, (target.header + 1, target.end + 1), shown
            )
            if isinstance(inner, _Miss):
                return inner
            replaces.extend(inner)
            continue
        lines = _rebased(block[unit.start : unit.end + 1], unit.indent, target.indent)
        replaces.append(_Replace(target.start, target.end, lines))
    return replaces


def _find_definition(
    block: list[str], unit: Definition, file: list[str], scope: tuple[int, int], shown: str
) -> Definition | _Miss:
    label = f"`{unit.kind} {unit.name}`"
    found = [d for d in definitions(file, *scope) if (d.kind, d.name) == (unit.kind, unit.name)]
    if len(found) > 1:  # the same name twice (methods of two classes): the exact header decides
        header = block[unit.header].strip()
        exact = [d for d in found if file[d.header].strip() == header]
        if len(exact) != 1:
            lines = ", ".join(str(d.header + 1) for d in found)
            return _Miss(f"{label} occurs {len(found)} times in {shown} (lines {lines})", True)
        found = exact
    if not found:
        return _Miss(f"{label} is not defined in {shown}", False)
    return found[0]


def _partial(block: list[str], unit: Definition, file: list[str], target: Definition) -> bool:
    """The block shows the class with some of its methods left out: replace only those shown."""
    shown = {d.name for d in children(block, unit)}
    return any(d.name not in shown for d in children(file, target))


def _place_by_anchors(block: list[str], file: list[str], shown: str) -> list[_Replace] | _Miss:
    if len(block) < 2:
        return _Miss(f"a one-line block cannot be placed in {shown}", False)
    stripped = [line.strip() for line in file]
    firsts = [i for i, line in enumerate(stripped) if line == block[0].strip()]
    lasts = [i for i, line in enumerate(stripped) if line == block[-1].strip()]
    if len(firsts) > 1 or len(lasts) > 1:
        return _Miss(f"its first or last line occurs more than once in {shown}", True)
    if not firsts or not lasts or lasts[0] < firsts[0]:
        return _Miss(f"its first and last lines were not found in {shown}", False)
    lo, hi = firsts[0], lasts[0]
    likeness = SequenceMatcher(None, stripped[lo : hi + 1], [b.strip() for b in block]).ratio()
    if likeness < ANCHOR_LIKENESS:
        return _Miss(f"it differs too much from lines {lo + 1}-{hi + 1} of {shown}", False)
    return [_Replace(lo, hi, _rebased(block, indent_of(block[0]), indent_of(file[lo])))]


def _place_by_numbers(
    block: list[str], numbers: list[int], file: list[str]
) -> list[_Replace] | None:
    """The lines the block numbers, when it numbers each of its lines, consecutively, within the
    file, and they read alike (Qwen2.5-Coder 1.5B answered a failing test with
    "```\n    8 |         self.count += 1\n```", bench/effect task 31_counter)."""
    lo = numbers[0] - 1
    hi = lo + len(block) - 1
    if len(numbers) != len(block) or numbers != list(range(lo + 1, hi + 2)) or lo < 0:
        return None  # a blank line without a number, a gap, or a line number out of order
    if hi >= len(file):
        return None
    now = "\n".join(line.strip() for line in file[lo : hi + 1])
    proposed = "\n".join(line.strip() for line in block)
    if SequenceMatcher(None, now, proposed, autojunk=False).ratio() < ANCHOR_LIKENESS:
        return None
    return [_Replace(lo, hi, _rebased(block, indent_of(block[0]), indent_of(file[lo])))]


# --- text helpers -------------------------------------------------------------------------------


def _normalized(lines: tuple[str, ...]) -> list[str]:
    """The block's lines without trailing spaces, copied line numbers or blank edges."""
    body = [line.rstrip() for line in lines]
    body = without_copied_numbers(body) or body
    while body and not body[0].strip():
        body.pop(0)
    while body and not body[-1].strip():
        body.pop()
    return body


def _rebased(lines: list[str], old: str, new: str) -> tuple[str, ...]:
    """Lines moved from indentation `old` to `new`; blank lines stay empty."""
    moved = []
    for line in lines:
        if not line.strip():
            moved.append("")
        elif line.startswith(old):
            moved.append(new + line[len(old) :])
        else:  # shallower than the block's first line: keep its shape relative to `new`
            moved.append(new + line.lstrip(" \t"))
    return tuple(moved)


def _merge(replaces: list[_Replace]) -> list[_Replace] | None:
    """The distinct replacements in file order; None when two overlap differently."""
    unique = sorted(set(replaces), key=lambda r: (r.lo, r.hi))
    for before, after in pairwise(unique):
        if after.lo <= before.hi:
            return None
    return unique


@dataclass(frozen=True)
class _FileLines:
    text: str
    lines: list[str]  # without line endings
    starts: list[int]  # offset of each line in `text`
    eol: str

    @classmethod
    def of(cls, text: str) -> _FileLines:
        raw = text.split("\n")
        starts, offset = [], 0
        for line in raw:
            starts.append(offset)
            offset += len(line) + 1
        lines = [line[:-1] if line.endswith("\r") else line for line in raw]
        return cls(text, lines, starts, "\r\n" if "\r\n" in text else "\n")

    def span(self, lo: int, hi: int) -> str:
        return self.text[self.starts[lo] : self.starts[hi] + len(self.lines[hi])]

    def edit(self, replaces: list[_Replace]) -> BlockEdit:
        """One edit covering every replacement: only the lines that change, widened with
        context until its old text occurs once in the file."""
        lo, hi = replaces[0].lo, replaces[-1].hi
        new: list[str] = []
        at = lo
        for replace in replaces:
            new.extend(self.lines[at : replace.lo])
            new.extend(replace.lines)
            at = replace.hi + 1
        new.extend(self.lines[at : hi + 1])
        while lo < hi and new and self.lines[lo].rstrip() == new[0]:
            lo, new = lo + 1, new[1:]
        while lo < hi and new and self.lines[hi].rstrip() == new[-1]:
            hi, new = hi - 1, new[:-1]
        while _occurrences(self.text, self.span(lo, hi)) > 1 and (lo > 0 or hi < len(self) - 1):
            if lo > 0:
                lo, new = lo - 1, [self.lines[lo - 1], *new]
            if hi < len(self) - 1:
                hi, new = hi + 1, [*new, self.lines[hi + 1]]
        return BlockEdit(old_text=self.span(lo, hi), new_text=self.eol.join(new))

    def __len__(self) -> int:
        return len(self.lines)


def _occurrences(text: str, needle: str) -> int:
    count, at = 0, text.find(needle)
    while at != -1 and count < 2:
        count += 1
        at = text.find(needle, at + 1)
    return count
