"""A file as lines with their own endings, the line spans a block replaces, and the one edit
that makes them: every line outside the replaced spans is kept byte for byte."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise

from rune_lsp.answers.code.python_source import Outline, outline
from rune_lsp.linediff import common_ends, same_lines
from rune_lsp.lines import split_lines, strip_terminator


@dataclass(frozen=True)
class Replace:
    """File lines `lo..hi` (inclusive; `hi == lo - 1` inserts before `lo`) become `lines`."""

    lo: int
    hi: int
    lines: tuple[str, ...]  # without line endings

    def changes(self, file: FileText) -> bool:
        now = [line.rstrip() for line in file.lines[self.lo : self.hi + 1]]
        return now != [line.rstrip() for line in self.lines]

    def overlaps(self, other: Replace) -> bool:
        return self.lo <= other.hi and other.lo <= self.hi

    @property
    def growth(self) -> int:
        """How many lines more the result has than the file: negative for fewer."""
        return len(self.lines) - (self.hi - self.lo + 1)


@dataclass(frozen=True)
class FileText:
    text: str
    lines: tuple[str, ...]  # without line endings
    ends: tuple[str, ...]  # each line's ending ("" for a last line without one)

    @classmethod
    def of(cls, text: str) -> FileText:
        raw = split_lines(text)
        lines = tuple(strip_terminator(line) for line in raw)
        return cls(text, lines, tuple(r[len(s) :] for r, s in zip(raw, lines, strict=True)))

    def __len__(self) -> int:
        return len(self.lines)

    # What the text tiers look up, computed once per file rather than once per block: an
    # answer of many small blocks then costs time in its own size (bench/reading.py).

    @cached_property
    def stripped(self) -> tuple[str, ...]:
        return tuple(line.strip() for line in self.lines)

    @cached_property
    def where(self) -> dict[str, list[int]]:
        """Each stripped line's indexes."""
        found: dict[str, list[int]] = {}
        for index, line in enumerate(self.stripped):
            found.setdefault(line, []).append(index)
        return found

    @cached_property
    def filled(self) -> list[int]:
        """The indexes of the non-blank lines."""
        return [index for index, line in enumerate(self.stripped) if line]

    @cached_property
    def counts(self) -> Counter[str]:
        """The non-blank lines, stripped, counted."""
        return Counter(line for line in self.stripped if line)

    @cached_property
    def joined(self) -> tuple[str, list[int]]:
        """The stripped lines joined between newlines, and the offset of the newline before
        each line (`by_text.quoted` finds a block in it)."""
        starts, offset = [], 0
        for line in self.stripped:
            starts.append(offset)
            offset += len(line) + 1
        return "\n" + "\n".join(self.stripped) + "\n", starts

    @cached_property
    def indent_steps(self) -> tuple[int, ...]:
        return indent_steps(self.lines)

    @cached_property
    def outline(self) -> Outline | None:
        """The file's Python outline (None when it does not parse), parsed when first asked."""
        return outline(list(self.lines))

    def spliced(self, replaces: list[Replace]) -> str:
        """The text with each replacement made (in file order, none overlapping)."""
        out: list[str] = []
        at = 0
        for replace in replaces:
            out.extend(self._kept(at, replace.lo))
            out.extend(self._ended(replace))
            at = replace.hi + 1
        out.extend(self._kept(at, len(self)))
        return "".join(out)

    def _kept(self, lo: int, hi: int) -> list[str]:
        return [a + b for a, b in zip(self.lines[lo:hi], self.ends[lo:hi], strict=True)]

    def _ended(self, replace: Replace) -> list[str]:
        """A replacement's lines with their endings. The lines it leaves alike at its start and
        end (trailing spaces aside) stay byte for byte, endings included; the others end as the
        first line they replace does (or the line before): a `\r` file stays a `\r` file, a
        mixed one keeps its mix."""
        old, new = self.lines[replace.lo : replace.hi + 1], replace.lines
        head = 0
        while head < min(len(old), len(new)) and old[head].rstrip() == new[head].rstrip():
            head += 1
        tail = 0
        while (
            tail < min(len(old), len(new)) - head
            and old[-1 - tail].rstrip() == new[-1 - tail].rstrip()
        ):
            tail += 1
        middle = list(new[head : len(new) - tail])
        first = replace.lo + head  # the first old line the middle replaces
        ending = self.ends[first] if first < replace.hi + 1 - tail else ""
        ending = ending or self.eol(first - 1)
        ended = [line + ending for line in middle]
        self._keep_trailing_spaces(ended, first, replace.hi - tail)
        if ended and not tail and old:  # the last line replaced: its own ending (maybe none)
            ended[-1] = strip_terminator(ended[-1]) + self.ends[replace.hi]
        out = [
            *self._kept(replace.lo, first),
            *ended,
            *self._kept(replace.hi + 1 - tail, replace.hi + 1),
        ]
        for index in range(len(out) - 1):  # a kept last line of the file, now followed
            if out[index] == strip_terminator(out[index]):
                out[index] += self.eol(replace.lo - 1)
        return out

    def _keep_trailing_spaces(self, ended: list[str], lo: int, hi: int) -> None:
        """The lines of `ended` that repeat one of lines `lo..hi` but for trailing spaces
        become that line again, ending included: a block is read without trailing spaces, and
        inside a triple-quoted string they are the string's value (reader probe, 7 December
        2026). Aligned only when one of those lines has any: most files have none."""
        old = self.lines[lo : hi + 1]
        if not any(line != line.rstrip() for line in old):
            return
        now = [line.rstrip() for line in old]
        for i, j in same_lines(now, [strip_terminator(line) for line in ended]):
            ended[j] = self.lines[lo + i] + self.ends[lo + i]

    def eol(self, index: int) -> str:
        """The ending of line `index`, or the file's first ending when it has none."""
        if 0 <= index < len(self) and self.ends[index]:
            return self.ends[index]
        return next((end for end in self.ends if end), "\n")


