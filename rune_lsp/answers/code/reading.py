"""The code-block reader's one entry point: an answer's fenced blocks as edits of files.

Small local models asked to fix code mostly answer without a tool call, with the corrected
function in a fenced block. `read_code` places each block in the file it is code of (the
target, or the file its info string, first-line label or a `# file:` label above it names:
```` ```python title=utils.py ````, `# file: pkg/utils.py`) exactly, or refuses with a reason
the model can act on (`prompts.py`); it never guesses. How one block is placed is
`placing.py`; here the blocks of an answer are put together:

- blocks tagged for another language, and unclosed blocks, are not read;
- when several blocks show the same lines, the last one counts (the buggy code quoted before
  the fix leaves the fix standing; the old code quoted after a fix landed proposes no revert);
- two blocks that change the same lines differently, a block that fits more than one place, a
  block for a file the caller could not read, or a Python result with a fault the file did not
  have (`faults.py`: it would not parse, holds a method out of its class, reads a name before
  or without binding it) refuse the whole answer;
- blocks that place nowhere are usage examples when another block placed, else refused;
- a Python block whose file defines none of its definitions is the code of the one other file
  the run showed the model that defines them all (`owner.py`), when there is one.

Each file gets one `FileEdit`: the changed lines of its current text, widened with context
until unique; every other line is kept byte for byte, line endings included.
Pure: the caller supplies the current text of the target, of `named_paths(answer, target)` and
of the files the run showed beside the target.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from rune_lsp.answers.code import prompts
from rune_lsp.answers.code.by_text import Miss
from rune_lsp.answers.code.faults import added_fault
from rune_lsp.answers.code.fences import Fence, answer_blocks, speaks
from rune_lsp.answers.code.layout import layout_only
from rune_lsp.answers.code.owner import shown_owner
from rune_lsp.answers.code.placing import Block, place
from rune_lsp.answers.code.spans import FileText, Replace, agreeing, disjoint, minimal_edit


@dataclass(frozen=True)
class FileEdit:
    """An `edit_file` proposal: `old_text` occurs exactly once in `path`'s current text."""

    path: str
    old_text: str
    new_text: str
    #: A Python file whose code stays the same: only blank lines, comments or layout change
    #: (`layout.layout_only`). Such a block cannot make a failing check pass.
    layout_only: bool = False


@dataclass(frozen=True)
class CodeReading:
    """What an answer's code blocks propose: edits, a reason for none, or nothing at all."""

    edits: tuple[FileEdit, ...] = ()
    refusal: str | None = None  # told to the model: why no block was taken
    #: Every block placed, and each is the code as it is now: the files they are code of (a
    #: fix on a test names the module it sent back, not the test: bench/effect corpus_multi).
    unchanged: tuple[str, ...] = ()


def named_paths(answer: str, target: str) -> tuple[str, ...]:
    """Files other than `target` that the answer's blocks say they are code of, in order: the
    caller reads those it can and passes them to `read_code`."""
    found: dict[str, None] = {}
    for fence in answer_blocks(answer):
        if fence.named is not None:
            candidates = _candidates(fence.named, target)
            if target not in candidates:
                found.update(dict.fromkeys(candidates))
    return tuple(found)


def read_code(
    answer: str, files: Mapping[str, str], target: str, shown: tuple[str, ...] = ()
) -> CodeReading:
    """The edits `answer`'s code blocks propose; `files[target]` is the target's current text,
    and `files` holds whichever of `named_paths(answer, target)` and of `shown` (the other
    files the run showed the model) the caller could read."""
    by_path: dict[str, list[Block]] = {}
    for fence in answer_blocks(answer):
        path = _path_of(fence, files, target)
        if isinstance(path, _Refused):
            return CodeReading(refusal=prompts.refusal(path.reason, target))
        block = Block.of(fence.lines)
        if shown and speaks(fence.tag, path):
            path = shown_owner(block.lines, path, files, (target, *shown)) or path
        if not speaks(fence.tag, path) or not block.lines:
            continue
        if path not in files:
            return CodeReading(refusal=prompts.refusal(prompts.unreadable(path), target))
        by_path.setdefault(path, []).append(block)
    readings = [_FileReading.of(path, files[path], blocks) for path, blocks in by_path.items()]
    refused = next((r for r in readings if r.refusal is not None), None)
    if refused is not None:
        return CodeReading(refusal=refused.refusal)
    edits = tuple(r.edit for r in readings if r.edit is not None)
    if edits:
        return CodeReading(edits=edits)
    missed = next((r for r in readings if r.miss is not None), None)
    if missed is not None and missed.miss is not None:
        return CodeReading(refusal=prompts.refusal(missed.miss, missed.path))
    return CodeReading(unchanged=tuple(r.path for r in readings))


@dataclass(frozen=True)
class _Refused:
    reason: str


