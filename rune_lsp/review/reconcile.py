"""What actually landed after the editor answered `applied: true` (docs/interface.md#mode-a).

VS Code's refactor preview lets the user untick hunks and still answers only true/false, so
the server compares the document afterwards with the proposal. Between hunks the text must be
unchanged; at each hunk it holds either the proposed text (kept), the original (dropped), or
some of its changed lines as `hunks.kept_text` makes them (the VS Code extension's inline
review takes that text from `rune.keepLines`). Walking the hunks in order and tracking the few
offsets in the result that are still possible decides this in one pass over the text instead
of trying all 2^n subsets.

The user may type elsewhere in the document while the review is open (the inline review keeps
the hunks in place). Then the text the edit landed on is one the document held meanwhile
(`typed`): the hunks are carried over onto it (review/merge) and the landing compared there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from rune_lsp.lines import split_lines
from rune_lsp.loop.state import PreparedEdit
from rune_lsp.review.hunks import Hunk, check_hunks, kept_text
from rune_lsp.review.merge import rebase_hunks
from rune_lsp.review.verdict import HunkFate, Reconciliation, verdict

_Normalizer = Callable[[str], str]

#: What the walk found at one hunk: True its proposed text, False its old text, or the changed
#: lines accepted (numbered as `hunks.LINE_NUMBERING` counts them) when only some were.
_Pick = bool | tuple[int, ...]
# A chain of picks, newest first: (pick, earlier picks) or None when empty.
# Sharing tails keeps the walk linear however many hunks there are.
_Choices = tuple[_Pick, "_Choices"] | None

#: Hunks with more changed lines than this are matched whole only (old or new), never line by line.
MAX_CHOSEN_LINES = 400
#: How many of the texts typed during the review are tried as the one the edit landed on.
MAX_TYPED_TEXTS = 8
_TYPED_NOTE = "the user also changed other lines meanwhile; those changes are the user's own"
_CONVERTED_NOTE = "line endings were converted by the editor"


def reconcile(
    old_text: str | None,
    hunks: Sequence[Hunk],
    result_text: str | None,
    *,
    typed: Sequence[str | None] = (),
) -> Reconciliation:
    """Classify `result_text` against the proposal that turned `old_text` into hunks.

    `old_text` None means the edit created the file; `result_text` None means there is no
    file afterwards. `typed`: the texts the document held after the proposal, oldest first
    (the user's typing, maybe the landing itself). Raises HunkMismatchError when the hunks do
    not belong to `old_text`.
    """
    base = "" if old_text is None else old_text
    check_hunks(base, hunks)
    if result_text is None:
        if old_text is None:
            detail = "rejected: the user declined creating the file; it does not exist."
            dropped = tuple(hunk.index for hunk in hunks)
            return Reconciliation(status="rejected", kept=(), dropped=dropped, detail=detail)
        return _stale("the file no longer exists")
    found = _landing(base, hunks, result_text, proposed=hunks)
    if found is None and old_text is not None:
        found = _landing_after_typing(base, hunks, result_text, typed)
    if found is None:
        return _stale("the document changed in another way than the proposal")
    if old_text is None and found.status == "rejected":
        detail = "rejected: the user discarded the content; the file was created empty."
        return Reconciliation(status="rejected", kept=(), dropped=found.dropped, detail=detail)
    return found


def _landing_after_typing(
    base: str, hunks: Sequence[Hunk], result: str, typed: Sequence[str | None]
) -> Reconciliation | None:
    """The landing compared on a text the user typed meanwhile, newest first; one where no
    hunk had to go stale wins (an earlier text may precede a landing that came in parts)."""
    tried: set[str] = {base, result}
    first: Reconciliation | None = None
    for text in reversed(typed):
        if text is None or text in tried:
            continue
        tried.add(text)
        if len(tried) - 2 > MAX_TYPED_TEXTS:
            break
        rebased = rebase_hunks(base, text, hunks, adjacent=True)
        found = _landing(
            text, rebased.moved, result, proposed=hunks, stale=rebased.conflicts, note=_TYPED_NOTE
        )
        if found is not None and not rebased.conflicts:
            return found
        first = first or found
    return first


def _landing(
    before: str,
    placed: Sequence[Hunk],
    result: str,
    *,
    proposed: Sequence[Hunk],
    stale: Sequence[int] = (),
    note: str = "",
) -> Reconciliation | None:
    """The verdict if `result` is `before` with the `placed` hunks (on `before`) landed in
    whole, in part or not at all; `stale` hunks could not land. None when it is not."""
    segments = _unchanged_segments(before, placed)
    for norm, why in ((_identity, ""), (_unify_line_endings, _CONVERTED_NOTE)):
        # Editors convert inserted line endings to the document's own (VS Code does): a
        # proposal with "\n" in a CRLF file lands with "\r\n" and is still the proposal.
        picks = _match(segments, placed, result, norm)
        if picks is not None:
            fates = [_fate(hunk, pick) for hunk, pick in zip(placed, picks, strict=True)]
            fates += [HunkFate(index=index, landed=False, stale=True) for index in stale]
            fates.sort(key=lambda fate: fate.index)
            return verdict(proposed, fates, note="; ".join(filter(None, (why, note))))
    return None


def _fate(hunk: Hunk, pick: _Pick) -> HunkFate:
    if isinstance(pick, bool):
        return HunkFate(index=hunk.index, landed=pick)
    return HunkFate(index=hunk.index, landed=True, lines=pick)


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
) -> tuple[_Pick, ...] | None:
    """What landed of each hunk if `result` is the old text with the hunks landed (whole, in
    part or not at all), else None."""
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
            for end, pick in _pieces(hunk, text, offset, norm):
                if text.startswith(following, end):
                    reached.setdefault(end + len(following), (pick, chain))
        if not reached:
            return None
        states = reached
    if len(text) not in states:
        return None
    return _picks(states[len(text)])


def _pieces(hunk: Hunk, text: str, offset: int, norm: _Normalizer) -> Iterator[tuple[int, _Pick]]:
    """Where what landed of `hunk` may end in `text` from `offset`: its proposed text first,
    then its old text, then some of its changed lines."""
    new, old = norm(hunk.new_text), norm(hunk.old_text)
    if text.startswith(new, offset):
        yield offset + len(new), True
    if text.startswith(old, offset):
        yield offset + len(old), False
    yield from _chosen(old, new, text, offset)


def _chosen(old: str, new: str, text: str, offset: int) -> Iterator[tuple[int, _Pick]]:
    """Ends of `text` from `offset` reached by accepting some, not all, of the changed lines
    (`hunks.kept_text`: the old lines not removed, then the new lines added), with their
    numbers. The walk over lines proposes; `kept_text` itself confirms each end, so the rule
    is the one every review uses."""
    pieces = [*split_lines(old), *split_lines(new)]
    removed = len(split_lines(old))
    if not 2 <= len(pieces) <= MAX_CHOSEN_LINES:
        return
    states: dict[int, tuple[int, ...]] = {offset: ()}
    for number, piece in enumerate(pieces, start=1):
        reached: dict[int, tuple[int, ...]] = {}
        for at, chosen in states.items():
            # Accepted, a removed line leaves nothing and an added line is there; not
            # accepted, the other way round.
            there, gone = (
                (chosen, (*chosen, number))
                if number <= removed
                else (
                    (*chosen, number),
                    chosen,
                )
            )
            reached.setdefault(at, gone)
            for end in _line_ends(text, at, piece):
                reached.setdefault(end, there)
        states = reached
    for chosen in states.values():
        if 0 < len(chosen) < len(pieces):
            landed = kept_text(old, new, chosen)
            if text.startswith(landed, offset):
                yield offset + len(landed), chosen


def _line_ends(text: str, at: int, line: str) -> tuple[int, ...]:
    """Where `line` ends if it stands in `text` at `at`. A last line without a terminator may
    have got one, because another line follows it now (`hunks.kept_text`)."""
    if not text.startswith(line, at):
        return ()
    end = at + len(line)
    if line.endswith(("\n", "\r")):
        return (end,)
    for terminator in ("\r\n", "\n", "\r"):
        if text.startswith(terminator, end):
            return (end, end + len(terminator))
    return (end,)


def _picks(chain: _Choices) -> tuple[_Pick, ...]:
    picks: list[_Pick] = []
    while chain is not None:
        pick, chain = chain
        picks.append(pick)
    picks.reverse()
    return tuple(picks)


def _stale(why: str) -> Reconciliation:
    detail = (
        f"stale: {why}, so it matches neither the proposal nor any part of it. "
        "Read the file again before proposing a new edit."
    )
    return Reconciliation(status="stale", kept=(), dropped=(), detail=detail)


def typed_over_verdict(
    change: PreparedEdit, hunks: Sequence[Hunk], current: str | None
) -> Reconciliation | None:
    """The verdict on an edit the editor did not apply while the user's typing overlapped or
    touched some of its hunks (those are stale, the rest not applied), or None when the typing
    kept away from every hunk. A `write_file` states the whole file: any change is in its way."""
    if current is None or change.old_text is None or change.tool != "edit_file":
        conflicts = {hunk.index for hunk in hunks}
    else:
        conflicts = set(rebase_hunks(change.old_text, current, hunks).conflicts)
    if not conflicts:
        return None
    fates = [HunkFate(hunk.index, landed=False, stale=hunk.index in conflicts) for hunk in hunks]
    return verdict(hunks, fates)
