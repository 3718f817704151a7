"""Properties of hunks and reconcile over generated texts (CRLF, CR, emoji, no final newline)."""

from __future__ import annotations

import random
from itertools import pairwise

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rune_lsp.lines import split_lines
from rune_lsp.review import Hunk, apply_hunks, compute_hunks, reconcile
from rune_lsp.review.hunks import kept_text

LINES = st.sampled_from(
    ["a\n", "b\n", "c\n", "\n", "}\n", "x\r\n", "y\r", "😀 z\n", "a longer line of text\n"]
)
TAILS = st.sampled_from(["", "", "end", "😀"])


@st.composite
def texts(draw: st.DrawFn) -> str:
    return "".join(draw(st.lists(LINES, max_size=25))) + draw(TAILS)


@st.composite
def text_pairs(draw: st.DrawFn) -> tuple[str, str]:
    """An old text and a new one made from it by a few edits (or an unrelated one)."""
    old_lines = draw(st.lists(LINES, max_size=25))
    old = "".join(old_lines) + draw(TAILS)
    if draw(st.booleans()):
        return old, draw(texts())
    new_lines = list(old_lines)
    for _ in range(draw(st.integers(0, 5))):
        at = draw(st.integers(0, len(new_lines)))
        action = draw(st.sampled_from(["insert", "delete", "replace"]))
        if action == "insert":
            new_lines[at:at] = draw(st.lists(LINES, min_size=1, max_size=6))
        elif action == "delete":
            del new_lines[at : at + draw(st.integers(1, 6))]
        else:
            new_lines[at : at + draw(st.integers(1, 3))] = draw(st.lists(LINES, max_size=3))
    return old, "".join(new_lines) + draw(TAILS)


@settings(max_examples=400)
@given(text_pairs())
def test_applying_all_hunks_gives_the_new_text(pair: tuple[str, str]) -> None:
    old, new = pair
    assert apply_hunks(old, compute_hunks(old, new)) == new


@settings(max_examples=300)
@given(text_pairs())
def test_hunks_are_ordered_apart_and_describe_their_lines(pair: tuple[str, str]) -> None:
    old, new = pair
    hunks = compute_hunks(old, new)
    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    for before, after in pairwise(hunks):
        assert after.old_start > before.old_end  # at least one unchanged line between
    for k, hunk in enumerate(hunks):
        assert hunk.index == k
        assert hunk.old_text or hunk.new_text
        assert hunk.old_text == "".join(old_lines[hunk.old_start : hunk.old_end])
        assert hunk.new_text == "".join(new_lines[hunk.new_start : hunk.new_end])
        assert old.startswith(hunk.old_text, hunk.old_offset)


@settings(max_examples=400)
@given(text_pairs(), st.data())
def test_reconcile_recognises_exactly_the_applied_subset(
    pair: tuple[str, str], data: st.DataObject
) -> None:
    old, new = pair
    hunks = compute_hunks(old, new)
    indexes = [hunk.index for hunk in hunks]
    kept = sorted(data.draw(st.sets(st.sampled_from(indexes))) if indexes else set())
    verdict = reconcile(old, hunks, apply_hunks(old, hunks, keep=kept))
    assert verdict.kept == tuple(kept)
    assert verdict.dropped == tuple(k for k in indexes if k not in kept)
    if len(kept) == len(indexes):
        assert verdict.status == "applied"
    elif not kept:
        assert verdict.status == "rejected"
    else:
        assert verdict.status == "partial"


def _unify_line_endings(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _every_landing(old: str, hunks: tuple[Hunk, ...], most: int = 4096) -> set[str] | None:
    """`old` with each hunk landed under every choice of its changed lines (`kept_text`, the
    one per-line rule; all or none of them too); None when too many."""
    results = {""}
    position = 0
    for hunk in hunks:
        before = old[position : hunk.old_offset]
        changed = len(split_lines(hunk.old_text)) + len(split_lines(hunk.new_text))
        if len(results) * 2**changed > most:
            return None
        masks = range(1, 2**changed)
        choices = ([n + 1 for n in range(changed) if mask >> n & 1] for mask in masks)
        pieces = {hunk.old_text} | {kept_text(hunk.old_text, hunk.new_text, c) for c in choices}
        results = {done + before + piece for done in results for piece in pieces}
        position = hunk.old_offset + len(hunk.old_text)
    return {done + old[position:] for done in results}


@settings(max_examples=200)
@given(text_pairs(), texts())
def test_reconcile_calls_any_other_text_stale(pair: tuple[str, str], other: str) -> None:
    old, new = pair
    hunks = compute_hunks(old, new)
    assume(len(hunks) <= 8)
    # A proposal whose line endings the editor converted is still recognised, and so is
    # every hunk landed in some of its changed lines (`kept_text`).
    landings = _every_landing(old, hunks)
    assume(landings is not None)
    assert landings is not None
    subsets = {_unify_line_endings(text) for text in landings}
    assume(_unify_line_endings(other) not in subsets)
    verdict = reconcile(old, hunks, other)
    assert verdict.status == "stale"
    assert verdict.kept == () and verdict.dropped == ()


CODE = [
    "def handler(request):\n",
    "    return response\n",
    "\n",
    "    }\n",
    "        pass\n",
    "    @property\n",
    "class Widget:\n",
    "    value = compute(value)\n",
]


def _code_like(rng: random.Random, count: int) -> list[str]:
    """Repetitive lines with some unique ones, like source code."""
    return [
        rng.choice(CODE) if rng.random() < 0.6 else f"    name_{rng.randrange(10**6)} = {k}\n"
        for k in range(count)
    ]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_big_block_edits_round_trip_and_reconcile(seed: int) -> None:
    # Texts well over the scanner's first window, with block edits up to 150 lines.
    rng = random.Random(seed)
    old_lines = _code_like(rng, rng.randint(200, 1200))
    new_lines = list(old_lines)
    for _ in range(rng.randint(1, 8)):
        at = rng.randrange(len(new_lines) + 1)
        size = rng.choice([1, 2, 5, 20, 60, 150])
        if rng.random() < 0.5:
            new_lines[at : at + size] = _code_like(rng, rng.choice([0, size, size // 2 + 1]))
        else:
            new_lines[at:at] = _code_like(rng, size)
    old, new = "".join(old_lines), "".join(new_lines)
    hunks = compute_hunks(old, new)
    assert apply_hunks(old, hunks) == new
    kept = [hunk.index for hunk in hunks if rng.random() < 0.5]
    assert reconcile(old, hunks, apply_hunks(old, hunks, keep=kept)).kept == tuple(kept)