def _candidates(named: str, target: str) -> list[str]:
    """The paths a block's named file may be: as written, and beside the target when written
    without a folder."""
    path = PurePosixPath(named.replace("\\", "/"))
    folder = PurePosixPath(target).parent
    found = [str(path)]
    if len(path.parts) == 1 and str(folder) != ".":
        found.insert(0, str(folder / path))
    return found


def _path_of(fence: Fence, files: Mapping[str, str], target: str) -> str | _Refused:
    """The file a block is code of (maybe one the caller could not read)."""
    if fence.named is None:
        return target
    candidates = _candidates(fence.named, target)
    if target in candidates:
        return target
    readable = [c for c in candidates if c in files]
    if len(readable) > 1:
        return _Refused(prompts.named_twice(fence.named, readable))
    return readable[0] if readable else candidates[-1]


@dataclass(frozen=True)
class _FileReading:
    """One file's blocks read: an edit, a refusal of the whole answer, a miss, or unchanged."""

    path: str
    edit: FileEdit | None = None
    refusal: str | None = None
    miss: str | None = None

    @classmethod
    def of(cls, path: str, current: str, blocks: list[Block]) -> _FileReading:
        file = FileText.of(current)
        python = PurePosixPath(path).suffix.lower() in (".py", ".pyi")
        shown = PurePosixPath(path).name
        placements: list[list[Replace]] = []
        misses: list[Miss] = []
        read: dict[tuple[str, ...], list[Replace] | Miss] = {}  # a block repeated is read once
        for block in blocks:
            key = (*block.lines, repr(block.numbers))
            placed = (
                read[key]
                if key in read
                else read.setdefault(key, place(block, file, python, shown))
            )
            if isinstance(placed, Miss):
                misses.append(placed)
            else:
                placements.append(placed)
        ambiguous = next((m for m in misses if m.ambiguous), None)
        if ambiguous is not None:
            return cls(path, refusal=prompts.refusal(ambiguous.reason, path))
        replaces = _last_word(placements, file)
        if replaces is None:
            return cls(path, refusal=prompts.refusal(prompts.partly_taken_back(shown), path))
        if not replaces:
            return cls(path, miss=misses[0].reason if misses and not placements else None)
        merged = disjoint(replaces)
        if merged is None:
            merged = agreeing(replaces, file)
        if merged is None:
            return cls(path, refusal=prompts.refusal(prompts.blocks_disagree(shown), path))
        after = FileText.of(file.spliced(merged))
        relaid = False
        if python:
            fault = added_fault(file, merged, after, path)
            if fault is not None:
                return cls(path, refusal=prompts.refusal(fault, path))
            relaid = layout_only(file, merged, after)
        old_text, new_text = minimal_edit(current, after.text)
        return cls(path, edit=FileEdit(path, old_text, new_text, relaid))


def _last_word(placements: list[list[Replace]], file: FileText) -> list[Replace] | None:
    """The changes the answer stands by: a change to lines that a later block shows as they are
    now is withdrawn ("I changed ```old``` into ```new```" after the fix landed), while the
    current code quoted before a change ("the bug is here: ```...```") leaves it standing, and
    so do lines quoted as they are where a later block changes them again (the "before" of a
    before/after pair below the fix). None when a later quote takes back part of a block's
    changes and not the rest: a fix of `helper`'s signature and of its caller, then the old
    call quoted, kept the signature alone, a diff whose every call raised TypeError (reader
    probe, 7 December 2026); which code is meant is not known. Read from the last block back,
    with the spans seen so far kept as sorted unions of intervals: linear in the blocks."""
    kept: list[Replace] = []
    shown_as_is, changed_later = _Spans(), _Spans()
    for placed in reversed(placements):
        changes = [replace.changes(file) for replace in placed]
        changing = [replace for replace, change in zip(placed, changes, strict=True) if change]
        taken_back = [shown_as_is.overlaps(replace) for replace in changing]
        if any(taken_back) and not all(taken_back):
            return None
        if not any(taken_back):
            kept.extend(changing)
        for replace, change in zip(placed, changes, strict=True):
            if change:
                changed_later.add(replace)
            elif not changed_later.overlaps(replace):
                # Not the "before" of a before/after pair ("I changed ```old``` into ```new```"
                # below the fix): that quote withdraws nothing.
                shown_as_is.add(replace)
    return kept


class _Spans:
    """A union of line spans, kept as sorted disjoint intervals: adding one and asking whether
    a span meets the union cost a bisection each, so reading thousands of blocks is linear."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def overlaps(self, replace: Replace) -> bool:
        at = bisect_left(self.ends, replace.lo)  # the first interval not wholly before it
        return at < len(self.starts) and self.starts[at] <= replace.hi

    def add(self, replace: Replace) -> None:
        starts, ends = self.starts, self.ends
        lo, hi = bisect_left(ends, replace.lo), bisect_right(starts, replace.hi)
        merged = (min([replace.lo, *starts[lo:hi]]), max([replace.hi, *ends[lo:hi]]))
        starts[lo:hi], ends[lo:hi] = [merged[0]], [merged[1]]
