"""Per-hunk review: ids, partial accepts by line, following the user's typing, and the verdict."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rune_lsp.review import compute_hunks, reconcile
from rune_lsp.review.errors import LineSelectionError
from rune_lsp.review.hunk_review import Accepted, HunkReview, UnknownHunkError
from rune_lsp.review.hunks import changed_lines, keep_lines

from .samples import numbered
from .test_properties import text_pairs

OLD = numbered(50)
#: Three hunks: lines 10-12 replaced, line 25 replaced by three lines, line 40 replaced.
NEW = (
    OLD.replace("line 9\nline 10\nline 11\n", "nine\nten\neleven\n")
    .replace("line 24\n", "a\nb\nc\n")
    .replace("line 39\n", "thirty-nine\n")
)


def review() -> HunkReview:
    return HunkReview.start(OLD, NEW, follows=True)


def test_hunk_ids_are_their_numbers_and_one_accept_of_three_is_partial() -> None:
    state = review().resolve(1, "accept").resolve(2, "reject").resolve(3, "reject")
    assert state.done
    assert state.result_text() == OLD.replace("line 9\nline 10\nline 11\n", "nine\nten\neleven\n")
    outcome = state.verdict(landed=True)
    assert (outcome.status, outcome.kept, outcome.dropped) == ("partial", (0,), (1, 2))
    assert outcome.detail == (
        "partially applied: kept hunk 1 of 3 (lines 10-12); "
        "the user discarded hunks 2, 3 (lines 25, 40)."
    )


def test_a_rejection_reason_reaches_the_detail() -> None:
    outcome = (
        review()
        .resolve(2, "reject", reason="keep the debug print")
        .resolve_rest("accept")
        .verdict(landed=True)
    )
    assert outcome.status == "partial"
    assert "the user rejected hunk 2 of 3 (line 25): keep the debug print" in outcome.detail


def test_two_of_three_added_lines_of_one_hunk() -> None:
    hunk = review().pending_hunk(2)
    assert changed_lines(hunk) == [("-", "line 24\n"), ("+", "a\n"), ("+", "b\n"), ("+", "c\n")]
    state = review().resolve(2, "accept", lines=[1, 2, 4]).resolve(1, "reject").resolve(3, "reject")
    assert state.result_text() == OLD.replace("line 24\n", "a\nc\n")
    outcome = state.verdict(landed=True)
    assert outcome.status == "partial"
    assert "took effect -'line 24', +'a', +'c'; not +'b'" in outcome.detail


def test_an_unlisted_removed_line_stays_before_the_added_ones() -> None:
    hunk = compute_hunks("x\nold\ny\n", "x\nnew\ny\n")[0]
    assert keep_lines(hunk, [2]).new_text == "old\nnew\n"
    assert keep_lines(hunk, [1]).new_text == ""
    assert keep_lines(hunk, [1, 2]) is hunk


def test_a_line_without_terminator_gets_one_when_a_line_follows_it() -> None:
    hunk = compute_hunks("x\nold", "x\nnew")[0]
    assert keep_lines(hunk, [2]).new_text == "old\nnew"


@pytest.mark.parametrize("lines", [[0], [5], []])
def test_lines_a_hunk_does_not_have_are_refused_with_the_numbering(lines: list[int]) -> None:
    with pytest.raises(LineSelectionError, match=r"removed \(-\) lines first"):
        review().resolve(2, "accept", lines=lines)


def test_a_resolved_or_unknown_hunk_cannot_be_resolved() -> None:
    state = review().resolve(1, "accept")
    with pytest.raises(UnknownHunkError, match="pending: 2, 3"):
        state.resolve(1, "reject")
    with pytest.raises(UnknownHunkError):
        state.resolve(9, "accept")


def test_typing_above_moves_the_hunks_and_they_still_apply_exactly() -> None:
    typed = "# a comment\n# another\n" + OLD
    state = review().follow(typed)
    assert state.stale == ()
    assert [h.old_start for h in state.pending] == [11, 26, 41]
    assert state.resolve_rest("accept").result_text() == "# a comment\n# another\n" + NEW


def test_typing_inside_a_hunk_makes_only_that_hunk_stale() -> None:
    typed = OLD.replace("line 24\n", "line 24 (mine)\n")
    state = review().follow(typed)
    assert state.stale == (1,)
    assert [h.number for h in state.pending] == [1, 3]
    state = state.resolve_rest("accept")
    assert state.result_text() == NEW.replace("a\nb\nc\n", "line 24 (mine)\n")
    outcome = state.verdict(landed=True)
    assert outcome.status == "partial"
    assert "hunk 2 of 3 (line 25) is stale" in outcome.detail


def test_a_whole_file_write_goes_stale_on_any_change() -> None:
    state = HunkReview.start(OLD, NEW, follows=False).follow("# typed\n" + OLD)
    assert state.done and state.stale == (0, 1, 2)
    assert state.verdict(landed=False).status == "stale"


def test_everything_rejected_is_rejected_and_nothing_is_sent() -> None:
    state = review().resolve_rest("reject", reason="not now")
    assert state.chosen() == ()
    outcome = state.verdict(landed=False)
    assert outcome.status == "rejected"
    assert outcome.detail == (
        "rejected: the user rejected all 3 hunks (lines 10-12, 25, 40): not now. "
        "The file is unchanged."
    )
    mixed = review().resolve(1, "reject", reason="no").resolve_rest("reject", reason="later")
    assert mixed.verdict(landed=False).detail == (
        "rejected: the user rejected hunk 1 of 3 (lines 10-12): no; "
        "the user rejected hunk 2 of 3 (line 25): later; "
        "the user rejected hunk 3 of 3 (line 40): later. The file is unchanged."
    )


@settings(max_examples=300)
@given(text_pairs(), st.data())
def test_the_chosen_hunks_reconcile_as_exactly_what_was_accepted(
    pair: tuple[str, str], data: st.DataObject
) -> None:
    old, new = pair
    state = HunkReview.start(old, new, follows=True)
    for hunk in state.proposed:
        choice = data.draw(st.sampled_from(["accept", "reject", "lines"]))
        if choice == "lines":
            count = len(changed_lines(hunk))
            lines = data.draw(st.lists(st.integers(1, count), min_size=1, unique=True))
            state = state.resolve(hunk.number, "accept", lines=lines)
        else:
            state = state.resolve(hunk.number, choice)  # type: ignore[arg-type]
    assert state.done
    chosen = state.chosen()
    # What is sent is recognised as exactly those hunks having landed.
    assert reconcile(old, chosen, state.result_text()).kept == tuple(h.index for h in chosen)
    whole = all(state.resolutions[h.index] == Accepted() for h in state.proposed)
    assert (state.verdict(landed=True).status == "applied") == whole
