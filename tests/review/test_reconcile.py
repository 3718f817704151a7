from __future__ import annotations

import random

import pytest

from rune_lsp.review import HunkMismatchError, apply_hunks, compute_hunks, reconcile
from rune_lsp.review.hunks import kept_text

from .samples import numbered

OLD = numbered(50)
NEW = (
    OLD.replace("line 9\nline 10\nline 11\n", "nine\nten\neleven\n")
    .replace("line 24\n", "twenty-four\n")
    .replace("line 39\n", "thirty-nine\n")
)
HUNKS = compute_hunks(OLD, NEW)


def test_three_hunks_in_the_sample() -> None:
    assert [(h.old_start, h.old_end) for h in HUNKS] == [(9, 12), (24, 25), (39, 40)]


def test_everything_landed_is_applied() -> None:
    verdict = reconcile(OLD, HUNKS, NEW)
    assert (verdict.status, verdict.kept, verdict.dropped) == ("applied", (0, 1, 2), ())
    assert verdict.detail == (
        "applied: the user accepted the whole edit (3 hunks, lines 10-12, 25, 40)."
    )


def test_some_hunks_landed_is_partial_and_names_both_sides() -> None:
    verdict = reconcile(OLD, HUNKS, apply_hunks(OLD, HUNKS, keep=[0, 2]))
    assert (verdict.status, verdict.kept, verdict.dropped) == ("partial", (0, 2), (1,))
    assert verdict.detail == (
        "partially applied: kept hunks 1, 3 of 3 (lines 10-12, 40); "
        "the user discarded hunk 2 (line 25)."
    )


def test_nothing_landed_is_rejected() -> None:
    verdict = reconcile(OLD, HUNKS, OLD)
    assert (verdict.status, verdict.kept, verdict.dropped) == ("rejected", (), (0, 1, 2))
    assert verdict.detail.startswith("rejected: the user discarded all 3 hunks")


def test_a_document_changed_otherwise_is_stale() -> None:
    typed_meanwhile = NEW.replace("line 30\n", "someone typed here\n")
    verdict = reconcile(OLD, HUNKS, typed_meanwhile)
    assert (verdict.status, verdict.kept, verdict.dropped) == ("stale", (), ())
    assert "Read the file again" in verdict.detail


def test_a_hunk_that_landed_line_by_line_is_partial_and_names_the_lines() -> None:
    # A per-line accept (`kept_text`, the rule `rune.keepLines` gives every client): line 9
    # removed and "nine" added; lines 10 and 11 stay, and "ten", "eleven" are not added.
    half = NEW.replace("nine\nten\neleven\n", "line 10\nline 11\nnine\n")
    verdict = reconcile(OLD, HUNKS, half)
    assert (verdict.status, verdict.kept, verdict.dropped) == ("partial", (0, 1, 2), ())
    assert verdict.detail.startswith(
        "partially applied: kept part of hunk 1 of 3 (lines 10-12): took effect "
        "-'line 9', +'nine'; not -'line 10', -'line 11', +'ten', +'eleven'; kept hunk 2 of 3"
    )


def test_what_keep_lines_makes_is_read_back_as_those_lines() -> None:
    hunk = HUNKS[0]
    for lines in ([1], [4], [1, 2, 4, 5], [3, 6], [1, 2, 3, 4]):
        landed = OLD.replace(hunk.old_text, kept_text(hunk.old_text, hunk.new_text, lines))
        verdict = reconcile(OLD, HUNKS, landed)
        assert verdict.status == "partial", lines
        assert verdict.kept == (0,), lines


def test_two_of_three_lines_with_another_hunk_discarded() -> None:
    landed = OLD.replace("line 9\nline 10\nline 11\n", "line 11\nnine\nten\n").replace(
        "line 39\n", "thirty-nine\n"
    )
    verdict = reconcile(OLD, HUNKS, landed)
    assert (verdict.status, verdict.kept, verdict.dropped) == ("partial", (0, 2), (1,))
    assert "kept part of hunk 1 of 3" in verdict.detail
    assert "the user rejected hunk 2 of 3 (line 25)" in verdict.detail


def test_a_hunk_landed_halfway_into_a_line_is_stale() -> None:
    assert reconcile(OLD, HUNKS, OLD.replace("line 9\n", "nine")).status == "stale"


def test_typing_above_the_hunks_then_accepting_them_is_applied() -> None:
    typed = ["# a\n" + OLD, "# a comment\n" + OLD]
    verdict = reconcile(OLD, HUNKS, "# a comment\n" + NEW, typed=typed)
    assert (verdict.status, verdict.kept, verdict.dropped) == ("applied", (0, 1, 2), ())
    assert verdict.detail == (
        "applied: the user accepted the whole edit (3 hunks, lines 10-12, 25, 40) "
        "(the user also changed other lines meanwhile; those changes are the user's own)."
    )


