from __future__ import annotations

import pytest

from rune_lsp.review import HunkMismatchError, apply_hunks, compute_hunks
from rune_lsp.review.hunks import Hunk, check_hunks

from .samples import numbered


def shape(hunks: tuple[Hunk, ...]) -> list[tuple[int, int, int, int, str, str]]:
    return [(h.old_start, h.old_end, h.new_start, h.new_end, h.old_text, h.new_text) for h in hunks]


def test_identical_texts_have_no_hunks() -> None:
    assert compute_hunks("a\nb\n", "a\nb\n") == ()
    assert compute_hunks("", "") == ()


def test_one_replaced_line_is_one_hunk_of_that_line() -> None:
    hunks = compute_hunks("a\nb\nc\n", "a\nB\nc\n")
    assert shape(hunks) == [(1, 2, 1, 2, "b\n", "B\n")]
    assert hunks[0].index == 0 and hunks[0].number == 1
    assert hunks[0].old_offset == 2


def test_separate_changes_are_separate_hunks_with_shifted_new_lines() -> None:
    old = numbered(12)
    new = (
        old.replace("line 1\n", "one\nuno\n")  # 1 line -> 2
        .replace("line 5\n", "")  # deleted
        .replace("line 9\n", "line 9\nnine\n")  # inserted after line 9
    )
    hunks = compute_hunks(old, new)
    assert shape(hunks) == [
        (1, 2, 1, 3, "line 1\n", "one\nuno\n"),
        (5, 6, 6, 6, "line 5\n", ""),
        (10, 10, 10, 11, "", "nine\n"),
    ]
    assert [h.index for h in hunks] == [0, 1, 2]
    assert apply_hunks(old, hunks) == new


def test_new_file_is_one_insertion_at_the_start() -> None:
    assert shape(compute_hunks("", "a\nb")) == [(0, 0, 0, 2, "", "a\nb")]


def test_emptied_file_is_one_deletion_of_everything() -> None:
    assert shape(compute_hunks("a\nb\n", "")) == [(0, 2, 0, 0, "a\nb\n", "")]


def test_pure_insertion_and_deletion_at_both_ends() -> None:
    assert shape(compute_hunks("b\n", "a\nb\n")) == [(0, 0, 0, 1, "", "a\n")]
    assert shape(compute_hunks("a\n", "a\nb\n")) == [(1, 1, 1, 2, "", "b\n")]
    assert shape(compute_hunks("a\nb\n", "b\n")) == [(0, 1, 0, 0, "a\n", "")]
    assert shape(compute_hunks("a\nb\n", "a\n")) == [(1, 2, 1, 1, "b\n", "")]


def test_adding_or_removing_the_final_newline_changes_the_last_line() -> None:
    assert shape(compute_hunks("a\nb", "a\nb\n")) == [(1, 2, 1, 2, "b", "b\n")]
    assert shape(compute_hunks("a\nb\n", "a\nb")) == [(1, 2, 1, 2, "b\n", "b")]
    assert shape(compute_hunks("a\nb", "a\nb\nc")) == [(1, 2, 1, 3, "b", "b\nc")]


def test_crlf_endings_are_kept_in_hunks() -> None:
    hunks = compute_hunks("a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n")
    assert shape(hunks) == [(1, 2, 1, 2, "b\r\n", "B\r\n")]


def test_a_changed_line_ending_is_a_change() -> None:
    hunks = compute_hunks("a\r\nb\r\nc\r\n", "a\r\nb\nc\r\n")
    assert shape(hunks) == [(1, 2, 1, 2, "b\r\n", "b\n")]


def test_carriage_return_only_lines_count_as_lines() -> None:
    hunks = compute_hunks("a\rb\rc", "a\rX\rc")
    assert shape(hunks) == [(1, 2, 1, 2, "b\r", "X\r")]


def test_crlf_split_between_prefix_and_change_is_not_torn_apart() -> None:
    # The texts agree up to and including "\r"; the old "\r\n" is one line, the new "\r" another.
    hunks = compute_hunks("x\r\ny\n", "x\rz\n")
    assert apply_hunks("x\r\ny\n", hunks) == "x\rz\n"
    assert all(h.old_offset == 0 for h in hunks)


def test_one_change_in_a_big_file_is_found_exactly() -> None:
    old = numbered(100_000)
    new = old.replace("line 54321\n", "changed\n")
    hunks = compute_hunks(old, new)
    assert shape(hunks) == [(54321, 54322, 54321, 54322, "line 54321\n", "changed\n")]


def test_scattered_changes_in_a_big_file_each_get_their_own_hunk() -> None:
    lines = numbered(20_000).splitlines(keepends=True)
    changed = sorted(range(7, 20_000, 97))
    for k in changed:
        lines[k] = f"edited {k}\n"
    hunks = compute_hunks(numbered(20_000), "".join(lines))
    assert [(h.old_start, h.old_end) for h in hunks] == [(k, k + 1) for k in changed]


def test_a_block_deleted_from_repetitive_code_stays_one_deletion() -> None:
    # Stubs that all look alike: a wrong alignment agrees for a few lines, then drifts.
    stub = "    @abstractmethod\n    def {0}(self) -> None:\n        pass\n\n"
    names = [f"method_{k}" for k in range(30)]
    old = "".join(stub.format(name) for name in names)
    new = "".join(stub.format(name) for name in names if name != "method_7")
    hunks = compute_hunks(old, new)
    assert len(hunks) == 1
    assert hunks[0].new_text == ""
    assert apply_hunks(old, hunks) == new


def test_a_large_rewrite_in_the_middle_is_one_hunk() -> None:
    # Bigger than the quick small-edit search: goes through the windowed exact diff.
    old = numbered(400)
    new_block = "".join(f"rewritten {k}\n" for k in range(120))
    lines = old.splitlines(keepends=True)
    new = "".join(lines[:150]) + new_block + "".join(lines[230:])
    hunks = compute_hunks(old, new)
    assert shape(hunks) == [(150, 230, 150, 270, "".join(lines[150:230]), new_block)]


def test_apply_hunks_keeps_only_the_chosen_ones() -> None:
    old = "a\nb\nc\nd\ne\n"
    new = "A\nb\nc\nd\nE\n"
    hunks = compute_hunks(old, new)
    assert len(hunks) == 2
    assert apply_hunks(old, hunks, keep=[0]) == "A\nb\nc\nd\ne\n"
    assert apply_hunks(old, hunks, keep=[1]) == "a\nb\nc\nd\nE\n"
    assert apply_hunks(old, hunks, keep=[]) == old
    assert apply_hunks(old, hunks) == new


def test_hunks_from_another_text_are_refused() -> None:
    hunks = compute_hunks("a\nb\nc\n", "a\nB\nc\n")
    with pytest.raises(HunkMismatchError, match="hunk 1"):
        apply_hunks("a\nx\nc\n", hunks)
    with pytest.raises(HunkMismatchError):
        check_hunks("a\n", hunks)
