"""What actually landed after the editor answered `applied: true` (docs/interface.md#mode-a).

VS Code's refactor preview lets the user untick hunks and still answers only true/false, so
the server compares the document afterwards with the proposal. Between hunks the text must be
unchanged; at each hunk it holds either the proposed text (kept) or the original (dropped).
Walking the hunks in order and tracking the few offsets in the result that are still possible
decides this in one pass over the text instead of trying all 2^n subsets.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from rune_lsp.review.hunks import Hunk, check_hunks

ReconcileStatus = Literal["applied", "partial", "rejected", "stale"]
_Normalizer = Callable[[str], str]

# A chain of keep/drop choices, newest first: (kept?, earlier choices) or None when empty.
# Sharing tails keeps the walk linear however many hunks there are.
_Choices = tuple[bool, "_Choices"] | None


@dataclass(frozen=True, slots=True)
class Reconciliation:
    """The verdict on one edit; `detail` is written for the model."""

    status: ReconcileStatus
    kept: tuple[int, ...]  # hunk indexes (0-based) whose proposed text is in the result
    dropped: tuple[int, ...]  # hunk indexes the user discarded
    detail: str


def reconcile(
    old_text: str | None, hunks: Sequence[Hunk], result_text: str | None
) -> Reconciliation:
    """Classify `result_text` against the proposal that turned `old_text` into hunks.

    `old_text` None means the edit created the file; `result_text` None means there is no
    file afterwards. Raises HunkMismatchError when the hunks do not belong to `old_text`.
    """
    base = "" if old_text is None else old_text
    check_hunks(base, hunks)
    if result_text is None:
        if old_text is None:
            detail = "rejected: the user declined creating the file; it does not exist."
            dropped = tuple(hunk.index for hunk in hunks)
            return Reconciliation(status="rejected", kept=(), dropped=dropped, detail=detail)
        return _stale("the file no longer exists")
    segments = _unchanged_segments(base, hunks)
    choices = _match(segments, hunks, result_text, _identity)
    note = ""
    if choices is None:
        # Editors convert inserted line endings to the document's own (VS Code does): a
        # proposal with "\n" in a CRLF file lands with "\r\n" and is still the proposal.
        choices = _match(segments, hunks, result_text, _unify_line_endings)
        note = "line endings were converted by the editor"
    if choices is None:
        return _stale("the document changed in another way than the proposal")
    verdict = _verdict(hunks, choices, note=note)
    if old_text is None and verdict.status == "rejected":
        detail = "rejected: the user discarded the content; the file was created empty."
        return Reconciliation(status="rejected", kept=(), dropped=verdict.dropped, detail=detail)
    return verdict


def _unchanged_segments(base: str, hunks: Sequence[Hunk]) -> list[str]:
    """The old text before, between and after the hunks (one more than there are hunks)."""
    segments: list[str] = []
    position = 0
    for hunk in hunks:
        segments.append(base[position : hunk.old_offset])
        position = hunk.old_offset + len(hunk.old_text)
    segments.append(base[position:])
    return segments


def _identity(text: str) -> str:
    return text


def _unify_line_endings(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _match(
    segments: Sequence[str],
    hunks: Sequence[Hunk],
    result: str,
    norm: _Normalizer,
) -> tuple[int, ...] | None:
    """The kept hunk indexes if `result` is the old text with some hunks applied, else None."""
    text = norm(result)
    first = norm(segments[0])
    if not text.startswith(first):
        return None
    # offset in the result -> how we got there; different choices rarely reach one offset
    states: dict[int, _Choices] = {len(first): None}
    for hunk, after in zip(hunks, segments[1:], strict=True):
        following = norm(after)
        reached: dict[int, _Choices] = {}
        for offset, chain in states.items():
            for kept, piece in ((True, norm(hunk.new_text)), (False, norm(hunk.old_text))):
                after_piece = offset + len(piece)
                if text.startswith(piece, offset) and text.startswith(following, after_piece):
                    reached.setdefault(after_piece + len(following), (kept, chain))
        if not reached:
            return None
        states = reached
    if len(text) not in states:
        return None
    return _kept_indexes(hunks, states[len(text)])


def _kept_indexes(hunks: Sequence[Hunk], chain: _Choices) -> tuple[int, ...]:
    flags: list[bool] = []
    while chain is not None:
        kept, chain = chain
        flags.append(kept)
    flags.reverse()
    return tuple(hunk.index for hunk, kept in zip(hunks, flags, strict=True) if kept)


def _verdict(hunks: Sequence[Hunk], kept: tuple[int, ...], *, note: str) -> Reconciliation:
    kept_set = set(kept)
    dropped = tuple(hunk.index for hunk in hunks if hunk.index not in kept_set)
    total = len(hunks)
    suffix = f" ({note})" if note else ""
    if not dropped:
        status: ReconcileStatus = "applied"
        detail = f"applied: the user accepted the whole edit{suffix}."
        if total:
            detail = (
                f"applied: the user accepted the whole edit "
                f"({_count(total)}, {_where(hunks, kept)}){suffix}."
            )
    elif not kept:
        status = "rejected"
        detail = (
            f"rejected: the user discarded {_all(total)} ({_where(hunks, dropped)}); "
            f"the file is unchanged{suffix}."
        )
    else:
        status = "partial"
        detail = (
            f"partially applied: kept {_numbers(kept)} of {total} ({_where(hunks, kept)}); "
            f"the user discarded {_numbers(dropped)} ({_where(hunks, dropped)}){suffix}."
        )
    return Reconciliation(status=status, kept=kept, dropped=dropped, detail=detail)


def _stale(why: str) -> Reconciliation:
    detail = (
        f"stale: {why}, so it matches neither the proposal nor any part of it. "
        "Read the file again before proposing a new edit."
    )
    return Reconciliation(status="stale", kept=(), dropped=(), detail=detail)


def _count(total: int) -> str:
    return f"{total} hunk" if total == 1 else f"{total} hunks"


def _all(total: int) -> str:
    return "the only hunk" if total == 1 else f"all {total} hunks"


def _numbers(indexes: Sequence[int]) -> str:
    """`hunk 2` or `hunks 1, 3` (1-based, as people count)."""
    word = "hunk" if len(indexes) == 1 else "hunks"
    return f"{word} " + ", ".join(str(index + 1) for index in indexes)


def _where(hunks: Sequence[Hunk], indexes: Sequence[int]) -> str:
    """The old-file lines of the given hunks: `lines 10-12, 40` or `line 25`."""
    by_index = {hunk.index: hunk for hunk in hunks}
    spans = [_lines(by_index[index]) for index in indexes]
    single = len(spans) == 1 and "-" not in spans[0]
    return ("line " if single else "lines ") + ", ".join(spans)


def _lines(hunk: Hunk) -> str:
    first, last = hunk.old_start + 1, hunk.old_end
    # An insertion replaces no line: name the line it goes before.
    return str(first) if last <= first else f"{first}-{last}"
