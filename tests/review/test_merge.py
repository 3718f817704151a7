"""The three-way merge: changes a line apart combine, anything closer is a conflict (None)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rune_lsp.review import apply_hunks, compute_hunks, merge_texts, rebase_hunks
from rune_lsp.review.hunks import check_hunks

from .test_properties import texts

BASE = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"


def test_changes_to_different_functions_are_both_kept() -> None:
    ours = BASE.replace("return 1", "return 10")
    theirs = BASE.replace("return 2", "return 20")
    merged = "def a():\n    return 10\n\n\ndef b():\n    return 20\n"
    assert merge_texts(BASE, ours, theirs) == merged
    assert merge_texts(BASE, theirs, ours) == merged


def test_line_counts_that_change_on_one_side_shift_the_other() -> None:
    ours = BASE.replace("def a():\n", "import os\n\n\ndef a():\n")
    theirs = BASE.replace("    return 2\n", "")
    assert (
        merge_texts(BASE, ours, theirs) == "import os\n\n\ndef a():\n    return 1\n\n\ndef b():\n"
    )


def test_the_same_line_changed_on_both_sides_conflicts() -> None:
    ours = BASE.replace("return 1", "return 10")
    theirs = BASE.replace("return 1", "return 11")
    assert merge_texts(BASE, ours, theirs) is None


def test_adjacent_changes_conflict() -> None:
    ours = BASE.replace("def a():", "def a(x):")
    theirs = BASE.replace("return 1", "return 2")
    assert merge_texts(BASE, ours, theirs) is None


def test_two_insertions_at_one_place_conflict() -> None:
    ours = BASE.replace("\n\ndef b", "\nX = 1\n\ndef b")
    theirs = BASE.replace("\n\ndef b", "\nY = 2\n\ndef b")
    assert merge_texts(BASE, ours, theirs) is None


def test_an_identical_change_on_both_sides_conflicts() -> None:
    ours = BASE.replace("return 1", "return 10")
    assert merge_texts(BASE, ours, ours) is None


def test_crlf_and_a_missing_final_newline_survive() -> None:
    base = "a\r\nb\r\nc\r\nd"
    assert merge_texts(base, "A\r\nb\r\nc\r\nd", "a\r\nb\r\nc\r\nD") == "A\r\nb\r\nc\r\nD"


# --- properties ---------------------------------------------------------------------------------

#: Base lines are unique and replacements never occur in the base, so each side's diff is
#: exactly the change that was made and the expected merge is known.
REPLACEMENT = st.lists(st.sampled_from(["X\n", "Y\r\n", "😀\n", "\n"]), max_size=3)


@st.composite
def apart(draw: st.DrawFn) -> tuple[str, str, str, str]:
    """A base, two edits of it at least one unchanged line apart, and both applied."""
    head, first_len, gap, second_len, tail = (
        draw(st.integers(0, 4)),
        draw(st.integers(0, 4)),
        draw(st.integers(1, 4)),
        draw(st.integers(0, 4)),
        draw(st.integers(0, 4)),
    )
    lines = [f"line {i}\n" for i in range(head + first_len + gap + second_len + tail)]
    first_end = head + first_len
    second_start = first_end + gap
    second_end = second_start + second_len
    first, second = draw(REPLACEMENT), draw(REPLACEMENT)
    base = "".join(lines)
    ours = "".join(lines[:head] + first + lines[first_end:])
    theirs = "".join(lines[:second_start] + second + lines[second_end:])
    both = "".join(
        lines[:head] + first + lines[first_end:second_start] + second + lines[second_end:]
    )
    return base, ours, theirs, both


@settings(max_examples=400)
@given(apart(), st.booleans())
def test_edits_a_line_apart_merge_to_both_applied(
    case: tuple[str, str, str, str], swap: bool
) -> None:
    base, ours, theirs, both = case
    if swap:
        ours, theirs = theirs, ours
    assert merge_texts(base, ours, theirs) == both


@settings(max_examples=300)
@given(texts(), texts())
def test_one_unchanged_side_gives_the_other(base: str, other: str) -> None:
    assert merge_texts(base, base, other) == other
    assert merge_texts(base, other, base) == other


@settings(max_examples=300)
@given(texts(), texts(), texts())
def test_merge_is_symmetric(base: str, ours: str, theirs: str) -> None:
    assert merge_texts(base, ours, theirs) == merge_texts(base, theirs, ours)


@settings(max_examples=300)
@given(
    st.integers(0, 6),
    st.integers(0, 3),
    st.integers(0, 6),
    st.lists(st.sampled_from(["X\n", "Y\n"]), min_size=1, max_size=3),
    st.lists(st.sampled_from(["P\n", "Q\r\n"]), min_size=1, max_size=3),
)
def test_different_changes_to_the_same_lines_conflict(
    head: int, length: int, tail: int, mine: list[str], other: list[str]
) -> None:
    lines = [f"line {i}\n" for i in range(head + length + tail)]
    base = "".join(lines)
    ours = "".join(lines[:head] + mine + lines[head + length :])
    theirs = "".join(lines[:head] + other + lines[head + length :])
    assert merge_texts(base, ours, theirs) is None


# --- rebase_hunks: the one mechanism under merge_texts and a review following the typing --------


def test_a_hunk_moves_with_lines_typed_above_it_and_keeps_its_identity() -> None:
    hunks = compute_hunks(BASE, BASE.replace("return 2", "return 20"))
    typed = "import os\nimport sys\n" + BASE
    rebased = rebase_hunks(BASE, typed, hunks)
    [moved] = rebased.moved
    assert rebased.conflicts == ()
    assert (moved.index, moved.old_start, moved.old_text) == (0, 7, "    return 2\n")
    check_hunks(typed, rebased.moved)
    assert apply_hunks(typed, rebased.moved) == typed.replace("return 2", "return 20")


def test_only_the_hunk_a_change_touches_conflicts() -> None:
    proposal = BASE.replace("return 1", "return 10").replace("return 2", "return 20")
    hunks = compute_hunks(BASE, proposal)
    typed = BASE.replace("return 2", "return 3")
    rebased = rebase_hunks(BASE, typed, hunks)
    assert rebased.conflicts == (1,)
    assert [h.index for h in rebased.moved] == [0]
    assert apply_hunks(typed, rebased.moved) == typed.replace("return 1", "return 10")


@settings(max_examples=400)
@given(apart(), st.booleans())
def test_rebased_hunks_fit_the_changed_text_and_apply_exactly(
    case: tuple[str, str, str, str], swap: bool
) -> None:
    base, ours, theirs, both = case
    if swap:
        ours, theirs = theirs, ours
    rebased = rebase_hunks(base, ours, compute_hunks(base, theirs))
    assert rebased.conflicts == ()
    check_hunks(ours, rebased.moved)  # positions, offsets and text all still match
    assert apply_hunks(ours, rebased.moved) == both
    assert [h.new_start for h in rebased.moved] == [h.new_start for h in compute_hunks(ours, both)]


def test_adjacent_changes_move_a_hunk_instead_of_conflicting() -> None:
    base = "a\nb\nc\nd\n"
    [hunk] = compute_hunks(base, "a\nB\nc\nd\n")
    current = "a0\na1\nb\nC\nd\n"  # the line above replaced by two, the line below edited
    assert rebase_hunks(base, current, [hunk]).conflicts == (0,)
    rebased = rebase_hunks(base, current, [hunk], adjacent=True)
    assert rebased.conflicts == ()
    [moved] = rebased.moved
    assert (moved.old_start, moved.old_end) == (2, 3)
    assert apply_hunks(current, rebased.moved) == "a0\na1\nB\nC\nd\n"
    overlapping = "a\nb!\nc\nd\n"
    assert rebase_hunks(base, overlapping, [hunk], adjacent=True).conflicts == (0,)
