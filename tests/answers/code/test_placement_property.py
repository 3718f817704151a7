"""Issue 24: random block answers are placed exactly (the file becomes the intended one, byte
for byte) or refused; never placed wrongly. The split is printed by bench/reading.py."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from rune_lsp.answers.code.reading import read_code
from tests.answers.code.random_answers import RandomCase, case

PATH = "prog.py"


def outcome(random_case: RandomCase) -> str:
    """`placed` (exactly), `refused` (refused, unchanged or nothing) or `wrong`."""
    reading = read_code(random_case.answer, {PATH: random_case.before}, PATH)
    if not reading.edits:
        return "refused"
    text = random_case.before
    for edit in reading.edits:
        if edit.path != PATH or text.count(edit.old_text) != 1:
            return "wrong"
        text = text.replace(edit.old_text, edit.new_text)
    return "placed" if text == random_case.after else "wrong"


@settings(max_examples=2000, deadline=None, derandomize=True)
@given(st.integers(min_value=0, max_value=2**32))
def test_a_random_block_answer_is_placed_exactly_or_refused(seed: int) -> None:
    random_case = case(seed)
    assert outcome(random_case) != "wrong", (
        f"seed {seed}, {random_case.rendering}\n--- file\n{random_case.before!r}\n"
        f"--- answer\n{random_case.answer}\n--- intended\n{random_case.after!r}"
    )


def test_most_random_answers_are_placed() -> None:
    # A reader that refused everything would pass the test above.
    split = Counter(outcome(case(seed)) for seed in range(500))
    assert split["wrong"] == 0, split
    assert split["placed"] >= 0.5 * sum(split.values()), split