def test_typing_between_hunks_then_a_partial_accept_is_partial() -> None:
    typed = OLD.replace("line 30\n", "line 30 typed\n")
    landed = typed.replace("line 24\n", "twenty-four\n").replace(
        "line 9\nline 10\nline 11\n", "line 10\nline 11\nnine\n"
    )
    verdict = reconcile(OLD, HUNKS, landed, typed=[typed])
    assert (verdict.status, verdict.kept, verdict.dropped) == ("partial", (0, 1), (2,))
    assert "kept part of hunk 1 of 3" in verdict.detail


def test_typing_on_a_hunk_makes_that_hunk_stale_and_the_rest_counts() -> None:
    typed = OLD.replace("line 24\n", "line 24 by hand\n")
    landed = typed.replace("line 39\n", "thirty-nine\n")
    verdict = reconcile(OLD, HUNKS, landed, typed=[typed])
    assert (verdict.status, verdict.kept) == ("partial", (2,))
    assert "hunk 2 of 3 (line 25) is stale" in verdict.detail
    assert "the user rejected hunk 1 of 3" in verdict.detail


def test_the_text_before_a_landing_in_two_parts_is_found() -> None:
    # Two didChange notifications for one landing: the text between them is no typing.
    typed = "# a\n" + OLD
    midway = typed.replace("line 24\n", "twenty-four\n")
    verdict = reconcile(OLD, HUNKS, "# a\n" + NEW, typed=[typed, midway])
    assert verdict.status == "applied"


def test_typing_without_the_text_it_was_typed_on_is_stale() -> None:
    assert reconcile(OLD, HUNKS, "# a comment\n" + NEW).status == "stale"


def test_extra_text_at_the_end_is_stale() -> None:
    assert reconcile(OLD, HUNKS, NEW + "more\n").status == "stale"
    assert reconcile(OLD, HUNKS, NEW[:-1]).status == "stale"


def test_a_deleted_file_is_stale() -> None:
    assert reconcile(OLD, HUNKS, None).status == "stale"


def test_line_endings_converted_by_the_editor_still_count_as_the_proposal() -> None:
    old = OLD.replace("\n", "\r\n")
    proposal = compute_hunks(old, old.replace("line 3\r\n", "three\n"))
    verdict = reconcile(old, proposal, old.replace("line 3\r\n", "three\r\n"))
    assert verdict.status == "applied"
    assert "line endings were converted" in verdict.detail


def test_new_file_created_is_applied() -> None:
    hunks = compute_hunks("", "a\nb\n")
    assert reconcile(None, hunks, "a\nb\n").status == "applied"


def test_new_file_not_created_is_rejected() -> None:
    verdict = reconcile(None, compute_hunks("", "a\n"), None)
    assert (verdict.status, verdict.dropped) == ("rejected", (0,))
    assert "does not exist" in verdict.detail


def test_new_file_created_without_its_content_is_rejected_and_says_so() -> None:
    verdict = reconcile(None, compute_hunks("", "a\n"), "")
    assert verdict.status == "rejected"
    assert "created empty" in verdict.detail


def test_an_edit_without_hunks_is_applied_when_nothing_changed() -> None:
    assert reconcile("same\n", (), "same\n").status == "applied"
    assert reconcile("same\n", (), "other\n").status == "stale"


def test_insertion_next_to_identical_lines_is_told_apart() -> None:
    old = "x\nx\n"
    hunks = compute_hunks(old, "x\nx\nx\n")
    assert reconcile(old, hunks, "x\nx\nx\n").status == "applied"
    assert reconcile(old, hunks, old).status == "rejected"


def test_hunks_of_another_text_are_refused() -> None:
    with pytest.raises(HunkMismatchError):
        reconcile("something else\n", HUNKS, NEW)


def test_a_thousand_hunks_in_a_big_file_are_sorted_out() -> None:
    lines = numbered(20_000).splitlines(keepends=True)
    old = "".join(lines)
    for k in range(5, 20_000, 20):
        lines[k] = f"changed {k}\n"
    hunks = compute_hunks(old, "".join(lines))
    assert len(hunks) == 1000
    keep = sorted(random.Random(3).sample(range(1000), 600))
    verdict = reconcile(old, hunks, apply_hunks(old, hunks, keep=keep))
    assert verdict.status == "partial"
    assert verdict.kept == tuple(keep)


def test_typing_right_next_to_a_hunk_moves_it_as_the_inline_review_does() -> None:
    above = OLD.replace("line 8\n", "line 8 edited\nand one more\n")  # the line above hunk 1
    below = above.replace("line 12\n", "line 12 edited\n")  # the line below it
    landed = below.replace("line 9\nline 10\nline 11\n", "nine\nten\neleven\n")
    verdict = reconcile(OLD, HUNKS, landed, typed=[above, below])
    assert (verdict.status, verdict.kept, verdict.dropped) == ("partial", (0,), (1, 2))