def disjoint(replaces: list[Replace]) -> list[Replace] | None:
    """The distinct replacements in file order; None when two overlap differently."""
    unique = sorted(set(replaces), key=lambda r: (r.lo, r.hi))
    for before, after in pairwise(unique):
        if after.lo <= before.hi:
            return None
    return unique


def agreeing(replaces: list[Replace], file: FileText) -> list[Replace] | None:
    """Overlapping replacements where the widest already makes each change of the others, as
    that one; None when two overlap otherwise. The fixed function, then "here is the complete
    file" with the same fix, was refused as two blocks disagreeing, and so was a fix followed
    by "I changed ```old``` into ```new```" (reader probe, 7 December 2026). Each group of
    overlapping ones must be one that spans the group and others inside it, each of whose
    changed lines the wide one has in the same place (`_made_by`)."""
    unique = sorted(set(replaces), key=lambda r: (r.lo, -r.hi))
    groups: list[list[Replace]] = []
    end = -1  # the last line of the group so far
    for replace in unique:
        if groups and replace.lo <= end:
            groups[-1].append(replace)
            end = max(end, replace.hi)
        else:
            groups.append([replace])
            end = replace.hi
    kept: list[Replace] = []
    for wide, *others in groups:
        if any(r.hi > wide.hi for r in others):
            return None
        base = [line.rstrip() for line in file.lines[wide.lo : wide.hi + 1]]
        ours = [line.rstrip() for line in wide.lines]
        paired = dict(same_lines(base, ours))  # aligned once for all the narrow ones
        if not all(_made_by(wide, r, file, ours, paired) for r in others):
            return None
        kept.append(wide)
    return kept


def _made_by(
    wide: Replace, narrow: Replace, file: FileText, ours: list[str], paired: dict[int, int]
) -> bool:
    """Whether `wide` makes `narrow`'s change: the lines `narrow` changes (its common first and
    last lines with the file left out) map, through `paired` (the alignment of the file's
    lines with `wide`'s, `ours`, by `same_lines`: difflib's alone took 20 s on an 86 KB file of
    alike lines, `bench/reading.py`), onto exactly the lines `narrow` puts there."""
    old = [line.rstrip() for line in file.lines[narrow.lo : narrow.hi + 1]]
    new = [line.rstrip() for line in narrow.lines]
    head, tail = common_ends(old, new)
    lo, hi = narrow.lo - wide.lo + head, narrow.hi - wide.lo + 1 - tail  # base[lo:hi] changes
    sizes = (wide.hi + 1 - wide.lo, len(ours))
    start, stop = _start_in(paired, lo, sizes), _stop_in(paired, hi, sizes)
    made = new[head : len(new) - tail]
    return start is not None and stop is not None and ours[start:stop] == made


