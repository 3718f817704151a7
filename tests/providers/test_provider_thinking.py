"""A leading `<think>` block is kept out of the visible text however the stream splits it."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from rune_lsp.providers.thinking import InlineThinkingSplitter


def _run(pieces: list[str]) -> tuple[str, str]:
    splitter = InlineThinkingSplitter()
    visible = "".join(splitter.feed(p) for p in pieces) + splitter.finish()
    return visible, splitter.thinking


def _split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(c, len(text)) for c in cuts})
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def test_block_at_the_start_is_thinking() -> None:
    assert _run(["<think>plan</think>\n\nAnswer."]) == ("Answer.", "plan")


def test_text_without_a_block_passes_unchanged() -> None:
    assert _run(["Just ", "an answer."]) == ("Just an answer.", "")


def test_a_tag_later_in_the_answer_is_part_of_it() -> None:
    assert _run(["Use <think> tags", " like </think> this."]) == (
        "Use <think> tags like </think> this.",
        "",
    )


def test_unclosed_block_is_all_thinking() -> None:
    assert _run(["<think>still going when the length limit hit"]) == (
        "",
        "still going when the length limit hit",
    )


def test_a_lone_prefix_of_the_tag_is_text() -> None:
    assert _run(["<th"]) == ("<th", "")


def test_nothing_is_shown_before_it_is_known_to_be_visible() -> None:
    splitter = InlineThinkingSplitter()

    assert splitter.feed("  <thi") == ""
    assert splitter.feed("nk>x</thi") == ""
    assert splitter.feed("nk>  ") == ""
    assert splitter.feed("Hi") == "Hi"


_body = st.text(alphabet=st.characters(blacklist_characters="<>"), max_size=40)


@given(
    thinking=_body,
    answer=_body.filter(lambda a: a == a.lstrip()),
    cuts=st.lists(st.integers(min_value=0, max_value=120), max_size=8),
)
def test_any_split_of_a_thinking_answer(thinking: str, answer: str, cuts: list[int]) -> None:
    text = f"<think>{thinking}</think>\n\n{answer}"

    assert _run(_split(text, cuts)) == (answer, thinking)


@given(
    text=st.text(max_size=60).filter(lambda t: not t.lstrip().startswith("<")),
    cuts=st.lists(st.integers(min_value=0, max_value=60), max_size=8),
)
def test_any_split_of_a_plain_answer(text: str, cuts: list[int]) -> None:
    assert _run(_split(text, cuts)) == (text, "")
