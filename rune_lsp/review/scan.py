"""Find where two texts differ without walking their unchanged lines one by one.

A model's edit usually touches a few places of a possibly huge file. Splitting and hashing
every line of both versions costs tens of milliseconds on a 100,000-line file, so this scanner
works on characters instead: runs of equal text are skipped by comparing slices (a memcmp in
C), and only around a difference does it look at lines. There it first tries the small edits
(a few lines replaced, inserted or deleted) and checks that the texts agree again afterwards;
bigger changes go to the exact line diff on a window of lines that grows until the texts
visibly line up again, or until it covers everything left.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate

from rune_lsp.linediff import Block, matching_blocks, occurring_once
from rune_lsp.lines import split_lines
from rune_lsp.review.lines import Text

#: (old start, old stop, new start, new stop): a changed region, in characters, whole lines.
Span = tuple[int, int, int, int]

_FIRST_PROBE = 256  # characters compared first when skipping an equal run; doubles after ...
_LAST_PROBE = 16384  # ... up to this, so no slice gets big enough to cost page faults
_SMALL_EDIT = 4  # quick resync tries every p + q <= this (p old lines -> q new lines)
_AGREE_LINES = 3  # a resync point counts when this many lines agree after it ...
_AGREE_CHARS = 32  # ... holding at least this many characters (blank lines prove little)
_CONVINCING_RUN = 512  # characters of agreement that end the search for a better candidate
_FIRST_WINDOW = 4096  # characters per side of the first line window; grows fourfold
_EDGE_RUN = 3  # a window's matching run that reaches its edge must be this long to sync on

# The quick resync's (p, q) candidates: cheapest first, replacements before insertions and
# deletions of the same cost.
_SMALL_EDITS = tuple(
    sorted(
        ((p, q) for p in range(_SMALL_EDIT + 1) for q in range(_SMALL_EDIT + 1 - p) if p or q),
        key=lambda pq: (pq[0] + pq[1], abs(pq[0] - pq[1])),
    )
)


def changed_spans(old: str, new: str) -> list[Span]:
    """The changed regions, in order, each pair separated by at least one equal line."""
    a, b = Text(old), Text(new)
    head = shared_prefix(a, 0, len(a), b, 0, len(b))
    old_stop, new_stop = _shared_suffix(a, b, head)
    return _Scanner(a, b, old_stop, new_stop).scan(head, head)


def shared_prefix(a: Text, i: int, a_stop: int, b: Text, j: int, b_stop: int) -> int:
    """How many characters from `i` in `a` and `j` in `b` agree, cut back to whole lines."""
    x, y = a.value, b.value
    limit = min(a_stop - i, b_stop - j)
    low, step = 0, min(_FIRST_PROBE, limit)
    while step and x[i + low : i + low + step] == y[j + low : j + low + step]:
        low += step
        step = min(step * 2, _LAST_PROBE, limit - low)
    # The first `low` characters agree; when step > 0, one of the next `step` differs.
    high = low + step
    while high - low > 1:
        middle = (low + high) // 2
        if x[i + low : i + middle] == y[j + low : j + middle]:
            low = middle
        else:
            high = middle
    cut = a.last_boundary(i, i + low) - i
    # Inside the agreeing run both texts break lines alike, except right at its end, where a
    # "\r" may be followed by "\n" on one side only.
    while cut > 0 and not b.is_boundary(j + cut):
        cut = a.last_boundary(i, i + cut - 1) - i
    return cut


def _shared_suffix(a: Text, b: Text, head: int) -> tuple[int, int]:
    """Where the longest common run of whole lines at the end begins, in `a` and in `b`.

    It never reaches back into the first `head` characters.
    """
    limit = min(len(a), len(b)) - head
    low, step = 0, min(_FIRST_PROBE, limit)
    while step and _before_end(a.value, low, step) == _before_end(b.value, low, step):
        low += step
        step = min(step * 2, _LAST_PROBE, limit - low)
    high = low + step
    while high - low > 1:
        middle = (low + high) // 2
        if _before_end(a.value, low, middle - low) == _before_end(b.value, low, middle - low):
            low = middle
        else:
            high = middle
    shift = len(b) - len(a)
    cut = a.next_boundary(len(a) - low, len(a))
    while not b.is_boundary(cut + shift):
        cut = a.next_boundary(cut + 1, len(a))
    return cut, cut + shift


def _before_end(text: str, skip: int, size: int) -> str:
    """The `size` characters that precede the last `skip` characters of `text`."""
    stop = len(text) - skip
    return text[stop - size : stop]


class _Scanner:
    """Walks the region `old[:old_stop]` / `new[:new_stop]` from two aligned line starts."""

    def __init__(self, old: Text, new: Text, old_stop: int, new_stop: int) -> None:
        self.old, self.new = old, new
        self.old_stop, self.new_stop = old_stop, new_stop

    def scan(self, i: int, j: int) -> list[Span]:
        spans: list[Span] = []
        run = shared_prefix(self.old, i, self.old_stop, self.new, j, self.new_stop)
        while True:
            i, j = i + run, j + run
            if i == self.old_stop or j == self.new_stop:
                if i < self.old_stop or j < self.new_stop:
                    spans.append((i, self.old_stop, j, self.new_stop))
                return spans
            small = self._small_edit(i, j)
            if small is not None:
                x, y, run = small
                spans.append((i, x, j, y))
                i, j = x, y
                continue
            found, sync = self._window(i, j)
            spans.extend(found)
            if sync is None:
                return spans
            i, j = sync
            run = shared_prefix(self.old, i, self.old_stop, self.new, j, self.new_stop)

    def _small_edit(self, i: int, j: int) -> tuple[int, int, int] | None:
        """A few changed lines after which both texts agree again: (old end, new end, run).

        Of the candidates that pass the quick check, the one followed by the longest equal
        run (`run` characters) wins, the cheapest among equals: in repetitive code a wrong
        guess often agrees for a few lines, the right one until the next change.
        """
        old_ends, new_ends = [i], [j]  # line ends, found only as far as a candidate needs
        best: tuple[int, int, int] | None = None
        best_run = -1
        for p, q in _SMALL_EDITS:
            if not (
                _reach(old_ends, self.old, self.old_stop, p)
                and _reach(new_ends, self.new, self.new_stop, q)
            ):
                continue
            x, y = old_ends[p], new_ends[q]
            if not self._agree(x, y):
                continue
            if x == self.old_stop and y == self.new_stop:
                return x, y, 0  # the rest is accounted for: nothing can agree better
            run = shared_prefix(self.old, x, self.old_stop, self.new, y, self.new_stop)
            if run >= _CONVINCING_RUN:
                return x, y, run  # costlier candidates come later: take the cheap sure thing
            if run > best_run:
                best, best_run = (x, y, run), run
        return best

    def _agree(self, x: int, y: int) -> bool:
        """Whether a few lines from `x` in old equal those from `y` in new (or both end)."""
        old, new = self.old.value, self.new.value
        if x == self.old_stop or y == self.new_stop:
            return x == self.old_stop and y == self.new_stop
        if old[x : x + _AGREE_CHARS] != new[y : y + _AGREE_CHARS]:
            return False  # the usual case, decided without looking for line ends
        end, lines = x, 0
        while end < self.old_stop and (lines < _AGREE_LINES or end - x < _AGREE_CHARS):
            end = self.old.line_end(end, self.old_stop)
            lines += 1
        size = end - x
        if y + size > self.new_stop or old[x:end] != new[y : y + size]:
            return False
        if end == self.old_stop:
            return y + size == self.new_stop
        return self.new.is_boundary(y + size)

    def _window(self, i: int, j: int) -> tuple[list[Span], tuple[int, int] | None]:
        """Exact diff of growing windows: the spans up to a trustworthy sync point, and it.

        No sync point means the window covered everything left and all its spans are final.
        """
        size = _FIRST_WINDOW
        while True:
            old_end = self._window_end(self.old, i, self.old_stop, size)
            new_end = self._window_end(self.new, j, self.new_stop, size)
            old_lines = split_lines(self.old.value[i:old_end])
            new_lines = split_lines(self.new.value[j:new_end])
            blocks = matching_blocks(old_lines, new_lines)
            everything = old_end == self.old_stop and new_end == self.new_stop
            chosen = len(blocks) if everything else _sync_block(blocks, old_lines, new_lines)
            if chosen is None:
                size *= 4
                continue
            old_offsets = list(accumulate(map(len, old_lines), initial=i))
            new_offsets = list(accumulate(map(len, new_lines), initial=j))
            limit = (len(old_lines), len(new_lines)) if everything else blocks[chosen][:2]
            spans = [
                (old_offsets[i1], old_offsets[i2], new_offsets[j1], new_offsets[j2])
                for i1, i2, j1, j2 in _gaps(blocks[:chosen], limit)
            ]
            if everything:
                return spans, None
            return spans, (old_offsets[limit[0]], new_offsets[limit[1]])

    @staticmethod
    def _window_end(text: Text, start: int, stop: int, size: int) -> int:
        """A line boundary about `size` characters after `start` (at least one whole line)."""
        if start + size >= stop:
            return stop
        end = text.last_boundary(start, start + size)
        return end if end > start else text.line_end(start, stop)


def _reach(ends: list[int], text: Text, stop: int, count: int) -> bool:
    """Extend `ends` to hold the end of line `count` after its start; False past `stop`."""
    while len(ends) <= count and ends[-1] < stop:
        ends.append(text.line_end(ends[-1], stop))
    return len(ends) > count


def _sync_block(blocks: Sequence[Block], old: Sequence[str], new: Sequence[str]) -> int | None:
    """The last block that proves the windows line up from there on, if any.

    It must run to the edge of a window (so nothing unseen can contradict it) and hold a line
    that occurs once on each side: runs of blank lines and braces match anywhere.
    """
    once: set[str] | None = None
    for k in range(len(blocks) - 1, -1, -1):
        i, j, size = blocks[k]
        reaches_edge = i + size == len(old) or j + size == len(new)
        if not reaches_edge or size < _EDGE_RUN:
            continue
        if once is None:
            once = occurring_once(old) & occurring_once(new)
        if any(line in once for line in old[i : i + size]):
            return k
    return None


def _gaps(blocks: Sequence[Block], limit: tuple[int, int]) -> list[tuple[int, int, int, int]]:
    """The unmatched (old range, new range) pairs between blocks, up to `limit`."""
    gaps: list[tuple[int, int, int, int]] = []
    i = j = 0
    for bi, bj, size in [*blocks, (limit[0], limit[1], 0)]:
        if i < bi or j < bj:
            gaps.append((i, bi, j, bj))
        i, j = bi + size, bj + size
    return gaps