def _start_in(paired: dict[int, int], at: int, sizes: tuple[int, int]) -> int | None:
    """Where a change of the file's lines starting at line `at` starts in the wide block's
    (`sizes`: how many lines each has): after the line paired before it, else where the line
    it ends at is paired; None inside a changed stretch."""
    if at - 1 in paired:
        return paired[at - 1] + 1
    if at in paired:
        return paired[at]
    return 0 if at == 0 else sizes[1] if at == sizes[0] else None


def _stop_in(paired: dict[int, int], at: int, sizes: tuple[int, int]) -> int | None:
    """Where a change of the file's lines ending before line `at` ends in the wide block's:
    at the line `at` is paired with, else after the line paired before it; None inside a
    changed stretch."""
    if at in paired:
        return paired[at]
    if at - 1 in paired:
        return paired[at - 1] + 1
    return 0 if at == 0 else sizes[1] if at == sizes[0] else None


def minimal_edit(before: str, after: str) -> tuple[str, str]:
    """(old_text, new_text) turning `before` into `after`: the changed lines only, widened by
    whole lines of context on both sides until `old_text` occurs exactly once in `before`.
    Once unique, a wider text stays unique, so the width is found by doubling, then halving:
    widened one line at a time, a change amid 20,000 alike lines took 6 s (review of 7
    December 2026)."""
    old = split_lines(before)
    new = split_lines(after)
    head, tail = common_ends(old, new)

    def widened(more: int) -> tuple[tuple[str, str], bool]:
        lo, old_hi = max(0, head - more), min(len(old), len(old) - tail + more)
        new_hi = old_hi + len(new) - len(old)
        texts = _unended("".join(old[lo:old_hi]), "".join(new[lo:new_hi]))
        return texts, lo == 0 and old_hi == len(old)

    def enough(more: int) -> bool:
        (old_text, _), whole = widened(more)
        return whole or (bool(old_text) and _occurs_once(before, old_text))

    short, wide = -1, 0  # not enough at `short`, enough at `wide` once found
    while not enough(wide):
        short, wide = wide, max(1, 2 * wide)
    while wide - short > 1:
        middle = (short + wide) // 2
        short, wide = (short, middle) if enough(middle) else (middle, wide)
    return widened(wide)[0]


def _unended(old: str, new: str) -> tuple[str, str]:
    """Both texts without the line ending they end with alike (as an edit is usually written)."""
    end = strip_terminator(old)
    ending = old[len(end) :]
    if ending and new.endswith(ending) and strip_terminator(new) == new[: -len(ending)]:
        return end, new[: -len(ending)]
    return old, new


def _occurs_once(text: str, needle: str) -> bool:
    first = text.find(needle)
    return first != -1 and text.find(needle, first + 1) == -1


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def shifted(lines: list[str], old: str, new: str, top: int) -> tuple[str, ...] | None:
    """A definition's `lines` (its first `top` lines are its decorators and header) moved as one
    piece from indentation `old` to `new`, or None when a line cannot move with them: below the
    header, a line no deeper than the header (a column-0 line of a string or a comment, say)
    could be where it was or moved, and which is not known. A closing bracket at the header's
    depth (`):` ending a signature) moves with it. Blank lines become empty."""
    moved: list[str] = []
    for index, line in enumerate(lines):
        if not line.strip():
            moved.append("")
        elif old == new:
            moved.append(line)
        elif line.startswith(old) and (index < top or not _at_depth(line, old)):
            moved.append(new + line[len(old) :])
        else:
            return None
    return tuple(moved)


def _at_depth(line: str, indent: str) -> bool:
    """A line exactly as deep as `indent` that is not a closing bracket."""
    return len(indent_of(line)) == len(indent) and line.strip()[0] not in ")]}"


def indent_steps(lines: Sequence[str]) -> tuple[int, ...]:
    """How much deeper each non-blank line is indented than the non-blank line before it (the
    first: its own depth), 0 for a blank line; spaces and tabs count one column each."""
    steps: list[int] = []
    before = 0
    for line in lines:
        if not line.strip():
            steps.append(0)
            continue
        width = len(indent_of(line))
        steps.append(width - before)
        before = width
    return tuple(steps)
